'use strict';
// Child process of the quality benchmark: the cold index of one tree (a fresh process each time,
// so nothing is warm), then the time of each given prompt asked of it.
// Usage: node cold-child.js <job.json> <out.json>
//   job.json: { work, prompts: [string] }   out.json: { files, ms, queryMs: [..], longPromptMs }
const fs = require('node:fs');
const path = require('node:path');
const { wholeTreePolicy } = require('./trees');

const root = path.join(__dirname, '..', '..', '..');
const { buildRepositoryIndex } = require(path.join(root, 'shared', 'retrieval', 'dist'));

async function main() {
  const [jobFile, outFile] = process.argv.slice(2);
  const job = JSON.parse(fs.readFileSync(jobFile, 'utf8'));
  const t0 = process.hrtime.bigint();
  const index = await buildRepositoryIndex(job.work, wholeTreePolicy(root));
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  const queryMs = job.prompts.map((prompt) => {
    const q0 = process.hrtime.bigint();
    index.query(prompt, { topN: 10 });
    return Number(process.hrtime.bigint() - q0) / 1e6;
  });
  // A pasted 4,000-word log of words no file has: the prompt's terms are capped, so it costs
  // about what a report does (it grew with the square of its length before).
  let seed = 1;
  const letter = () => String.fromCharCode(97 + ((seed = (seed * 16807) % 2147483647) % 26));
  const wall = Array.from({ length: 4000 }, () => Array.from({ length: 8 }, letter).join('')).join(' ');
  const w0 = process.hrtime.bigint();
  index.query(wall, { topN: 10 });
  const longPromptMs = Number(process.hrtime.bigint() - w0) / 1e6;
  fs.writeFileSync(outFile, JSON.stringify({ files: index.size, ms, queryMs, longPromptMs }));
}

main().then(() => process.exit(0)).catch((err) => {
  process.stderr.write(`quality cold-child: ${err && err.stack ? err.stack : err}\n`);
  process.exit(1);
});
