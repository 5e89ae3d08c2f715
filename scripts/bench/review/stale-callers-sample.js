'use strict';
// A false-positive sample for review.stale_callers (and the drafts that follow it) on real
// repositories' histories: for each mirror, the newest first-parent commits whose diff changes a
// function's parameter list (a cheap pre-filter on `git log -p -U0`), at most --per of them per
// repository (seeded shuffle); each is checked out as HEAD, indexed cold, and given the review
// detector as a cycle runs it (the newest commits reviewed). Every distinct stale-callers card becomes
// a worklist entry in fp-sample.js's shape, to be judged with scripts/bench/drift/fp-rubric.md and
// counted with scripts/bench/drift/fp-tally.js.
//   node scripts/bench/review/stale-callers-sample.js --out DIR [--set FILE.json ...] [--depth 400] [--per 3] [--seed 1] [--mirrors DIR]
// Writes DIR/worklist.json and prints a summary. Needs `npm run build` and the mirrors.
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { makeCheckout, mirrorSource, option, optionList, resolveMirror, seededRandom } = require('../drift/harness');

const root = path.join(__dirname, '..', '..', '..');
const config = require(path.join(root, 'shared', 'config', 'dist'));
const { buildRepositoryIndex, scopePolicyFromConfig } = require(path.join(root, 'shared', 'retrieval', 'dist'));
const { createRepositoryView, defaultDetectors } = require(path.join(root, 'shared', 'engine', 'dist'));

/** A changed line that defines a function (any of the reviewed languages); group 1 is its name. */
const DEFINITION = /^[-+]\s*(?:export\s+(?:default\s+)?)?(?:pub(?:\([^)]*\))?\s+)?(?:public\s+(?:static\s+)?)?(?:async\s+)?(?:def|function|fn|func(?:\s*\([^)]*\))?)\s+([A-Za-z_$][\w$]*)\s*[<([]/;
const SOURCE = /\.(?:py|js|mjs|cjs|jsx|ts|tsx|mts|cts|go|rs|java)$/;

/** A parameter-like changed line of a multi-line signature: `  thread_count: Option<ThreadCount>,`, `  label="x",`. */
const PARAMETER = /^[-+]\s*(?:(?:pub|mut|readonly|private|public)\s+)?[A-Za-z_$][\w$]*\s*(?:[:?][^;{}=]*|=[^;{}]*)?,?\s*$/;

/**
 * Newest first-parent commits (of `depth`) that may change a parameter list: a definition line of one
 * name rewritten with another count of commas, or a parameter-like line changed in a hunk whose
 * context is a definition (git's hunk header names the enclosing `fn`/`def`/`function`/`func`).
 * A partial mirror's unreadable commit ends the list there.
 */
function signatureCommits(gitDir, depth) {
  const run = spawnSync('git', ['--git-dir', gitDir, 'log', '--first-parent', '--no-merges', `-${depth}`, '--format=@@@%H', '-p', '-U0', '--no-color', '--no-ext-diff', '--no-renames'], { encoding: 'utf8', maxBuffer: 1 << 30 });
  const out = [];
  for (const chunk of (run.stdout ?? '').split('@@@').slice(1)) {
    const sha = chunk.slice(0, 40);
    // name → the commas of its definition line (a rough parameter count)
    const removed = new Map();
    const added = new Map();
    let source = false;
    let inSignature = false;
    let hit = false;
    for (const line of chunk.split('\n')) {
      if (line.startsWith('diff --git ')) source = SOURCE.test(line) && !/(?:^|\/)(?:tests?|__tests__|spec)\//.test(line.split(' b/')[1] ?? '');
      else if (!source || line.startsWith('---') || line.startsWith('+++')) continue;
      else if (line.startsWith('@@')) inSignature = DEFINITION.test(`+${line.replace(/^@@[^@]*@@\s?/, '')}`);
      else {
        const name = DEFINITION.exec(line)?.[1];
        if (name !== undefined) (line.startsWith('-') ? removed : added).set(name, (line.split(')')[0]?.match(/,/g) ?? []).length);
        else if (inSignature && PARAMETER.test(line)) hit = true;
      }
    }
    if (hit || [...removed].some(([n, commas]) => added.has(n) && added.get(n) !== commas)) out.push(sha);
  }
  return out;
}

async function main(argv) {
  const out = option(argv, '--out');
  if (!out) throw new Error('usage: stale-callers-sample.js --out DIR [--set FILE.json ...] [--depth 400] [--per 3] [--seed 1] [--mirrors DIR]');
  const sets = optionList(argv, '--set');
  const repos = [...new Set((sets.length > 0 ? sets : [path.join(__dirname, '..', 'drift', 'fresh-set-19.json')]).flatMap((f) => {
    const set = JSON.parse(fs.readFileSync(f, 'utf8'));
    return set.repos ?? (set.scenarios ?? set).map((s) => s.repo);
  }))];
  const depth = Number(option(argv, '--depth', '400'));
  const per = Number(option(argv, '--per', '3'));
  const random = seededRandom(Number(option(argv, '--seed', '1')));
  const source = mirrorSource(option(argv, '--mirrors'));
  fs.mkdirSync(out, { recursive: true });
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'sous-stale-'));
  const review = defaultDetectors().find((d) => d.name === 'review');
  const worklist = [];
  const seen = new Set();
  let states = 0;
  try {
    for (const repo of repos) {
      const mirror = resolveMirror(repo, source);
      if (mirror === null) {
        process.stderr.write(`stale: ${repo}: no mirror; skipped\n`);
        continue;
      }
      const commits = signatureCommits(mirror, depth);
      for (let i = commits.length - 1; i > 0; i--) {
        const j = Math.floor(random() * (i + 1));
        [commits[i], commits[j]] = [commits[j], commits[i]];
      }
      for (const sha of commits.slice(0, per)) {
        const dir = path.join(scratch, 'tree');
        let paths;
        try {
          ({ paths } = await makeCheckout(mirror, sha, dir, config));
        } catch (err) {
          process.stderr.write(`stale: ${repo} ${sha.slice(0, 10)}: no checkout (${err instanceof Error ? err.message.split('\n')[0] : String(err)}); skipped\n`);
          continue;
        }
        const policy = scopePolicyFromConfig(config.loadConfig(paths.config));
        const view = createRepositoryView(await buildRepositoryIndex(paths.root, policy), policy);
        const result = await review.detect({ view, trigger: { kind: 'warm' }, frontier: { entries: view.paths().map((p) => ({ path: p, priority: 1 })), priority: () => 1 }, signal: AbortSignal.timeout(120_000), isOff: () => false, isHeld: () => false });
        states++;
        const cards = result.candidates.filter((c) => c.detector === 'review.stale_callers');
        process.stderr.write(`stale: ${repo} ${sha.slice(0, 10)}: ${view.paths().length} files, ${cards.length} card(s)\n`);
        for (const c of cards) {
          const commit = c.evidence.find((e) => e.commit !== undefined)?.commit ?? sha;
          const key = `${repo}|${c.claim}|${commit}`;
          if (seen.has(key)) continue;
          seen.add(key);
          worklist.push({ id: `review.stale_callers#${worklist.length + 1}`, detector: c.detector, repo, sha, title: c.title, evidence: c.evidence.map((e) => ({ path: e.path, line: e.lineStart ?? null, note: e.note, ...(e.commit !== undefined ? { commit: e.commit } : {}) })) });
        }
      }
    }
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
  fs.writeFileSync(path.join(out, 'worklist.json'), `${JSON.stringify(worklist, null, 2)}\n`);
  process.stdout.write(`${repos.length} repositories, ${states} states, ${worklist.length} distinct stale-callers cards (${path.join(out, 'worklist.json')})\n`);
}

main(process.argv.slice(2)).then(
  () => process.exit(0),
  (err) => {
    process.stderr.write(`stale-callers-sample: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  },
);
