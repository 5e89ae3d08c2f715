'use strict';
// A false-positive sample on repositories the drift rules were never tuned on (fresh-set.json): each
// repository's newest commit and the first-parent commits 1..N years before it, one cold index and one
// warm cycle each (cycle-child.js, default detectors), then every distinct ready card as a worklist
// in fp-sample.js's shape, to be judged by hand with fp-rubric.md and counted with fp-tally.js.
//   node scripts/bench/drift/fresh-sample.js --out DIR [--years 3] [--set fresh-set.json] [--mirrors DIR]
// Writes DIR/<owner>+<name>.json (cycle-child output; a repository whose states are all there is not
// run again), DIR/worklist.json (ready cards), DIR/worklist-indirect.json (docs-drift candidates held
// back as indirect evidence, same shape) and prints a summary.
const fs = require('node:fs');
const path = require('node:path');
const { execFileSync } = require('node:child_process');
const { mirrorSource, option, resolveMirror, runStates } = require('./harness');

const YEAR_S = 365 * 24 * 3600;

/** The newest commit and, for each of 1..years, the newest first-parent commit that many years older. */
function statesOf(gitDir, years) {
  const git = (args) => execFileSync('git', ['--git-dir', gitDir, ...args], { encoding: 'utf8' }).trim();
  const head = git(['rev-parse', 'HEAD']);
  const headTime = Number(git(['log', '-1', '--format=%ct', head]));
  const states = [head];
  for (let y = 1; y <= years; y++) {
    const old = git(['rev-list', '--first-parent', '-1', `--before=${headTime - y * YEAR_S}`, head]);
    if (old && !states.includes(old)) states.push(old);
  }
  return states;
}

function main(argv) {
  // A sample judges what the feed would show: held detectors' cards (docs drift of names and flags,
  // exploration.detectors_held) are let through to be judged, unless the caller says otherwise.
  process.env.SOUS_BENCH_DETECTORS_HELD ??= '[]';
  const out = option(argv, '--out');
  if (!out) throw new Error('usage: fresh-sample.js --out DIR [--set fresh-set.json] [--mirrors DIR]');
  const set = JSON.parse(fs.readFileSync(option(argv, '--set', path.join(__dirname, 'fresh-set.json')), 'utf8'));
  const source = mirrorSource(option(argv, '--mirrors'));
  const years = Number(option(argv, '--years', '3'));
  fs.mkdirSync(out, { recursive: true });
  const worklist = [];
  const indirect = [];
  const seen = new Set();
  let trees = 0;
  for (const repo of set.repos) {
    const mirror = resolveMirror(repo, source);
    if (mirror === null) {
      process.stderr.write(`fresh: ${repo}: no mirror (fetch it first); skipped\n`);
      continue;
    }
    const states = statesOf(mirror, years);
    const r = runStates({ repo, mirror, states, resultFile: path.join(out, `${repo.replace('/', '+')}.json`) });
    for (const sha of states) {
      const state = r.states[sha];
      if (!state || state.error) continue;
      trees++;
      for (const card of state.cards.filter((c) => (c.state === 'ready' || /\|indirect$/.test(c.claim ?? '')) && c.evidence)) {
        // One card seen at both states (a stale doc that stayed stale) is judged once, also when
        // more docs named it at one state ("10 docs mention …" then "7 docs mention …").
        const key = `${repo}|${card.detector}|${card.title.replace(/line \d+/g, '').replace(/\b\d+ (docs|renamed mentions)\b/g, '$1')}`;
        if (seen.has(key)) continue;
        seen.add(key);
        const item = { id: `${card.detector}#${worklist.length + indirect.length + 1}`, detector: card.detector, repo, sha, title: card.title, evidence: card.evidence };
        // Indirect docs-drift candidates (held back by their evidence, docs/prepared-work.md) go to
        // their own list, in the same shape, so a judge can read both without knowing which is which.
        if (card.state === 'ready') worklist.push(item);
        else indirect.push(item);
      }
    }
  }
  fs.writeFileSync(path.join(out, 'worklist.json'), JSON.stringify(worklist, null, 1));
  fs.writeFileSync(path.join(out, 'worklist-indirect.json'), JSON.stringify(indirect, null, 1));
  const byDetector = {};
  for (const c of worklist) byDetector[c.detector] = (byDetector[c.detector] ?? 0) + 1;
  process.stdout.write(`${trees} trees, ${worklist.length} distinct ready cards: ${JSON.stringify(byDetector)}; ${indirect.length} indirect docs-drift candidates (worklist-indirect.json)\n`);
}

main(process.argv.slice(2));
