/**
 * MCP over HTTP: the SDK's Streamable HTTP transport at `/mcp` (stateless: every request is answered
 * by a fresh server over the same tools), and the legacy SSE transport for older clients (`GET /sse`
 * opens the stream, `POST /messages?sessionId=…` carries the requests). Host and Origin are checked
 * by the surface's guards before these routes run (shared/http), so the SDK's own DNS-rebinding check
 * is not repeated here.
 */
import type { Express, Request, Response } from 'express';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';

/** The path of the Streamable HTTP endpoint. */
export const MCP_HTTP_PATH = '/mcp';
/** The legacy SSE endpoints. */
export const MCP_SSE_PATH = '/sse';
export const MCP_MESSAGES_PATH = '/messages';

/**
 * Adds the MCP endpoints to an express app; `makeServer` builds a server (cheap: the tools are data)
 * for the request that opens it (a POST to /mcp, or the GET that opens an SSE stream).
 */
export function mcpHttpRoutes(app: Express, makeServer: (req: Request) => Server): { close(): Promise<void> } {
  const sessions = new Map<string, { transport: SSEServerTransport; server: Server }>();

  app.post(MCP_HTTP_PATH, async (req: Request, res: Response) => {
    const server = makeServer(req);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, req.body);
  });

  // Stateless: there is no stream to resume and no session to end.
  const stateless = (_req: Request, res: Response): void => {
    res.status(405).set('allow', 'POST').json({ jsonrpc: '2.0', error: { code: -32000, message: 'this MCP endpoint is stateless: POST JSON-RPC requests to /mcp' }, id: null });
  };
  app.get(MCP_HTTP_PATH, stateless);
  app.delete(MCP_HTTP_PATH, stateless);

  app.get(MCP_SSE_PATH, async (req: Request, res: Response) => {
    // HEAD (express routes it here): the head is the whole answer; a stream would never send it.
    if (req.method === 'HEAD') {
      res.status(200).type('text/event-stream').end();
      return;
    }
    const transport = new SSEServerTransport(MCP_MESSAGES_PATH, res);
    const server = makeServer(req);
    sessions.set(transport.sessionId, { transport, server });
    res.on('close', () => {
      sessions.delete(transport.sessionId);
      void server.close();
    });
    await server.connect(transport);
  });

  app.post(MCP_MESSAGES_PATH, async (req: Request, res: Response) => {
    const id = typeof req.query['sessionId'] === 'string' ? req.query['sessionId'] : '';
    const session = sessions.get(id);
    if (session === undefined) {
      res.status(404).json({ error: { code: 'not_found', message: `no MCP SSE session ${id || '(missing sessionId)'}; open one with GET ${MCP_SSE_PATH}`, where: 'query.sessionId' } });
      return;
    }
    await session.transport.handlePostMessage(req, res, req.body);
  });

  return {
    async close() {
      for (const { transport, server } of sessions.values()) {
        await transport.close().catch(() => undefined);
        await server.close().catch(() => undefined);
      }
      sessions.clear();
    },
  };
}
