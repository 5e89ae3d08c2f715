#!/usr/bin/env node
'use strict';
// Writes what of the quality set is committed: set-index.json (every pair's repository, issue URL,
// fix commit, its parent and the answer, without the report's text) and sample.json (a few whole
// pairs, text included, one or two per language, to try the benchmark without the data folder's
// reports). The reports are third-party text: the full set stays in the data folder.
//
//   node scripts/bench/quality/export.js [--data DIR] [--per-language N]
const fs = require('node:fs');
const path = require('node:path');
const { dataDir } = require('./paths');

function main() {
  const args = process.argv.slice(2);
  const opt = (name, fallback) => { const i = args.indexOf(name); return i < 0 ? fallback : args[i + 1]; };
  const dir = opt('--data', dataDir());
  const perLanguage = Number(opt('--per-language', 2));
  const set = JSON.parse(fs.readFileSync(path.join(dir, 'set.json'), 'utf8'));
  const index = {
    built: set.built,
    note: 'Reports are not included: their text is at each url (title and description, without comments). See README.md.',
    repositories: set.repositories.map(({ repo, language, pairs }) => ({ repo, language, pairs })),
    pairs: set.pairs.map(({ id, repo, language, issue, commit, parent, date, expected }) => ({ id, repo, language, url: issue.url, title: issue.title, commit, parent, date, expected })),
  };
  // The sample: the shortest reports of each language, so it stays small.
  const byLanguage = new Map();
  for (const p of set.pairs) byLanguage.set(p.language, [...(byLanguage.get(p.language) ?? []), p]);
  const sample = [...byLanguage.values()].flatMap((list) => [...list].sort((a, b) => a.query.length - b.query.length).slice(0, perLanguage));
  const used = new Set(sample.map((p) => p.repo));
  const out = path.join(__dirname);
  fs.writeFileSync(path.join(out, 'set-index.json'), `${JSON.stringify(index, null, 1)}\n`);
  fs.writeFileSync(path.join(out, 'sample.json'), `${JSON.stringify({ built: set.built, repositories: set.repositories.filter((r) => used.has(r.repo)).map(({ repo, language }) => ({ repo, language })), pairs: sample }, null, 1)}\n`);
  process.stdout.write(`set-index.json: ${index.pairs.length} pairs; sample.json: ${sample.length} pairs\n`);
}

main();
