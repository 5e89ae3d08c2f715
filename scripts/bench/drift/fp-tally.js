'use strict';
// False-positive rate per detector from hand judgements of a sample (see fp-sample.js and
// scripts/bench/drift/README.md). Judgements: [{ id, verdict: "tp" | "fp", why, tier? }].
//   node scripts/bench/drift/fp-tally.js [scripts/bench/drift/fp-judgements.json] [--json]
const fs = require('node:fs');
const path = require('node:path');

const LIMIT = 10; // per cent: Tricorder's bar

function wilson(k, n, z = 1.96) {
  if (n === 0) return [0, 1];
  const p = k / n;
  const d = 1 + (z * z) / n;
  const c = p + (z * z) / (2 * n);
  const r = z * Math.sqrt((p * (1 - p)) / n + (z * z) / (4 * n * n));
  return [(c - r) / d, (c + r) / d];
}

function main(argv) {
  const file = argv.find((a) => !a.startsWith('--')) ?? path.join(__dirname, 'fp-judgements.json');
  const judged = JSON.parse(fs.readFileSync(file, 'utf8'));
  const by = new Map();
  for (const j of judged) {
    if (j.verdict !== 'tp' && j.verdict !== 'fp') throw new Error(`${j.id}: verdict must be "tp" or "fp" (found ${JSON.stringify(j.verdict)})`);
    // A judgement may name its tier (`ready`, or `indirect` for docs-drift candidates held back by
    // their evidence): each tier is counted on its own row.
    const detector = j.id.slice(0, j.id.lastIndexOf('#')) + (j.tier ? ` (${j.tier})` : '');
    const row = by.get(detector) ?? { detector, judged: 0, fp: 0 };
    row.judged++;
    if (j.verdict === 'fp') row.fp++;
    by.set(detector, row);
  }
  const rows = [...by.values()].sort((a, b) => (a.detector < b.detector ? -1 : 1)).map((r) => {
    const [lo, hi] = wilson(r.fp, r.judged);
    return { ...r, fp_rate: Math.round((1000 * r.fp) / r.judged) / 10, ci95: [Math.round(lo * 1000) / 10, Math.round(hi * 1000) / 10], passes: (100 * r.fp) / r.judged < LIMIT };
  });
  if (argv.includes('--json')) {
    process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
    return;
  }
  process.stdout.write(`| detector | judged | false positives | rate | 95 % interval | < ${LIMIT} % |\n| --- | --- | --- | --- | --- | --- |\n`);
  for (const r of rows) process.stdout.write(`| ${r.detector} | ${r.judged} | ${r.fp} | ${r.fp_rate} % | ${r.ci95[0]}–${r.ci95[1]} % | ${r.passes ? 'yes' : 'no'} |\n`);
}

main(process.argv.slice(2));
