'use strict';
// The benchmark corpus: a git repository of real package sources under src/<package>/..., with a
// generated history, built once and cached under os.tmpdir()/sous-bench-retrieval-<hash>.
const { execFileSync } = require('node:child_process');
const crypto = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { listPackages, sourceFiles } = require('./packages');
const { planHistory, contentAt, commitDates, unitOf } = require('./history');
const { createRng } = require('./rng');

/** Bump when the generated corpus changes shape, so old caches are not reused. */
const GENERATOR_VERSION = 1;
const SEED = 'sous-bench-retrieval';
const MARKER = 'sous-bench-corpus.json';
const GIT_IDENTITY = ['-c', 'user.name=bench', '-c', 'user.email=bench@example.invalid', '-c', 'commit.gpgsign=false', '-c', 'core.hooksPath=/dev/null'];

function git(cwd, args, env = process.env) {
  return execFileSync('git', [...GIT_IDENTITY, ...args], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 1 << 28 }).toString();
}

/**
 * Corpus files, `n` of them: the packages in `first` (the quality fixtures need them), then the
 * others in a seeded shuffle; when node_modules has fewer files, whole packages again under
 * `src/<package>-r<k>/`, each copy with a marker line so its content (and hash) is its own.
 */
function selectFiles(packages, n, first, rng) {
  const wanted = new Set(first);
  const ordered = [...packages.filter((p) => wanted.has(p.name)), ...rng.shuffle(packages.filter((p) => !wanted.has(p.name)))];
  const files = new Map();
  const out = [];
  for (let replica = 0; out.length < n; replica++) {
    const before = out.length;
    for (const pkg of ordered) {
      if (!files.has(pkg.name)) files.set(pkg.name, sourceFiles(pkg));
      const dir = replica === 0 ? pkg.name : `${pkg.name}-r${replica}`;
      for (const rel of files.get(pkg.name)) {
        if (out.length >= n) return out;
        out.push({ src: path.join(pkg.dir, rel), dest: `src/${dir}/${rel}`, replica });
      }
    }
    if (out.length === before) throw new Error('corpus: no source files found in node_modules');
  }
  return out;
}

/** A replica's own content: the source plus a marker that does not change what the code means. */
function replicaText(text, dest, replica) {
  if (replica === 0) return text;
  const sep = text.endsWith('\n') ? '' : '\n';
  if (dest.endsWith('.md')) return `${text}${sep}<!-- replica ${replica} -->\n`;
  if (dest.endsWith('.json')) return `${text}${sep}${' '.repeat(replica)}\n`;
  return `${text}${sep}// replica ${replica}\n`;
}

/** Cache key: generator, size, the fixture packages and every installed package version. */
function corpusKey(n, first, packages) {
  const h = crypto.createHash('sha256');
  h.update(JSON.stringify({ GENERATOR_VERSION, n, first: [...first].sort(), packages: packages.map((p) => `${p.name}@${p.version}`) }));
  return h.digest('hex').slice(0, 12);
}

/** Writes and commits the corpus into the empty folder `dir`; returns its figures. */
function generate(dir, entries, rng, log) {
  fs.mkdirSync(dir, { recursive: true });
  git(dir, ['init', '-q', '-b', 'main']);
  // Texts are read again when written: holding 100,000 files in memory is not needed.
  const byDest = new Map(entries.map((e) => [e.dest, e]));
  const textOf = (dest) => {
    const e = byDest.get(dest);
    return replicaText(fs.readFileSync(e.src, 'utf8'), e.dest, e.replica);
  };
  let bytes = 0;
  for (const e of entries) {
    const text = textOf(e.dest);
    e.lines = text.split('\n').length;
    bytes += Buffer.byteLength(text);
  }
  const plan = planHistory(entries, rng);
  const dates = commitDates(plan.imports.length, plan.edits.length, rng);
  const byUnit = new Map();
  for (const e of entries) byUnit.set(unitOf(e.dest), [...(byUnit.get(unitOf(e.dest)) ?? []), e.dest]);
  const write = (dest, text) => {
    const abs = path.join(dir, dest);
    fs.mkdirSync(path.dirname(abs), { recursive: true });
    fs.writeFileSync(abs, text);
  };
  const commit = (message, date) => {
    git(dir, ['add', '-A', '--', 'src']);
    git(dir, ['commit', '-q', '--allow-empty', '-m', message], { ...process.env, GIT_AUTHOR_DATE: date, GIT_COMMITTER_DATE: date });
  };

  let c = 0;
  for (const units of plan.imports) {
    for (const unit of units) for (const dest of byUnit.get(unit)) write(dest, contentAt(textOf(dest), plan.edited.get(dest) ?? 0, 0));
    const names = units.map((u) => u.slice(4));
    commit(`Import ${names.slice(0, 3).join(', ')}${names.length > 3 ? ` and ${names.length - 3} more packages` : ''}`, dates[c++]);
    log(`corpus: commit ${c}/${dates.length}`);
  }
  const step = new Map();
  for (const files of plan.edits) {
    for (const dest of files) {
      const s = (step.get(dest) ?? 0) + 1;
      step.set(dest, s);
      write(dest, contentAt(textOf(dest), plan.edited.get(dest), s));
    }
    commit(`Update ${files.map((f) => path.posix.basename(f)).join(', ')} in ${path.posix.dirname(files[0]).slice(4)}`, dates[c++]);
  }
  log(`corpus: ${c} commits`);
  return { files: entries.length, bytes, commits: c };
}

/**
 * The cached corpus for `n` files (generating it when missing) as `{ dir, files, bytes, commits,
 * cached }`. A reused corpus is first put back to its committed state (a crashed run may have left
 * a probe line in a file).
 */
function ensureCorpus({ files: n, firstPackages, log = () => {} }) {
  const packages = listPackages();
  const missing = firstPackages.filter((name) => !packages.some((p) => p.name === name));
  if (missing.length > 0) throw new Error(`corpus: fixture packages not installed: ${missing.join(', ')}`);
  const dir = path.join(os.tmpdir(), `sous-bench-retrieval-${corpusKey(n, firstPackages, packages)}`);
  const marker = path.join(dir, '.git', MARKER);
  if (fs.existsSync(marker)) {
    if (git(dir, ['status', '--porcelain', '--', 'src', 'docs']).trim() !== '') {
      git(dir, ['checkout', '-q', '--', 'src']);
      git(dir, ['clean', '-fdq', '--', 'src', 'docs']);
    }
    return { dir, ...JSON.parse(fs.readFileSync(marker, 'utf8')), cached: true };
  }
  fs.rmSync(dir, { recursive: true, force: true });
  const tmp = `${dir}.tmp-${process.pid}`;
  fs.rmSync(tmp, { recursive: true, force: true });
  const rng = createRng(`${SEED}:${n}`);
  const figures = generate(tmp, selectFiles(packages, n, firstPackages, rng), rng, log);
  fs.writeFileSync(path.join(tmp, '.git', MARKER), JSON.stringify(figures));
  fs.renameSync(tmp, dir);
  return { dir, ...figures, cached: false };
}

module.exports = { ensureCorpus };
