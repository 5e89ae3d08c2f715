#!/usr/bin/env node
// One version source: the root package.json. This script copies its version everywhere else a
// version is written down, and --check lists every place that disagrees (test/release-version.test.ts).
//
//   node scripts/release/set-version.js            copy the root version into every manifest
//   node scripts/release/set-version.js 0.9.1      set the root version first, then copy it
//   node scripts/release/set-version.js --check    exit 1 and list each disagreement
//
// Written: each workspace manifest's "version" and its @sous/* dependency ranges (exact), the
// lockfile's entries for the root and the workspaces, and the Python SDK (pyproject.toml and
// __version__). SOUS_VERSION (shared/protocol/src/version.ts) reads @sous/protocol's manifest at
// run time, so it follows without a write. `npm version <v>` runs this through the "version" script.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { ROOT, INTERNAL_SCOPE, readJson, writeJson, rootManifest, workspaces } = require('./manifests');

const SEMVER = /^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/;
const PY_FILES = [
  { file: 'sdk/python/pyproject.toml', pattern: /^version = "([^"]*)"$/m, line: (v) => `version = "${v}"` },
  { file: 'sdk/python/sous/__init__.py', pattern: /^__version__ = "([^"]*)"$/m, line: (v) => `__version__ = "${v}"` },
];

/** Internal dependency ranges of one manifest-like object that differ from `version`. */
function internalRangeProblems(where, deps, version) {
  return Object.entries(deps ?? {})
    .filter(([name, range]) => name.startsWith(INTERNAL_SCOPE) && range !== version)
    .map(([name, range]) => `${where}: ${name} is "${range}", not "${version}"`);
}

/** Every place under `root` whose version disagrees with the root package.json; empty when all agree. */
function versionDisagreements(root = ROOT) {
  const version = rootManifest(root).version;
  const problems = [];
  for (const { dir, manifest } of workspaces(root)) {
    if (manifest.version !== version) problems.push(`${dir}/package.json: version is "${manifest.version}", not "${version}"`);
    problems.push(...internalRangeProblems(`${dir}/package.json`, manifest.dependencies, version));
    problems.push(...internalRangeProblems(`${dir}/package.json (devDependencies)`, manifest.devDependencies, version));
  }
  const lockFile = path.join(root, 'package-lock.json');
  if (fs.existsSync(lockFile)) {
    const lock = readJson(lockFile);
    if (lock.version !== version) problems.push(`package-lock.json: version is "${lock.version}", not "${version}"`);
    if (lock.packages?.['']?.version !== version) problems.push(`package-lock.json: packages[""].version is "${lock.packages?.['']?.version}", not "${version}"`);
    for (const { dir } of workspaces(root)) {
      const entry = lock.packages?.[dir];
      if (!entry) problems.push(`package-lock.json: no entry for workspace ${dir} (run npm install)`);
      else {
        if (entry.version !== version) problems.push(`package-lock.json: packages["${dir}"].version is "${entry.version}", not "${version}"`);
        problems.push(...internalRangeProblems(`package-lock.json packages["${dir}"]`, entry.dependencies, version));
      }
    }
  }
  for (const { file, pattern } of PY_FILES) {
    const full = path.join(root, file);
    if (!fs.existsSync(full)) continue;
    const found = pattern.exec(fs.readFileSync(full, 'utf8'))?.[1];
    if (found !== version) problems.push(`${file}: version is "${found}", not "${version}"`);
  }
  return problems;
}

/** Sets the root version (when given) and writes it into every other place; returns the version. */
function setVersion(root = ROOT, next) {
  const rootFile = path.join(root, 'package.json');
  const rootPkg = readJson(rootFile);
  if (next !== undefined) {
    if (!SEMVER.test(next)) throw new Error(`"${next}" is not a version like 1.2.3 or 1.2.3-rc.1`);
    rootPkg.version = next;
    writeJson(rootFile, rootPkg);
  }
  const version = rootPkg.version;
  const pinInternal = (deps) => {
    for (const name of Object.keys(deps ?? {})) if (name.startsWith(INTERNAL_SCOPE)) deps[name] = version;
  };
  for (const { file, manifest } of workspaces(root)) {
    manifest.version = version;
    pinInternal(manifest.dependencies);
    pinInternal(manifest.devDependencies);
    writeJson(file, manifest);
  }
  const lockFile = path.join(root, 'package-lock.json');
  if (fs.existsSync(lockFile)) {
    const lock = readJson(lockFile);
    lock.version = version;
    if (lock.packages?.['']) lock.packages[''].version = version;
    for (const { dir } of workspaces(root)) {
      const entry = lock.packages?.[dir];
      if (!entry) continue;
      entry.version = version;
      pinInternal(entry.dependencies);
      pinInternal(entry.devDependencies);
    }
    writeJson(lockFile, lock);
  }
  for (const { file, pattern, line } of PY_FILES) {
    const full = path.join(root, file);
    if (fs.existsSync(full)) fs.writeFileSync(full, fs.readFileSync(full, 'utf8').replace(pattern, line(version)));
  }
  return version;
}

module.exports = { versionDisagreements, setVersion };

if (require.main === module) {
  const arg = process.argv[2];
  if (arg === '--check') {
    const problems = versionDisagreements();
    for (const p of problems) console.error(p);
    if (problems.length > 0) {
      console.error(`${problems.length} version disagreement(s): run node scripts/release/set-version.js`);
      process.exit(1);
    }
    console.log(`every manifest says ${rootManifest().version}`);
  } else {
    try {
      console.log(`version ${setVersion(ROOT, arg)} written to every manifest`);
    } catch (err) {
      console.error(`set-version: ${err.message}`);
      process.exit(2);
    }
  }
}
