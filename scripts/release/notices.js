#!/usr/bin/env node
// Writes THIRD_PARTY_NOTICES.md from the production dependency tree: every package the lockfile
// does not mark dev-only (what `npm install -g sous` installs and what the container images keep
// after `npm prune --omit=dev`), with its version, licence and the licence files it ships.
//
//   node scripts/release/notices.js            rewrite THIRD_PARTY_NOTICES.md (release.js runs it)
//   node scripts/release/notices.js --check    exit 1 when a package is missing or its licence is not allowed
//
// test/release-notices.test.ts runs the check: a new production dependency fails CI until the
// notices are regenerated, and a licence outside ALLOWED_LICENSES (no GPL, AGPL, LGPL, SSPL …)
// fails it for good.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { ROOT, INTERNAL_SCOPE, readJson, rootManifest } = require('./manifests');

const NOTICES_FILE = 'THIRD_PARTY_NOTICES.md';
/** Permissive licences Sous may ship (SPDX ids). Anything else stops the release. */
const ALLOWED_LICENSES = new Set(['MIT', 'MIT-0', 'ISC', 'BSD-2-Clause', 'BSD-3-Clause', 'Apache-2.0', '0BSD', 'Unlicense', 'CC0-1.0', 'BlueOak-1.0.0', 'Zlib', 'Python-2.0']);
const LICENSE_FILE = /^(licen[cs]e|copying|notice)([.-][^/]*)?$/i;
/** The Apache 2.0 text as apache.org publishes it (md5 3b83ef96…, byte-identical to LICENSE). */
const APACHE_TEXT = () => fs.readFileSync(path.join(ROOT, 'LICENSE'), 'utf8');

/** Whether an SPDX expression ("MIT", "(MIT OR Apache-2.0)", "A AND B") is satisfied by the allow-list. */
function licenseAllowed(expression) {
  if (typeof expression !== 'string' || expression.trim() === '') return false;
  const tokens = expression.replace(/[()]/g, (p) => ` ${p} `).trim().split(/\s+/);
  let at = 0;
  const term = () => {
    const token = tokens[at++];
    if (token === '(') {
      const value = or();
      at++; // ')'
      return value;
    }
    return ALLOWED_LICENSES.has(token);
  };
  const and = () => {
    let value = term();
    while (tokens[at] === 'AND') {
      at++;
      value = term() && value;
    }
    return value;
  };
  const or = () => {
    let value = and();
    while (tokens[at] === 'OR') {
      at++;
      value = and() || value;
    }
    return value;
  };
  const result = or();
  return at === tokens.length && result;
}

/** The lockfile's licence field, which npm copies from the package's manifest ("MIT", or an old {type}). */
function licenseOf(entry) {
  if (typeof entry.license === 'string') return entry.license;
  if (entry.license && typeof entry.license.type === 'string') return entry.license.type;
  return '';
}

/**
 * Third-party production packages of the checkout at `root`, one per name@version, sorted: name,
 * version, licence, the folder it is installed in (null when not installed here), and whether it is
 * a build for some platforms only (npm installs it only on its os/cpu).
 */
function productionPackages(root = ROOT) {
  const lock = readJson(path.join(root, 'package-lock.json'));
  const seen = new Map();
  for (const [location, entry] of Object.entries(lock.packages ?? {})) {
    if (!location.includes('node_modules/') || entry.dev || entry.link) continue;
    const name = entry.name ?? location.slice(location.lastIndexOf('node_modules/') + 'node_modules/'.length);
    if (name.startsWith(INTERNAL_SCOPE)) continue;
    const key = `${name}@${entry.version}`;
    if (seen.has(key)) continue;
    const dir = path.join(root, location);
    const platform = Boolean(entry.optional && (entry.os || entry.cpu));
    seen.set(key, { name, version: entry.version, license: licenseOf(entry), dir: fs.existsSync(path.join(dir, 'package.json')) ? dir : null, platform });
  }
  return [...seen.values()].sort((a, b) => a.name.localeCompare(b.name) || a.version.localeCompare(b.version));
}

/** The licence and notice files a package ships, as [file name, text]. */
function licenseFiles(dir) {
  return fs
    .readdirSync(dir)
    .filter((f) => LICENSE_FILE.test(f) && fs.statSync(path.join(dir, f)).isFile())
    .sort()
    .map((f) => [f, fs.readFileSync(path.join(dir, f), 'utf8').replace(/\r\n/g, '\n').trim()]);
}

/** Who holds the copyright when a package ships no licence file: its manifest's author. */
function authorOf(dir) {
  const { author } = readJson(path.join(dir, 'package.json'));
  if (typeof author === 'string') return author;
  return author?.name ?? 'its authors (no author in package.json)';
}

/** A fence longer than any backtick run in the text, so licence texts cannot end the block early. */
function fenced(text) {
  const longest = Math.max(2, ...(text.match(/`+/g) ?? []).map((r) => r.length));
  const fence = '`'.repeat(longest + 1);
  return `${fence}text\n${text}\n${fence}`;
}

function packageSection(pkg, apacheText) {
  const lines = [`## ${pkg.name}@${pkg.version}`, '', `License: ${pkg.license || 'UNKNOWN'}`, `Source: https://www.npmjs.com/package/${pkg.name}/v/${pkg.version}`, ''];
  // Platform builds are described the same way whichever machine renders this file, so the text
  // does not depend on where it was generated.
  if (pkg.platform) {
    lines.push('An optional build for some platforms only: npm installs it on those, and it carries its licence itself.', '');
    return lines.join('\n');
  }
  if (!pkg.dir) throw new Error(`${pkg.name}@${pkg.version} is not installed: run npm ci first`);
  const files = licenseFiles(pkg.dir);
  if (files.length === 0) lines.push(`The package ships no licence file; its package.json declares ${pkg.license || 'no licence'}, copyright ${authorOf(pkg.dir)}.`, '');
  for (const [file, text] of files) {
    if (text === apacheText) lines.push(`${file}: the Apache License 2.0, word for word the text in LICENSE.`, '');
    else lines.push(`${file}:`, '', fenced(text), '');
  }
  return lines.join('\n');
}

/** The full THIRD_PARTY_NOTICES.md for the checkout at `root`. */
function renderNotices(root = ROOT) {
  const { version } = rootManifest(root);
  const packages = productionPackages(root);
  const apacheText = APACHE_TEXT().trim();
  const head = [
    '# Third-party notices',
    '',
    `Sous ${version} is licensed under the Apache License 2.0 (see LICENSE). It runs on the third-party`,
    `packages listed below: the production dependency tree of package-lock.json (${packages.length} packages),`,
    'which `npm install -g sous` installs beside the bundled @sous/* workspaces and which the container',
    'images keep after `npm prune --omit=dev`. Each entry gives the package, its declared licence and the',
    'licence and notice files it ships, verbatim.',
    '',
    'Generated by `node scripts/release/notices.js` (run by the release script); do not edit by hand.',
    '',
    '## Container images',
    '',
    'The images built from Dockerfile ship the same production tree plus their base image and two',
    'Debian packages:',
    '',
    '- `node:20.20.2-bookworm-slim`: Node.js and npm (licence: https://github.com/nodejs/node/blob/v20.20.2/LICENSE)',
    '  on Debian 12 "bookworm"; the notices of its packages are in the image itself, one',
    '  `/usr/share/doc/<package>/copyright` file per Debian package (Debian policy §12.5).',
    '- `git` and `ca-certificates`, added with apt-get from Debian bookworm: their copyright files sit in',
    '  the same place in the image (`/usr/share/doc/git/copyright`, `/usr/share/doc/ca-certificates/copyright`).',
    '',
    'docker-compose.yml also runs unmodified upstream images (`postgres:16.10-bookworm`,',
    '`redis:7.4.5-bookworm`, `caddy:2.10.2`); Sous does not ship them, and their own notices apply.',
    '',
  ];
  return `${[...head, ...packages.map((p) => packageSection(p, apacheText))].join('\n').trimEnd()}\n`;
}

/** The name@version entries and licences a notices text lists. */
function parseNotices(text) {
  const entries = new Map();
  const re = /^## (\S+)@(\S+)\n\nLicense: (.*)$/gm;
  for (let m = re.exec(text); m; m = re.exec(text)) entries.set(`${m[1]}@${m[2]}`, m[3]);
  return entries;
}

/** What is wrong with the committed notices: missing packages, licences outside the allow-list. */
function noticeProblems(root = ROOT) {
  const file = path.join(root, NOTICES_FILE);
  if (!fs.existsSync(file)) return [`${NOTICES_FILE} is missing: run node scripts/release/notices.js`];
  const listed = parseNotices(fs.readFileSync(file, 'utf8'));
  const problems = [];
  for (const pkg of productionPackages(root)) {
    const key = `${pkg.name}@${pkg.version}`;
    if (!listed.has(key)) problems.push(`${key} (${pkg.license || 'no licence'}) is not in ${NOTICES_FILE}: run node scripts/release/notices.js`);
    if (!licenseAllowed(pkg.license)) problems.push(`${key} is licensed "${pkg.license || 'UNKNOWN'}", which is not on the allow-list (${[...ALLOWED_LICENSES].join(', ')})`);
  }
  return problems;
}

module.exports = { ALLOWED_LICENSES, NOTICES_FILE, licenseAllowed, productionPackages, renderNotices, parseNotices, noticeProblems };

if (require.main === module) {
  if (process.argv[2] === '--check') {
    const problems = noticeProblems();
    for (const p of problems) console.error(p);
    process.exit(problems.length > 0 ? 1 : 0);
  }
  const bad = productionPackages().filter((p) => !licenseAllowed(p.license));
  if (bad.length > 0) {
    for (const p of bad) console.error(`${p.name}@${p.version}: licence "${p.license || 'UNKNOWN'}" is not on the allow-list`);
    process.exit(1);
  }
  fs.writeFileSync(path.join(ROOT, NOTICES_FILE), renderNotices());
  console.log(`${NOTICES_FILE}: ${productionPackages().length} packages`);
}
