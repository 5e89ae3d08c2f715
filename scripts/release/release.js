#!/usr/bin/env node
// Cuts a release from the checkout: builds, packs the npm tarball, installs it into a scratch prefix
// (the smoke test, and the tree the SBOM describes), writes the CycloneDX SBOM, the SLSA provenance
// statement and SHA256SUMS, and signs each with ssh-keygen. docs/release.md is the manual.
//
//   SOUS_RELEASE_SIGNING_KEY=~/.ssh/sous_release npm run release -- [--out <dir>]
//
// Options: --out <dir> (default release-artifacts/v<version>), --no-build (dist/ is already built),
// --allow-dirty (uncommitted changes; the provenance records it), --prefer-offline (resolve the
// dependencies from npm's cache where it can), --keep-install <prefix> (install there and keep it).
// Environment: SOUS_RELEASE_SIGNING_KEY (required: a private key file, or a public key whose
// private half an ssh-agent holds), SOUS_RELEASE_SIGNER (the principal, default release@sous),
// SOUS_RELEASE_BUILDER_ID (who built it, default urn:sous:builder:local).
'use strict';
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { ROOT, rootManifest } = require('./manifests');
const { NOTICES_FILE, noticeProblems, renderNotices } = require('./notices');
const { packRelease } = require('./pack');
const { provenanceStatement, sha256File } = require('./provenance');
const { DEFAULT_SIGNER, allowedSignersLine, signFile, verifyFile } = require('./sign');

const SBOM_FILE = 'sbom.cdx.json';
const PROVENANCE_FILE = 'provenance.intoto.json';
const SUMS_FILE = 'SHA256SUMS';
const ALLOWED_SIGNERS_FILE = 'allowed_signers';

function sh(cmd, args, options = {}) {
  return execFileSync(cmd, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 64 << 20, ...options });
}

/** The commit being released, its remote (if any) and whether the working tree is clean. */
function gitState(root) {
  const git = (...args) => sh('git', args, { cwd: root }).trim();
  let remote = null;
  try {
    remote = git('config', '--get', 'remote.origin.url') || null;
  } catch {
    remote = null; // no origin: the provenance names the commit only
  }
  return { commit: git('rev-parse', 'HEAD'), remote, clean: git('status', '--porcelain') === '' };
}

/** Installs the tarball into `prefix` like a user's `npm install -g`; returns the installed package's folder. */
function installTarball(tarball, prefix, preferOffline) {
  const args = ['install', '-g', '--prefix', prefix, tarball, '--no-audit', '--no-fund', '--loglevel=error'];
  if (preferOffline) args.push('--prefer-offline');
  sh('npm', args, { cwd: os.tmpdir() });
  return path.join(prefix, 'lib', 'node_modules', 'sous');
}

/**
 * Runs the whole release into `outDir` and returns the artefacts' paths. Throws, saying what to do,
 * when the tree is dirty (unless allowed), the notices are stale, the key is missing, or the
 * installed package does not report the version being released.
 */
function release({ root = ROOT, outDir, build = true, allowDirty = false, preferOffline = false, keepInstall = null, env = process.env, command = 'node scripts/release/release.js' }) {
  const startedOn = new Date().toISOString();
  const { version } = rootManifest(root);
  const keyFile = env.SOUS_RELEASE_SIGNING_KEY;
  if (!keyFile || !fs.existsSync(keyFile)) throw new Error('SOUS_RELEASE_SIGNING_KEY must name the signing key file (docs/release.md, "Signing key")');
  const signer = env.SOUS_RELEASE_SIGNER || DEFAULT_SIGNER;
  const git = gitState(root);
  if (!git.clean && !allowDirty) throw new Error('the working tree has uncommitted changes: commit them, or pass --allow-dirty for a trial run');
  const stale = noticeProblems(root);
  if (stale.length > 0) throw new Error(`${NOTICES_FILE} is out of date:\n${stale.join('\n')}`);
  if (fs.readFileSync(path.join(root, NOTICES_FILE), 'utf8') !== renderNotices(root)) throw new Error(`${NOTICES_FILE} differs from the tree: run npm run notices and commit it`);

  if (build) sh('npm', ['run', 'build'], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
  fs.mkdirSync(outDir, { recursive: true });
  const { tarball, stage } = packRelease({ root, outDir });
  fs.rmSync(stage, { recursive: true, force: true });

  const prefix = keepInstall ?? fs.mkdtempSync(path.join(os.tmpdir(), 'sous-release-install-'));
  try {
    const installed = installTarball(tarball, prefix, preferOffline);
    const reported = sh(path.join(prefix, 'bin', 'sous'), ['--version']).trim();
    if (reported !== version) throw new Error(`the installed sous says ${reported}, not ${version}`);
    // The SBOM describes the tree the tarball installs into: the bundled @sous/* and every
    // third-party package, with no dev tree to confuse `--omit dev` (npm/cli#7909).
    const sbom = sh('npm', ['sbom', '--sbom-format', 'cyclonedx', '--sbom-type', 'application', '--omit', 'dev'], { cwd: installed });
    fs.writeFileSync(path.join(outDir, SBOM_FILE), sbom);
  } finally {
    if (!keepInstall) fs.rmSync(prefix, { recursive: true, force: true });
  }

  const sbomFile = path.join(outDir, SBOM_FILE);
  const statement = provenanceStatement({
    subjects: [tarball, sbomFile],
    version,
    git,
    lockFile: path.join(root, 'package-lock.json'),
    npmVersion: sh('npm', ['--version']).trim(),
    command,
    builderId: env.SOUS_RELEASE_BUILDER_ID || 'urn:sous:builder:local',
    startedOn,
    finishedOn: new Date().toISOString(),
  });
  const provenanceFile = path.join(outDir, PROVENANCE_FILE);
  fs.writeFileSync(provenanceFile, `${JSON.stringify(statement, null, 2)}\n`);

  const sumsFile = path.join(outDir, SUMS_FILE);
  const artefacts = [tarball, sbomFile, provenanceFile];
  fs.writeFileSync(sumsFile, artefacts.map((f) => `${sha256File(f)}  ${path.basename(f)}\n`).join(''));

  const allowedSigners = path.join(outDir, ALLOWED_SIGNERS_FILE);
  fs.writeFileSync(allowedSigners, `${allowedSignersLine(keyFile, signer)}\n`);
  const signatures = [...artefacts, sumsFile].map((f) => signFile(f, keyFile));
  for (const f of [...artefacts, sumsFile]) verifyFile(f, allowedSigners, signer);
  return { version, tarball, sbom: sbomFile, provenance: provenanceFile, sums: sumsFile, signatures, allowedSigners, git };
}

module.exports = { release, SBOM_FILE, PROVENANCE_FILE, SUMS_FILE, ALLOWED_SIGNERS_FILE };

if (require.main === module) {
  const argv = process.argv.slice(2);
  const valueOf = (flag) => {
    const at = argv.indexOf(flag);
    return at >= 0 ? argv[at + 1] : undefined;
  };
  const known = new Set(['--out', '--no-build', '--allow-dirty', '--prefer-offline', '--keep-install']);
  const unknown = argv.filter((a, i) => a.startsWith('--') && !known.has(a) && !['--out', '--keep-install'].includes(argv[i - 1]));
  if (unknown.length > 0) {
    console.error(`release: unknown option ${unknown[0]} (see the header of scripts/release/release.js)`);
    process.exit(2);
  }
  const version = rootManifest().version;
  const outDir = path.resolve(valueOf('--out') ?? path.join(ROOT, 'release-artifacts', `v${version}`));
  const keep = valueOf('--keep-install');
  try {
    const r = release({ outDir, build: !argv.includes('--no-build'), allowDirty: argv.includes('--allow-dirty'), preferOffline: argv.includes('--prefer-offline'), keepInstall: keep ? path.resolve(keep) : null, command: ['node', 'scripts/release/release.js', ...argv].join(' ') });
    console.log(`sous ${r.version} from ${r.git.commit}${r.git.clean ? '' : ' (uncommitted changes)'}:`);
    for (const f of [r.tarball, r.sbom, r.provenance, r.sums, ...r.signatures, r.allowedSigners]) console.log(`  ${path.relative(process.cwd(), f)}`);
    console.log('verify: docs/release.md, "Verifying a release"');
  } catch (err) {
    console.error(`release: ${err.stderr ? `${err.message}\n${err.stderr}` : err.message}`);
    process.exit(1);
  }
}
