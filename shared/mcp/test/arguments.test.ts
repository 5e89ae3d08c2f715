/**
 * Malformed tool arguments never reach a tool and never look like a server fault: `__proto__`,
 * `constructor` and `prototype` keys (joi drops `__proto__` silently, so the schema alone would let
 * the call run) and NUL characters are refused as invalid arguments naming the field; arguments
 * that are not an object get a tool error too, over the real MCP protocol (the SDK alone answers
 * them with JSON-RPC's internal error).
 */
import Joi from 'joi';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { DaemonClient } from '@sous/runtime';
import { ToolRegistry, defineTool, toolResult } from '../src/registry';
import { createSousMcpServer } from '../src/server';

describe('tool arguments at the MCP edge', () => {
  let runs = 0;
  const registry = new ToolRegistry().add(
    defineTool<{ id: string; tags?: string[] }>({
      id: 'cards.touch',
      title: 'Touch',
      description: 'Changes a card (for this test).',
      input: Joi.object({ id: Joi.string().required(), tags: Joi.array().items(Joi.string()) }),
      readOnly: false,
      async run(args) {
        runs++;
        return toolResult('touched', { id: args.id });
      },
    }),
  );
  const ctx = { daemon: new DaemonClient('http://127.0.0.1:9', 100), workspace: '/tmp/w' };

  beforeEach(() => {
    runs = 0;
  });

  test.each([
    ['a __proto__ key', '{"id":"c1","__proto__":{"polluted":true}}', '__proto__'],
    ['a nested constructor key', '{"id":"c1","tags":[{"constructor":{"prototype":{}}}]}', 'tags.0.constructor'],
    ['a NUL character', '{"id":"c\\u0000"}', 'id'],
  ])('%s is refused as invalid arguments naming the field, and the tool does not run', async (_name, json, field) => {
    const result = await registry.call('sous_cards_touch', JSON.parse(json), ctx);
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toMatchObject({ error: { code: 'invalid_arguments', details: { fields: [field] } } });
    expect(JSON.stringify(result.content)).toContain(field);
    expect(runs).toBe(0);
  });

  test('well-formed arguments still run the tool', async () => {
    const result = await registry.call('sous_cards_touch', { id: 'c1', tags: ['a'] }, ctx);
    expect(result.isError).toBeUndefined();
    expect(runs).toBe(1);
  });

  test('arguments that are not an object get a tool error over the protocol, not a JSON-RPC internal error', async () => {
    const server = createSousMcpServer({ daemon: async () => ctx.daemon, workspace: '/tmp/w', version: '0.0.0', registry });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const answers: JSONRPCMessage[] = [];
    clientSide.onmessage = (message) => answers.push(message);
    await server.connect(serverSide);
    await clientSide.start();
    const calls: Array<[number, unknown]> = [[1, []], [2, 'x'], [3, 7], [4, true]];
    for (const [id, args] of calls) await clientSide.send({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'sous_cards_touch', arguments: args } });
    await clientSide.send({ jsonrpc: '2.0', id: 5, method: 'tools/call', params: { arguments: {} } });
    await clientSide.send({ jsonrpc: '2.0', id: 6, method: 'tools/nope', params: {} });
    const deadline = Date.now() + 5000;
    while (answers.length < 6 && Date.now() < deadline) await new Promise((r) => setImmediate(r));
    const byId = new Map(answers.map((a) => [(a as { id: number }).id, a as { result?: { isError?: boolean; structuredContent?: { error?: { code?: string } } }; error?: { code: number } }]));
    for (const [id] of calls) expect(byId.get(id)?.result).toMatchObject({ isError: true, structuredContent: { error: { code: 'invalid_arguments' } } });
    expect(byId.get(5)?.error?.code).toBe(-32602); // invalid params: no tool name
    expect(byId.get(6)?.error?.code).toBe(-32601); // method not found
    expect(runs).toBe(0);
    await server.close();
  });
});
