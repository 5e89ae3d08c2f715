'use strict';
// Sampling ready cards for a hand-judged false-positive rate per detector (Tricorder's rule: a
// detector whose cards are wrong or not worth acting on more than 10 % of the time is off by default).
// Input: the JSON of `npm run bench -- drift --json --out F` (its trees keep ready cards' evidence).
// Output: a worklist of at most --per cards per check (--per-drift for docs_drift), at most 2 per repository per check,
// picked by a seeded shuffle so the same run gives the same sample.
//   node scripts/bench/drift/fp-sample.js F [--per 12] [--per-drift 25] [--seed 1] > worklist.json
const fs = require('node:fs');

function rng(seed) {
  let s = seed >>> 0 || 1;
  return () => ((s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32);
}

/**
 * The check a card is judged under: docs_drift's rules (removed_name, removed_flag, moved_path…) are
 * one check with one evidence chain and are judged together; its patches (rename_diff) and every
 * other detector on their own.
 */
function checkOf(detector) {
  return detector.startsWith('docs_drift.') && detector !== 'docs_drift.rename_diff' ? 'docs_drift' : detector;
}

function main(argv) {
  const file = argv[0];
  if (!file) throw new Error('usage: fp-sample.js BENCH.json [--per N] [--seed N]');
  const opt = (name, dflt) => {
    const i = argv.indexOf(name);
    return i < 0 ? dflt : Number(argv[i + 1]);
  };
  const per = opt('--per', 12);
  const perDrift = opt('--per-drift', 25);
  const random = rng(opt('--seed', 1));
  const run = JSON.parse(fs.readFileSync(file, 'utf8'));
  const byDetector = new Map();
  for (const tree of run.trees ?? []) {
    for (const card of tree.ready_cards ?? []) {
      if (!card.evidence) continue;
      const key = checkOf(card.detector);
      const list = byDetector.get(key) ?? [];
      list.push({ repo: tree.repo, sha: tree.sha, ...card });
      byDetector.set(key, list);
    }
  }
  const out = [];
  for (const [detector, cards] of [...byDetector].sort()) {
    // The same claim is often ready at a scenario's parent and its fix: judge it once.
    const seen = new Set();
    const distinct = cards.filter((c) => {
      const key = `${c.repo}|${c.claim}`;
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
    for (let i = distinct.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [distinct[i], distinct[j]] = [distinct[j], distinct[i]];
    }
    const perRepo = new Map();
    const picked = [];
    for (const c of distinct) {
      if (picked.length >= (detector === 'docs_drift' ? perDrift : per)) break;
      const n = perRepo.get(c.repo) ?? 0;
      if (n >= 2) continue;
      perRepo.set(c.repo, n + 1);
      picked.push(c);
    }
    picked.forEach((c, k) => out.push({ id: `${detector}#${k + 1}`, detector, repo: c.repo, sha: c.sha, title: c.title, evidence: c.evidence, population: distinct.length }));
  }
  process.stdout.write(`${JSON.stringify(out, null, 1)}\n`);
}

main(process.argv.slice(2));
