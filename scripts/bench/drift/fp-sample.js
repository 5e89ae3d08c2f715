'use strict';
// Sampling ready cards for a hand-judged false-positive rate per detector (Tricorder's rule: a
// detector whose cards are wrong or not worth acting on more than 10 % of the time is off by default).
// Input: the JSON of `npm run bench -- drift --json --out F` (its trees keep ready cards' evidence).
// Output: a worklist of at most --per cards per detector, at most 2 per repository per detector,
// picked by a seeded shuffle so the same run gives the same sample.
//   node scripts/bench/drift/fp-sample.js F [--per 25] [--seed 1] > worklist.json
const fs = require('node:fs');

function rng(seed) {
  let s = seed >>> 0 || 1;
  return () => ((s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32);
}

function main(argv) {
  const file = argv[0];
  if (!file) throw new Error('usage: fp-sample.js BENCH.json [--per N] [--seed N]');
  const opt = (name, dflt) => {
    const i = argv.indexOf(name);
    return i < 0 ? dflt : Number(argv[i + 1]);
  };
  const per = opt('--per', 25);
  const random = rng(opt('--seed', 1));
  const run = JSON.parse(fs.readFileSync(file, 'utf8'));
  const byDetector = new Map();
  for (const tree of run.trees ?? []) {
    for (const card of tree.ready_cards ?? []) {
      if (!card.evidence) continue;
      const list = byDetector.get(card.detector) ?? [];
      list.push({ repo: tree.repo, sha: tree.sha, ...card });
      byDetector.set(card.detector, list);
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
      if (picked.length >= per) break;
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
