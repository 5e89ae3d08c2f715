// The tree-sitter grammars Sous parses with, copied from the grammar maintainers' own npm packages
// into shared/retrieval/grammars/ (only the `.wasm` files the language table uses, and each licence).
//   node scripts/grammars/vendor.js           fetch the versions in grammars.json, copy, record sha256
//   node scripts/grammars/vendor.js --check   fetch them again and fail unless the committed files match
// Why copy instead of depending on the packages: each also ships C sources and native prebuilds for six
// platforms with a node-gyp install script (about 80 MB for our seven grammars); a copy is 5.5 MB and
// installs nothing. `npm pack` only downloads a tarball (npm checks its integrity); no script runs.
// To update a grammar: change its version in grammars.json, run this, then compare symbols before and
// after with scripts/grammars/symbols-snapshot.js (docs/retrieval-symbols.md, "Grammars").
'use strict';
const crypto = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { execFileSync } = require('node:child_process');

const folder = path.join(__dirname, '..', '..', 'shared', 'retrieval', 'grammars');
const manifestPath = path.join(folder, 'grammars.json');

function sha256(file) {
  return crypto.createHash('sha256').update(fs.readFileSync(file)).digest('hex');
}

/** Unpacks `name@version` from the registry into a temporary folder; returns its `package/` folder. */
function unpack(name, version, tmp) {
  const out = execFileSync('npm', ['pack', `${name}@${version}`, '--ignore-scripts', '--json', '--pack-destination', tmp], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const [packed] = JSON.parse(out);
  const target = path.join(tmp, name);
  fs.mkdirSync(target, { recursive: true });
  execFileSync('tar', ['-xzf', path.join(tmp, packed.filename), '-C', target]);
  return { dir: path.join(target, 'package'), integrity: packed.integrity };
}

function main(check) {
  const manifest = JSON.parse(fs.readFileSync(manifestPath, 'utf8'));
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'sous-grammars-'));
  const problems = [];
  const listed = new Set();
  try {
    for (const pkg of manifest.packages) {
      const { dir, integrity } = unpack(pkg.name, pkg.version, tmp);
      if (check && pkg.integrity !== integrity) problems.push(`${pkg.name}@${pkg.version}: tarball integrity ${integrity}, grammars.json says ${pkg.integrity}`);
      pkg.integrity = integrity;
      const license = path.join('licenses', `${pkg.name}.txt`);
      listed.add(license);
      for (const file of Object.keys(pkg.files)) {
        listed.add(file);
        const source = path.join(dir, file);
        if (!fs.existsSync(source)) {
          problems.push(`${pkg.name}@${pkg.version} has no ${file}`);
          continue;
        }
        const hash = sha256(source);
        if (check) {
          const committed = path.join(folder, file);
          if (pkg.files[file] !== hash) problems.push(`${file}: ${pkg.name}@${pkg.version} has sha256 ${hash}, grammars.json says ${pkg.files[file]}`);
          if (!fs.existsSync(committed) || sha256(committed) !== hash) problems.push(`${file}: the committed file differs from ${pkg.name}@${pkg.version}`);
        } else {
          fs.copyFileSync(source, path.join(folder, file));
          pkg.files[file] = hash;
        }
      }
      if (!check) {
        fs.mkdirSync(path.join(folder, 'licenses'), { recursive: true });
        fs.copyFileSync(path.join(dir, 'LICENSE'), path.join(folder, license));
      }
    }
    // Only the grammars the table names ship: anything else in the folder is a leftover.
    const present = fs.readdirSync(folder).filter((f) => f.endsWith('.wasm'));
    for (const file of present.filter((f) => !listed.has(f))) {
      if (check) problems.push(`${file} is not listed in grammars.json`);
      else fs.rmSync(path.join(folder, file));
    }
    if (!check) fs.writeFileSync(manifestPath, `${JSON.stringify(manifest, null, 2)}\n`);
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
  if (problems.length > 0) {
    for (const p of problems) console.error(`grammars: ${p}`);
    console.error('grammars: run `node scripts/grammars/vendor.js` to copy them again');
    process.exit(1);
  }
  const grammars = manifest.packages.reduce((n, pkg) => n + Object.keys(pkg.files).length, 0);
  console.log(check ? `grammars: ${grammars} files match their packages` : `grammars: ${grammars} files copied into ${folder}`);
}

main(process.argv.includes('--check'));
