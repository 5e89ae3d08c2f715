'use strict';
// One package of the corpus as a repository of its own, for the "own repository" quality form: a
// bug report is filed against one project's repository, and the public baselines are measured that
// way. The package's history is kept: every corpus commit that touched `src/<package>/` becomes one
// commit (same message, author, dates) whose tree is that package's folder at the commit, under
// `src/` (so the default scope `src/**` covers it, and `src/<package>/X` maps to `src/X`).
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const { NODE_MODULES, sourceFiles } = require('./packages');

const GIT_CONFIG = ['-c', 'commit.gpgsign=false', '-c', 'core.hooksPath=/dev/null'];
const SEP = '\x1f';

function git(cwd, args, { input, env } = {}) {
  return execFileSync('git', [...GIT_CONFIG, ...args], { cwd, input, env: { ...process.env, ...env }, stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'], maxBuffer: 1 << 28 })
    .toString()
    .trim();
}

/** The corpus folder of `pkg` and the way back from a package repository path to a corpus path. */
function packagePaths(pkg) {
  const prefix = `src/${pkg}/`;
  return { prefix, toCorpus: (p) => (p.startsWith('src/') ? prefix + p.slice(4) : p) };
}

/**
 * Creates the repository of `pkg` in the empty or missing folder `dir`, from the corpus repository
 * `corpusDir` (read only: its objects are borrowed through `.git/objects/info/alternates`, as
 * `git clone --shared` does, so nothing is copied and nothing is written there). Checks that the
 * new HEAD holds exactly the corpus's `src/<pkg>/` tree. Returns `{ commits }`.
 */
function makePackageRepository(corpusDir, pkg, dir) {
  const { prefix } = packagePaths(pkg);
  fs.mkdirSync(dir, { recursive: true });
  git(dir, ['init', '-q', '-b', 'main']);
  fs.writeFileSync(path.join(dir, '.git', 'objects', 'info', 'alternates'), `${path.join(corpusDir, '.git', 'objects')}\n`);

  const format = ['%H', '%an', '%ae', '%aI', '%cn', '%ce', '%cI', '%s'].join('%x1f');
  const log = git(corpusDir, ['log', '--reverse', `--format=${format}`, 'HEAD', '--', prefix.slice(0, -1)]);
  if (log === '') throw new Error(`package-repo: no commit touches ${prefix} in ${corpusDir}`);
  const commits = log.split('\n').map((line) => {
    const [sha, an, ae, ad, cn, ce, cd, subject] = line.split(SEP);
    return { sha, subject, env: { GIT_AUTHOR_NAME: an, GIT_AUTHOR_EMAIL: ae, GIT_AUTHOR_DATE: ad, GIT_COMMITTER_NAME: cn, GIT_COMMITTER_EMAIL: ce, GIT_COMMITTER_DATE: cd } };
  });
  // The package's folder at every such commit, then each wrapped in a root tree holding only `src/`.
  const folders = git(dir, ['rev-parse', ...commits.map((c) => `${c.sha}:${prefix.slice(0, -1)}`)]).split('\n');
  const roots = git(dir, ['mktree', '--batch'], { input: folders.map((t) => `040000 tree ${t}\tsrc\n`).join('\n') }).split('\n');

  let parent = null;
  commits.forEach((c, i) => {
    parent = git(dir, ['commit-tree', roots[i], ...(parent ? ['-p', parent] : []), '-m', c.subject], { env: c.env });
  });
  git(dir, ['update-ref', 'refs/heads/main', parent]);
  git(dir, ['reset', '-q', '--hard']);

  const expected = git(corpusDir, ['rev-parse', `HEAD:${prefix.slice(0, -1)}`]);
  const actual = git(dir, ['rev-parse', 'HEAD:src']);
  if (actual !== expected) throw new Error(`package-repo: ${pkg} at HEAD is ${actual}, the corpus holds ${expected}`);
  return { commits: commits.length };
}

/**
 * Creates a repository of the installed package `pkg` as it ships (node_modules/<pkg>), in the
 * empty or missing folder `dir`: its text source files (the corpus's selection: code, JSON and
 * Markdown, no release notes, nothing over 1 MiB, no nested node_modules) at their own paths, in
 * one commit (the package has no history to keep). Paths stay package-relative (`src/azure.ts`), so
 * the default scope covers what the project's own repository keeps under `src/` and `docs/`.
 * node_modules is only read. Returns `{ commits, files }`.
 */
function makeInstalledPackageRepository(pkg, dir) {
  const from = path.join(NODE_MODULES, pkg);
  const files = sourceFiles({ name: pkg, dir: from });
  for (const rel of files) {
    fs.mkdirSync(path.join(dir, path.dirname(rel)), { recursive: true });
    fs.copyFileSync(path.join(from, rel), path.join(dir, rel));
  }
  const when = '2024-09-02T12:00:00Z';
  const env = { GIT_AUTHOR_NAME: 'bench', GIT_AUTHOR_EMAIL: 'bench@example.invalid', GIT_AUTHOR_DATE: when, GIT_COMMITTER_NAME: 'bench', GIT_COMMITTER_EMAIL: 'bench@example.invalid', GIT_COMMITTER_DATE: when };
  git(dir, ['init', '-q', '-b', 'main']);
  git(dir, ['add', '-A']);
  git(dir, ['commit', '-q', '-m', `import ${pkg}`], { env });
  return { commits: 1, files: files.length };
}

module.exports = { makePackageRepository, makeInstalledPackageRepository, packagePaths };
