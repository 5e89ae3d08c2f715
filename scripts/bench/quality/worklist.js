#!/usr/bin/env node
'use strict';
// Restoring the reports on a new machine: the reports are third-party text kept outside the
// checkout (README.md, "Where the data lives"), so a new machine has only set-index.json. This
// writes <data>/worklists/g<k>.json, the committed pairs split into `--groups` lists of whole
// repositories of about equal size, each item { repo, language, number, url, title, commit }, and
// says which reports are already there. Step 2 of README.md then records each one.
//
//   node scripts/bench/quality/worklist.js [--groups N]      (default 6)
const fs = require('node:fs');
const path = require('node:path');
const { dataDir } = require('./paths');

const args = process.argv.slice(2);
const at = args.indexOf('--groups');
const groups = at < 0 ? 6 : Number(args[at + 1]);
if (!Number.isInteger(groups) || groups < 1) {
  process.stderr.write(`worklist: --groups must be a positive integer (found ${args[at + 1]})\n`);
  process.exit(2);
}
const index = JSON.parse(fs.readFileSync(path.join(__dirname, 'set-index.json'), 'utf8'));
const language = new Map(index.repositories.map((r) => [r.repo, r.language]));
const byRepo = new Map();
let present = 0;
for (const p of index.pairs) {
  const number = Number(p.url.slice(p.url.lastIndexOf('/') + 1));
  if (fs.existsSync(path.join(dataDir(), 'issues', p.repo.replace('/', '+'), `${number}.md`))) { present++; continue; }
  byRepo.set(p.repo, [...(byRepo.get(p.repo) ?? []), { repo: p.repo, language: language.get(p.repo), number, url: p.url, title: p.title, commit: p.commit }]);
}
// Largest repositories first, each to the lightest list.
const lists = Array.from({ length: groups }, () => []);
for (const items of [...byRepo.values()].sort((a, b) => b.length - a.length)) lists.reduce((min, l) => (l.length < min.length ? l : min)).push(...items);
const dir = path.join(dataDir(), 'worklists');
fs.mkdirSync(dir, { recursive: true });
for (const f of fs.readdirSync(dir)) if (/^g\d+\.json$/.test(f)) fs.rmSync(path.join(dir, f)); // an earlier run's lists
lists.filter((l) => l.length > 0).forEach((l, i) => fs.writeFileSync(path.join(dir, `g${i + 1}.json`), `${JSON.stringify(l, null, 1)}\n`));
process.stdout.write(`${present} of ${index.pairs.length} reports present; ${index.pairs.length - present} to restore in ${lists.filter((l) => l.length > 0).length} lists under ${dir}\n`);
