'use strict';
// The raw material of the benchmark corpus: the text source files of the packages installed in
// /work/main/node_modules (real code, available offline). Only top-level packages: nested
// node_modules are other versions of the same packages and would make the expected answers of the
// quality fixtures ambiguous.
const fs = require('node:fs');
const path = require('node:path');

const NODE_MODULES = path.join(__dirname, '..', '..', '..', 'node_modules');
const EXTENSIONS = new Set(['.js', '.ts', '.mjs', '.cjs', '.json', '.md']);
/** The index refuses larger files (DEFAULT_MAX_FILE_BYTES); every corpus file should be indexable. */
const MAX_FILE_BYTES = 1024 * 1024;
/**
 * Release notes are left out: the quality fixtures are lines of these files, and a corpus holding
 * them would let any ranker find the changelog instead of the code.
 */
const RELEASE_NOTES = /^(changelog|history|changes|releases?)(\.[a-z]+)?$/i;

/** Installed top-level packages as `{ name, version, dir }`, sorted by name; workspace links skipped. */
function listPackages(root = NODE_MODULES) {
  const out = [];
  const add = (name, dir) => {
    if (fs.lstatSync(dir).isSymbolicLink()) return; // @sous/* are links to this repository
    let version = '0.0.0';
    try {
      version = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')).version || version;
    } catch {
      return; // not a package
    }
    out.push({ name, version, dir });
  };
  for (const entry of fs.readdirSync(root)) {
    if (entry.startsWith('.')) continue;
    const dir = path.join(root, entry);
    if (entry.startsWith('@')) {
      for (const sub of fs.readdirSync(dir)) add(`${entry}/${sub}`, path.join(dir, sub));
    } else add(entry, dir);
  }
  return out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** Package-relative POSIX paths of a package's text source files, sorted. */
function sourceFiles(pkg) {
  const out = [];
  const walk = (rel) => {
    const abs = path.join(pkg.dir, rel);
    for (const entry of fs.readdirSync(abs, { withFileTypes: true })) {
      const childRel = rel === '' ? entry.name : `${rel}/${entry.name}`;
      if (entry.isDirectory()) {
        if (entry.name !== 'node_modules' && entry.name !== '.git') walk(childRel);
        continue;
      }
      if (!entry.isFile() || !EXTENSIONS.has(path.extname(entry.name)) || RELEASE_NOTES.test(entry.name)) continue;
      if (fs.statSync(path.join(abs, entry.name)).size > MAX_FILE_BYTES) continue;
      out.push(childRel);
    }
  };
  walk('');
  return out.sort();
}

module.exports = { NODE_MODULES, listPackages, sourceFiles, RELEASE_NOTES, EXTENSIONS };
