'use strict';
// A deterministic OpenAI-compatible upstream for the proxy benchmark, run as its own process so the
// load generator's event loop does not slow it: a chat request is answered at once with a fixed
// completion; a streamed one sends its first token after FIRST_TOKEN_MS, then CHUNKS more, GAP_MS apart.
// Prints `{"port":N}` on stdout once it listens.
const http = require('node:http');

const FIRST_TOKEN_MS = Number(process.env.FIRST_TOKEN_MS ?? 20);
const GAP_MS = Number(process.env.GAP_MS ?? 5);
const CHUNKS = 4;
const completion = JSON.stringify({ id: 'chatcmpl-bench', object: 'chat.completion', created: 1, model: 'bench', choices: [{ index: 0, message: { role: 'assistant', content: 'a fixed answer' }, finish_reason: 'stop' }], usage: { prompt_tokens: 1, completion_tokens: 3, total_tokens: 4 } });
const chunk = (content) => `data: ${JSON.stringify({ id: 'chatcmpl-bench', object: 'chat.completion.chunk', created: 1, model: 'bench', choices: [{ index: 0, delta: { content }, finish_reason: null }] })}\n\n`;

const server = http.createServer((req, res) => {
  const parts = [];
  // A peer that resets the connection (a client gone) must not stop the upstream.
  req.on('error', () => undefined);
  res.on('error', () => undefined);
  req.on('data', (c) => parts.push(c));
  req.on('end', () => {
    if (req.method === 'GET') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"object":"list","data":[{"id":"bench","object":"model","created":0,"owned_by":"bench"}]}');
      return;
    }
    const body = JSON.parse(Buffer.concat(parts).toString('utf8'));
    if (body.stream !== true) {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(completion) });
      res.end(completion);
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    let sent = 0;
    const next = () => {
      if (res.destroyed) return;
      if (sent === CHUNKS) return void res.end('data: [DONE]\n\n');
      res.write(chunk(`token${sent} `));
      sent += 1;
      setTimeout(next, GAP_MS);
    };
    setTimeout(next, FIRST_TOKEN_MS);
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => process.stdout.write(`${JSON.stringify({ port: server.address().port })}\n`));
process.on('SIGTERM', () => process.exit(0));
