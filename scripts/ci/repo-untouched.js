#!/usr/bin/env node
/**
 * Proves a repository was left exactly as it was. A snapshot lists every path of the work tree and
 * of .git (Sous's own .sous/ aside) with its type, mode, size, mtime, ctime and, for files, a sha256
 * of the content. Directories count too: their mtime moves when an entry is created or removed, so
 * even a lock file created and renamed away in between shows up. Take the first snapshot after
 * .sous/ exists (`sous init`): creating it changes the root directory's mtime, legitimately.
 *
 *   node scripts/ci/repo-untouched.js snapshot <repo> > before.json
 *   ... let Sous run ...
 *   node scripts/ci/repo-untouched.js check <repo> before.json   # exit 1 listing each difference
 */
'use strict';
const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');

/** Top-level entries that are not the repository's: Sous's state. */
const DEFAULT_EXCLUDE = ['.sous'];

/**
 * The state of every path under `root` (itself as `.`), keyed by root-relative POSIX path.
 * @param {string} root
 * @param {{ exclude?: string[] }} [options] top-level names left out (default `.sous`)
 * @returns {{ root: string, entries: Record<string, { type: string, mode: number, size: number, mtimeMs: number, ctimeMs: number, sha256?: string, target?: string }> }}
 */
function snapshot(root, options = {}) {
  const exclude = new Set(options.exclude ?? DEFAULT_EXCLUDE);
  const entries = {};
  const visit = (abs, rel) => {
    let st;
    try {
      st = fs.lstatSync(abs);
    } catch (err) {
      if (err.code === 'ENOENT') return; // gone between the listing and the stat: not there
      throw err;
    }
    const entry = { type: st.isDirectory() ? 'dir' : st.isSymbolicLink() ? 'link' : st.isFile() ? 'file' : 'other', mode: st.mode, size: st.isDirectory() ? 0 : st.size, mtimeMs: st.mtimeMs, ctimeMs: st.ctimeMs };
    if (entry.type === 'file') entry.sha256 = crypto.createHash('sha256').update(fs.readFileSync(abs)).digest('hex');
    if (entry.type === 'link') entry.target = fs.readlinkSync(abs);
    entries[rel] = entry;
    if (entry.type !== 'dir') return;
    for (const name of fs.readdirSync(abs).sort()) {
      if (rel === '.' && exclude.has(name)) continue;
      visit(path.join(abs, name), rel === '.' ? name : `${rel}/${name}`);
    }
  };
  visit(path.resolve(root), '.');
  return { root: path.resolve(root), entries };
}

/**
 * Every difference between two snapshots, one line each (empty when the repository is untouched).
 * @param {{ entries: Record<string, object> }} before
 * @param {{ entries: Record<string, object> }} after
 * @returns {string[]}
 */
function differences(before, after) {
  const out = [];
  for (const [rel, a] of Object.entries(before.entries)) {
    const b = after.entries[rel];
    if (b === undefined) {
      out.push(`removed ${rel}`);
      continue;
    }
    const changed = Object.keys({ ...a, ...b }).filter((k) => a[k] !== b[k]);
    if (changed.length > 0) out.push(`changed ${rel}: ${changed.map((k) => `${k} ${fmt(k, a[k])} -> ${fmt(k, b[k])}`).join(', ')}`);
  }
  for (const rel of Object.keys(after.entries)) if (!(rel in before.entries)) out.push(`added ${rel}`);
  return out;
}

function fmt(key, value) {
  if (value === undefined) return '-';
  if (key === 'mode') return value.toString(8);
  if (key === 'sha256') return value.slice(0, 12);
  return String(value);
}

function main(argv) {
  const [command, repo, file] = argv;
  if (command === 'snapshot' && repo) {
    process.stdout.write(`${JSON.stringify(snapshot(repo))}\n`);
    return 0;
  }
  if (command === 'check' && repo && file) {
    const diffs = differences(JSON.parse(fs.readFileSync(file, 'utf8')), snapshot(repo));
    for (const line of diffs) process.stdout.write(`${line}\n`);
    if (diffs.length === 0) process.stdout.write(`${path.resolve(repo)} untouched\n`);
    return diffs.length === 0 ? 0 : 1;
  }
  process.stderr.write('usage: repo-untouched.js snapshot <repo> > before.json | repo-untouched.js check <repo> before.json\n');
  return 2;
}

module.exports = { snapshot, differences };

if (require.main === module) process.exitCode = main(process.argv.slice(2));
