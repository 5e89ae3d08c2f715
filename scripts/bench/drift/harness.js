'use strict';
// The drift benchmark's plumbing, shared by drift.bench.js and cycle-child.js: where the set and the
// mirrors are, scratch checkouts of a state, how a card's claim is matched against a scenario's
// tokens, and the figures (mean / median / max, percentiles).
const { execFileSync, spawnSync } = require('node:child_process');
const { createHash } = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

/** The set mine.js writes (scripts/bench/drift/README.md). */
const DEFAULT_SET = path.join(__dirname, 'set-index.json');
/** repo → git dir, written when the set's mirrors are fetched. */
const DEFAULT_MIRRORS_MAP = path.join('/work', 'drift-set', 'mirrors.json');

const git = (args, opts = {}) => execFileSync('git', args, { encoding: 'utf8', maxBuffer: 1 << 28, stdio: ['ignore', 'pipe', 'pipe'], ...opts });

// ---- the set ----

/** Scenarios of the set, filtered by `repos` (owner/name) and cut to the first `limit`. */
function loadSet(file, { repos = [], limit = null } = {}) {
  if (!fs.existsSync(file)) {
    throw new Error(`no drift set at ${file}: run scripts/bench/drift/mine.js to write it (see scripts/bench/drift/README.md), or pass --set FILE`);
  }
  const raw = JSON.parse(fs.readFileSync(file, 'utf8'));
  let scenarios = Array.isArray(raw) ? raw : raw.scenarios;
  if (!Array.isArray(scenarios)) throw new Error(`${file}: expected an array of scenarios`);
  for (const s of scenarios) {
    for (const k of ['id', 'repo', 'fix', 'parent', 'doc']) if (typeof s[k] !== 'string' || s[k] === '') throw new Error(`${file}: scenario ${s.id ?? '?'} has no ${k}`);
    if (!Array.isArray(s.tokens) || s.tokens.length === 0) throw new Error(`${file}: scenario ${s.id} has no tokens`);
    if (s.invalid !== undefined && (typeof s.invalid !== 'string' || s.invalid === '')) throw new Error(`${file}: scenario ${s.id}: invalid must be the reason, a non-empty string`);
  }
  if (repos.length > 0) scenarios = scenarios.filter((s) => repos.includes(s.repo));
  if (limit !== null) scenarios = scenarios.slice(0, limit);
  return scenarios;
}

// ---- mirrors ----

/** A bare or non-bare git dir at or below `dir` (two levels): the one holding HEAD and objects/. */
function findGitDir(dir, depth = 2) {
  if (!fs.existsSync(dir) || !fs.statSync(dir).isDirectory()) return null;
  if (fs.existsSync(path.join(dir, 'HEAD')) && fs.existsSync(path.join(dir, 'objects'))) return dir;
  if (fs.existsSync(path.join(dir, '.git', 'objects'))) return path.join(dir, '.git');
  if (depth === 0) return null;
  const subdirs = fs.readdirSync(dir, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name);
  // `repo` first: that is where `fetch` puts it.
  subdirs.sort((a, b) => (a === 'repo' ? -1 : b === 'repo' ? 1 : a < b ? -1 : 1));
  for (const sub of subdirs) {
    const found = findGitDir(path.join(dir, sub), depth - 1);
    if (found !== null) return found;
  }
  return null;
}

/**
 * Where the mirrors are: `--mirrors` (a folder of `<owner>+<name>` dirs, or a JSON map repo → git
 * dir), else the map at /work/drift-set/mirrors.json when present plus $SOUS_MIRRORS or /work/.mirror.
 */
function mirrorSource(option) {
  const env = process.env.SOUS_MIRRORS;
  if (option && option.endsWith('.json')) return { map: readMap(option), dir: env ?? path.join('/work', '.mirror') };
  return { map: option ? {} : readMap(DEFAULT_MIRRORS_MAP), dir: option ?? env ?? path.join('/work', '.mirror') };
}

function readMap(file) {
  if (!fs.existsSync(file)) return {};
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (err) {
    throw new Error(`${file}: not a JSON map of repo to git dir (${err.message})`);
  }
}

/** The git dir of `repo` (owner/name), or null. */
function resolveMirror(repo, source) {
  const recorded = source.map[repo];
  if (typeof recorded === 'string') {
    const found = findGitDir(recorded, 1);
    if (found !== null) return found;
  }
  return findGitDir(path.join(source.dir, repo.replace('/', '+')));
}

/** Whether the mirror holds `sha` as a commit. */
function hasCommit(gitDir, sha) {
  try {
    git(['--git-dir', gitDir, 'cat-file', '-e', `${sha}^{commit}`]);
    return true;
  } catch {
    return false;
  }
}

// ---- scratch checkouts ----

/**
 * A checkout of `sha` with full history (objects shared with the mirror, nothing copied) in `dir`,
 * with the whole tree in scope as `sous init` plus `privacy.allowed_paths = ["**\/*"]` leaves it.
 */
async function makeCheckout(mirror, sha, dir, config) {
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(path.dirname(dir), { recursive: true });
  git(['clone', '--quiet', '--shared', '--no-checkout', mirror, dir]);
  let failure = null;
  try {
    git(['-c', 'advice.detachedHead=false', 'checkout', '--quiet', '--detach', sha], { cwd: dir });
  } catch (err) {
    failure = err;
  }
  if (failure !== null && git(['rev-parse', 'HEAD'], { cwd: dir }).trim() !== git(['rev-parse', `${sha}^{commit}`], { cwd: dir }).trim()) throw failure;
  // A partial mirror (`fetch` leaves its largest blobs out) cannot write those files, and git says
  // so without failing: they are left out of the tree and marked skip-worktree, so that `git diff
  // HEAD` does not see them as deleted (and read the blob it does not have).
  const absent = git(['ls-files', '-d', '-z'], { cwd: dir }).split('\0').filter(Boolean);
  for (let i = 0; i < absent.length; i += 200) git(['update-index', '--skip-worktree', '--', ...absent.slice(i, i + 200)], { cwd: dir });
  if (failure !== null && git(['status', '--porcelain', '--untracked-files=no'], { cwd: dir }).trim() !== '') throw failure;
  const paths = config.sousPaths(dir);
  await config.ensureConfigFile(paths); // .sous/ with its own .gitignore of `*`, and the default config
  await config.setConfigValue(paths.config, 'privacy.allowed_paths', '["**/*"]');
  // To measure detectors that are off by default: SOUS_BENCH_DETECTORS_OFF='[]' turns every one on.
  if (process.env.SOUS_BENCH_DETECTORS_OFF !== undefined) await config.setConfigValue(paths.config, 'exploration.detectors_off', process.env.SOUS_BENCH_DETECTORS_OFF);
  // Held detectors' cards stay candidates by default; SOUS_BENCH_DETECTORS_HELD='[]' lets them be ready.
  if (process.env.SOUS_BENCH_DETECTORS_HELD !== undefined) await config.setConfigValue(paths.config, 'exploration.detectors_held', process.env.SOUS_BENCH_DETECTORS_HELD);
  // Held detectors whose findings the model checks (SOUS_BENCH_CONFIRM_HELD='["docs_drift.removed_name"]'; check-sample.js).
  if (process.env.SOUS_BENCH_CONFIRM_HELD !== undefined) await config.setConfigValue(paths.config, 'exploration.confirm_held', process.env.SOUS_BENCH_CONFIRM_HELD);
  // A shorter cycle bound for profiling a slow tree (SOUS_BENCH_MAX_CYCLE_SECONDS=60).
  if (process.env.SOUS_BENCH_MAX_CYCLE_SECONDS !== undefined) await config.setConfigValue(paths.config, 'compute.max_cycle_seconds', process.env.SOUS_BENCH_MAX_CYCLE_SECONDS);
  return { paths, absent };
}

// ---- matching ----

/** `detector|claim` → claim (detector ids hold no `|`). */
function claimOf(card) {
  const key = card.claimKey ?? card.claim_key ?? '';
  if (card.detector && key.startsWith(`${card.detector}|`)) return key.slice(card.detector.length + 1);
  const bar = key.indexOf('|');
  return bar < 0 ? key : key.slice(bar + 1);
}

/** A docs_drift claim `${doc}|${kind}|${value}` on `doc` → { kind, value }, else null. */
function driftClaimOn(claim, doc) {
  if (!claim.startsWith(`${doc}|`)) return null;
  const rest = claim.slice(doc.length + 1);
  const bar = rest.indexOf('|');
  if (bar < 0) return null;
  return { kind: rest.slice(0, bar), value: rest.slice(bar + 1) };
}

/** A value as compared: no backticks, no leading `--`/`-`/`$` (nor `${…}`), no trailing call parens, no leading `./`. */
function normalize(value) {
  let v = String(value).trim().replace(/^`+|`+$/g, '');
  v = v.replace(/^\$\{([^}]*)\}$/, '$1').replace(/^(?:--?|\$)/, '');
  v = v.replace(/\(\s*[^()]*\)$/, '');
  v = v.replace(/^\.\//, '');
  return v;
}

/** The last `.`/`::` segment of a name (a path is kept whole: its dots are extensions). */
function lastSegment(value) {
  if (value.includes('/')) return value;
  const parts = value.split(/::|\./).filter((p) => p !== '');
  return parts.length === 0 ? value : parts[parts.length - 1];
}

/** Whether a card's value names the token: equal, or one is the other's last dotted/`::` segment. */
function valueMatches(cardValue, tokenValue) {
  const a = normalize(cardValue);
  const b = normalize(tokenValue);
  if (a === '' || b === '') return false;
  if (a === b) return true;
  if (a.replace(/^\//, '') === b.replace(/^\//, '')) return true;
  return a === lastSegment(b) || lastSegment(a) === b;
}

/** The forms a token is compared in: as written, and a doc-relative path resolved against the doc's folder. */
function tokenForms(token, doc) {
  const v = String(token.value);
  if (!/^\.\.?\//.test(v)) return [v];
  return [v, path.posix.normalize(path.posix.join(path.posix.dirname(doc), v))];
}

/**
 * The scenario's tokens a docs-drift card names on the scenario's doc. A finding is a docs_drift card
 * or the virtual diff that rewrites the stale names (`docs_drift.rename_diff`): the feed shows one of
 * the two. One card covers a removing commit (every doc and name it left behind), so what it names is
 * read from its evidence (`mentions`: [doc, name] pairs); an older card's claim `doc|kind|value` too.
 */
function matchedTokens(card, scenario) {
  if (card.kind !== 'docs_drift' && !String(card.detector ?? '').startsWith('docs_drift.')) return [];
  const named = (card.mentions ?? []).filter(([doc]) => doc === scenario.doc).map(([, value]) => value);
  const claim = driftClaimOn(card.claim ?? '', scenario.doc);
  if (claim !== null) named.push(claim.value);
  return scenario.tokens.filter((t) => tokenForms(t, scenario.doc).some((form) => named.some((v) => valueMatches(v, form))));
}

/** The first token a docs-drift card names on the scenario's doc, or undefined. */
function matchedToken(card, scenario) {
  return matchedTokens(card, scenario)[0];
}

// ---- figures ----

/** Nearest-rank percentile. */
function percentile(values, p) {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

/** Mean, median (middle value, or the mean of the two) and max; zeros for no values. */
function spread(values) {
  if (values.length === 0) return { n: 0, mean: 0, median: 0, max: 0 };
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  const median = sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
  return { n: values.length, mean: values.reduce((s, v) => s + v, 0) / values.length, median, max: sorted[sorted.length - 1] };
}

/** The value after `name` in a script's arguments, or `fallback`. */
function option(argv, name, fallback) {
  const i = argv.indexOf(name);
  return i < 0 ? fallback : argv[i + 1];
}

/** Every value after a repeatable `name` in a script's arguments (`--set a.json --set b.json`). */
function optionList(argv, name) {
  return argv.flatMap((a, i) => (i > 0 && argv[i - 1] === name ? [a] : []));
}

/**
 * Runs cycle-child.js on the `states` of one repository not in `resultFile` yet (with `env` added to
 * this process's), merges what it wrote into that file and returns its content ({ states: { sha: … } }).
 * A child that dies keeps the states it finished.
 */
function runStates({ repo, mirror, states, resultFile, env = {}, initial = { states: {} } }) {
  const done = fs.existsSync(resultFile) ? JSON.parse(fs.readFileSync(resultFile, 'utf8')) : initial;
  const todo = states.filter((sha) => !done.states[sha]);
  if (todo.length === 0) return done;
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'sous-states-'));
  try {
    const jobFile = path.join(scratch, 'job.json');
    const partial = path.join(scratch, 'partial.json');
    fs.writeFileSync(jobFile, JSON.stringify({ repo, mirror, scratch: path.join(scratch, 'trees'), keep: false, states: todo }));
    spawnSync(process.execPath, [path.join(__dirname, 'cycle-child.js'), jobFile, partial], { stdio: ['ignore', 'inherit', 'inherit'], env: { ...process.env, ...env } });
    if (fs.existsSync(partial)) Object.assign(done.states, JSON.parse(fs.readFileSync(partial, 'utf8')).states);
    fs.writeFileSync(resultFile, JSON.stringify(done));
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
  return done;
}

/**
 * A check prompt's id, from its messages alone (`drift#` and 12 hex digits of their SHA-256): the
 * same prompt asked at two states has one id, so one answer serves both, and replay-backend.js finds
 * an answer by the messages it is asked.
 */
function promptId(messages) {
  return `drift#${createHash('sha256').update(JSON.stringify(messages.map((m) => [m.role, m.content]))).digest('hex').slice(0, 12)}`;
}

/** A seeded generator of numbers in [0, 1) (mulberry32): the same seed, the same sample. */
function seededRandom(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

module.exports = {
  option,
  promptId,
  optionList,
  runStates,
  seededRandom,
  DEFAULT_SET,
  DEFAULT_MIRRORS_MAP,
  loadSet,
  findGitDir,
  mirrorSource,
  resolveMirror,
  hasCommit,
  makeCheckout,
  claimOf,
  driftClaimOn,
  normalize,
  lastSegment,
  valueMatches,
  matchedToken,
  matchedTokens,
  percentile,
  spread,
};
