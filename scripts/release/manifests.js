// The project's manifests, read in one place by the release scripts: the root package.json (the one
// version source), each workspace's package.json, the lockfile, and the Python SDK's version lines.
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..', '..');
const INTERNAL_SCOPE = '@sous/';

/** Parsed JSON of a file. */
function readJson(file) {
  return JSON.parse(fs.readFileSync(file, 'utf8'));
}

/** Writes JSON the way npm does (two spaces, final newline), so diffs stay minimal. */
function writeJson(file, value) {
  fs.writeFileSync(file, `${JSON.stringify(value, null, 2)}\n`);
}

/** The root manifest of the checkout at `root`. */
function rootManifest(root = ROOT) {
  return readJson(path.join(root, 'package.json'));
}

/** Every workspace: its folder (relative to root), manifest file and parsed manifest, in root order. */
function workspaces(root = ROOT) {
  return rootManifest(root).workspaces.map((dir) => {
    const file = path.join(root, dir, 'package.json');
    return { dir, file, manifest: readJson(file) };
  });
}

/** `^1.2.3` → [1, 2, 3]; anything else is refused (the union below compares caret ranges only). */
function caretFloor(range) {
  const m = /^\^(\d+)\.(\d+)\.(\d+)$/.exec(range);
  return m ? m.slice(1).map(Number) : null;
}

/**
 * The third-party production dependencies of all workspaces together, as the published package
 * declares them. Two workspaces asking for the same package with different caret ranges of one
 * major get the higher floor; ranges that cannot be merged that way stop the release.
 */
function thirdPartyDependencies(root = ROOT) {
  const merged = {};
  for (const { dir, manifest } of workspaces(root)) {
    for (const [name, range] of Object.entries(manifest.dependencies ?? {})) {
      if (name.startsWith(INTERNAL_SCOPE)) continue;
      const had = merged[name];
      if (had === undefined || had === range) {
        merged[name] = range;
        continue;
      }
      const a = caretFloor(had);
      const b = caretFloor(range);
      if (!a || !b || a[0] !== b[0]) throw new Error(`${dir}: ${name}@${range} cannot be merged with ${name}@${had}`);
      const higher = b[1] > a[1] || (b[1] === a[1] && b[2] > a[2]);
      merged[name] = higher ? range : had;
    }
  }
  return Object.fromEntries(Object.entries(merged).sort(([x], [y]) => x.localeCompare(y)));
}

module.exports = { ROOT, INTERNAL_SCOPE, readJson, writeJson, rootManifest, workspaces, thirdPartyDependencies };
