'use strict';
// The trees the quality benchmark asks: a working clone of a repository mirror, checked out at each
// fix's parent, indexed with the whole tree in scope. Shared by repo-child.js and signals-child.js.
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const git = (cwd, args) => execFileSync('git', args, { cwd, encoding: 'utf8', maxBuffer: 1 << 30, stdio: ['ignore', 'pipe', 'pipe'] });

/** A working clone of the mirror (objects shared, nothing copied), reused across runs. */
function workClone(mirror, work) {
  if (!fs.existsSync(path.join(work, '.git'))) {
    fs.rmSync(work, { recursive: true, force: true });
    fs.mkdirSync(path.dirname(work), { recursive: true });
    execFileSync('git', ['clone', '--quiet', '--shared', '--no-checkout', mirror, work], { stdio: ['ignore', 'ignore', 'pipe'] });
  }
  return work;
}

function checkout(work, commit) {
  git(work, ['checkout', '--quiet', '--force', '--detach', commit]);
  git(work, ['clean', '-ffdxq']);
}

/** The whole tree in scope (the issue's setting): defaults with `privacy.allowed_paths = ["**\/*"]`. */
function wholeTreePolicy(root) {
  const { scopePolicyFromConfig } = require(path.join(root, 'shared', 'retrieval', 'dist'));
  const { defaultConfig } = require(path.join(root, 'shared', 'config', 'dist'));
  const config = defaultConfig();
  config.privacy.allowed_paths = ['**/*'];
  return scopePolicyFromConfig(config);
}

/**
 * Brings the plain BM25 baseline to the index's code files (tests included; docs, changelogs and
 * data left out, as the usual file-level BM25 baselines do: over the whole tree, docs and changelogs
 * win nearly every report and the baseline would be a straw man). Every path whose content changed
 * is re-read.
 */
function syncBaseline(bm25, shas, index, work, keep) {
  const { isCodePath } = require(path.join(__dirname, '..', '..', '..', 'shared', 'retrieval', 'dist'));
  const now = new Map(index.paths().filter(keep ?? ((p) => isCodePath(p))).map((p) => [p, index.file(p).sha256]));
  for (const p of [...shas.keys()]) if (!now.has(p)) { bm25.remove(p); shas.delete(p); }
  for (const [p, sha] of now) {
    if (shas.get(p) === sha) continue;
    bm25.set(p, fs.readFileSync(path.join(work, p), 'utf8'));
    shas.set(p, sha);
  }
}

module.exports = { workClone, checkout, wholeTreePolicy, syncBaseline };
