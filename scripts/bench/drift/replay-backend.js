'use strict';
// An OpenAI-compatible chat backend that answers from answers given before: ANSWERS maps a prompt's
// id to its answer ({"drift#0123456789ab": "STALE\n…"}); the id comes from the prompt's messages
// (harness.promptId, as check-sample.js and `drift --checks-out` write them), so a request is
// matched on its whole message list. Lets the drift benchmark run with a model's check of held
// findings when the answers came from elsewhere (a model on another machine, or readers answering
// the prompts alone), so the feed's figures follow those answers exactly. A prompt it has no answer
// for is answered KEEP and counted.
//   node scripts/bench/drift/replay-backend.js --answers FILE [--port 0]
// Prints "replay: listening on http://127.0.0.1:PORT/v1", and on SIGINT/SIGTERM the answered and
// unknown counts.
const fs = require('node:fs');
const http = require('node:http');
const { option, promptId } = require('./harness');

function main(argv) {
  const answersFile = option(argv, '--answers');
  if (!answersFile) throw new Error('usage: replay-backend.js --answers FILE [--port N]');
  const answers = JSON.parse(fs.readFileSync(answersFile, 'utf8'));
  const answerTo = (messages) => {
    const known = answers[promptId(messages)];
    return typeof known === 'string' ? known : undefined;
  };
  let answered = 0;
  let unknown = 0;
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      if (req.method !== 'POST' || !req.url.endsWith('/chat/completions')) {
        res.writeHead(req.url.endsWith('/models') ? 200 : 404, { 'content-type': 'application/json' });
        res.end(JSON.stringify(req.url.endsWith('/models') ? { object: 'list', data: [{ id: 'replay', object: 'model' }] } : { error: { message: 'not found' } }));
        return;
      }
      let request;
      try {
        request = JSON.parse(body);
      } catch {
        res.writeHead(400, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: 'body is not JSON' } }));
        return;
      }
      const known = answerTo(request.messages ?? []);
      if (known === undefined) unknown++;
      else answered++;
      const content = known ?? 'KEEP (no recorded answer for this prompt)';
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ id: 'replay', object: 'chat.completion', created: 0, model: request.model ?? 'replay', choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content } }], usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 } }));
    });
  });
  server.listen(Number(option(argv, '--port', '0')), '127.0.0.1', () => {
    process.stdout.write(`replay: listening on http://127.0.0.1:${server.address().port}/v1 (${Object.keys(answers).length} answers)\n`);
  });
  const stop = () => {
    process.stdout.write(`replay: ${answered} answered, ${unknown} without a recorded answer\n`);
    server.close(() => process.exit(0));
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

main(process.argv.slice(2));
