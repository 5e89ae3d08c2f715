#!/usr/bin/env node
// `npm run bench -- <name> [--json]`: runs one benchmark (or all) against the built code.
'use strict';
const path = require('node:path');
const fs = require('node:fs');

const benches = fs
  .readdirSync(__dirname)
  .filter((f) => f.endsWith('.bench.js'))
  .map((f) => f.replace(/\.bench\.js$/, ''));

async function main() {
  const [name = 'all', ...rest] = process.argv.slice(2);
  const selected = name === 'all' ? benches : [name];
  for (const b of selected) {
    if (!benches.includes(b)) {
      process.stderr.write(`bench: unknown benchmark ${b}; available: ${benches.join(', ')}\n`);
      process.exit(2);
    }
  }
  if (!fs.existsSync(path.join(__dirname, '..', '..', 'services', 'cli', 'dist', 'main.js'))) {
    process.stderr.write('bench: build first (npm run build)\n');
    process.exit(2);
  }
  for (const b of selected) {
    process.stdout.write(`\n# ${b}\n`);
    await require(path.join(__dirname, `${b}.bench.js`)).run(rest);
  }
}

main().catch((err) => {
  process.stderr.write(`bench: ${err && err.stack ? err.stack : err}\n`);
  process.exit(1);
});
