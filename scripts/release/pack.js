#!/usr/bin/env node
// Packs the built checkout into the one installable npm package, `sous-<version>.tgz`.
//
//   node scripts/release/pack.js [--out <dir>]      (after `npm run build`; prints the tarball path)
//
// The 19 workspaces are bundled, not published one by one: the package stages a copy of each built
// workspace as node_modules/@sous/<name> and lists them in bundleDependencies, so `npm install -g
// sous` unpacks them exactly as built and installs only the third-party dependencies, which the
// staged manifest declares (the union of the workspaces' ranges). Staging, instead of packing the
// checkout's root, keeps npm from bundling the whole third-party tree too (npm bundles every
// dependency of a bundled package it finds installed) and leaves out what does not run: sources,
// tests, type declarations and source maps. The code's own paths keep working unchanged
// (require.resolve('@sous/daemon/package.json'), __dirname-relative workers, migrations, the
// cockpit's static files), which a bundler such as esbuild would break. docs/release.md says more.
'use strict';
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { ROOT, INTERNAL_SCOPE, writeJson, rootManifest, workspaces, thirdPartyDependencies } = require('./manifests');
const { versionDisagreements } = require('./set-version');
const { NOTICES_FILE, renderNotices } = require('./notices');

/** Files at the package root besides package.json (README.md and LICENSE npm would add anyway). */
const TOP_FILES = ['README.md', 'LICENSE', 'THIRD_PARTY_NOTICES.md', 'CHANGELOG.md'];
/** Folders of a workspace that run, besides dist/: store migrations, the cockpit's static shell, the tree-sitter grammars. */
const RUNTIME_DIRS = ['migrations', 'public', 'grammars'];
/** Files that do not run: type declarations, source maps, build info, drizzle-kit's schema snapshots. */
const NOT_SHIPPED = /(\.d\.ts|\.map|\.tsbuildinfo|_snapshot\.json)$/;

/** Copies `from` into `to`, keeping only files `keep(relativePath)` accepts. */
function copyTree(from, to, keep = () => true, rel = '') {
  for (const entry of fs.readdirSync(path.join(from, rel), { withFileTypes: true })) {
    const sub = path.join(rel, entry.name);
    if (entry.isDirectory()) copyTree(from, to, keep, sub);
    else if (entry.isFile() && keep(sub)) {
      fs.mkdirSync(path.dirname(path.join(to, sub)), { recursive: true });
      fs.copyFileSync(path.join(from, sub), path.join(to, sub));
    }
  }
}

/**
 * The manifest a bundled workspace ships with: what Node and npm read, nothing for building. Its
 * third-party dependencies move to the package's own manifest: npm counts a dependency that only a
 * bundled package asks for as part of the bundle, links no bins for it and then fails its install
 * script (msgpackr-extract's), so only the @sous/* edges stay here.
 */
function shippedWorkspaceManifest(manifest) {
  const { name, version, description, license, main, bin } = manifest;
  const internal = Object.entries(manifest.dependencies ?? {}).filter(([dep]) => dep.startsWith(INTERNAL_SCOPE));
  return { name, version, description, license, private: true, main, ...(bin ? { bin } : {}), dependencies: Object.fromEntries(internal) };
}

/** The published package's manifest: one name, one bin, the workspaces bundled. */
function shippedRootManifest(root, bundled) {
  const pkg = rootManifest(root);
  return {
    name: pkg.name,
    version: pkg.version,
    description: pkg.description,
    license: pkg.license,
    keywords: ['mcp', 'ai', 'coding-agent', 'context', 'developer-tools'],
    engines: pkg.engines,
    bin: { sous: 'node_modules/@sous/cli/dist/main.js' },
    files: TOP_FILES,
    dependencies: { ...Object.fromEntries(bundled.map((w) => [w.manifest.name, w.manifest.version])), ...thirdPartyDependencies(root) },
    bundleDependencies: bundled.map((w) => w.manifest.name),
  };
}

/**
 * Stages the package under `outDir/package` and runs `npm pack` there. Returns the tarball's path and
 * npm's report of it (size, integrity, file list).
 */
function packRelease({ root = ROOT, outDir }) {
  const problems = versionDisagreements(root);
  if (problems.length > 0) throw new Error(`versions disagree (node scripts/release/set-version.js):\n${problems.join('\n')}`);
  const bundled = workspaces(root);
  for (const w of bundled) {
    if (!fs.existsSync(path.join(root, w.dir, 'dist', 'index.js'))) throw new Error(`${w.dir}/dist is missing: run npm run build first`);
  }
  for (const file of TOP_FILES) {
    if (!fs.existsSync(path.join(root, file))) throw new Error(`${file} is missing at the project root`);
  }

  const stage = path.join(outDir, 'package');
  fs.rmSync(stage, { recursive: true, force: true });
  fs.mkdirSync(stage, { recursive: true });
  writeJson(path.join(stage, 'package.json'), shippedRootManifest(root, bundled));
  for (const file of TOP_FILES) fs.copyFileSync(path.join(root, file), path.join(stage, file));
  // Notices are rendered afresh from the tree being shipped, whatever the committed copy says.
  fs.writeFileSync(path.join(stage, NOTICES_FILE), renderNotices(root));
  for (const w of bundled) {
    const from = path.join(root, w.dir);
    const to = path.join(stage, 'node_modules', w.manifest.name);
    copyTree(path.join(from, 'dist'), path.join(to, 'dist'), (rel) => !NOT_SHIPPED.test(rel));
    for (const dir of RUNTIME_DIRS) {
      if (fs.existsSync(path.join(from, dir))) copyTree(path.join(from, dir), path.join(to, dir), (rel) => !NOT_SHIPPED.test(rel));
    }
    fs.copyFileSync(path.join(root, 'LICENSE'), path.join(to, 'LICENSE'));
    writeJson(path.join(to, 'package.json'), shippedWorkspaceManifest(w.manifest));
  }

  const out = execFileSync('npm', ['pack', '--json', '--ignore-scripts', '--loglevel=error', '--pack-destination', outDir], {
    cwd: stage,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const report = JSON.parse(out)[0];
  return { tarball: path.join(outDir, report.filename), report, stage };
}

module.exports = { packRelease, shippedRootManifest };

if (require.main === module) {
  const at = process.argv.indexOf('--out');
  const outDir = path.resolve(at > 0 ? process.argv[at + 1] : fs.mkdtempSync(path.join(os.tmpdir(), 'sous-pack-')));
  fs.mkdirSync(outDir, { recursive: true });
  try {
    const { tarball, report } = packRelease({ outDir });
    console.log(`${tarball} (${report.entryCount} files, ${(report.size / 1024).toFixed(0)} KiB packed, ${(report.unpackedSize / 1024).toFixed(0)} KiB unpacked)`);
  } catch (err) {
    console.error(`pack: ${err.message}`);
    process.exit(1);
  }
}
