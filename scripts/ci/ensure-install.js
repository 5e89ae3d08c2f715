// `npm test` on a fresh clone: install dependencies first if node_modules is missing.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { execSync } = require('node:child_process');

// An old Node is refused here, in one line, before npm ci, the build or jest fail in their own words.
require('./check-node');

const root = path.join(__dirname, '..', '..');
if (!fs.existsSync(path.join(root, 'node_modules', '.bin', 'tsc'))) {
  process.stderr.write('node_modules missing: running npm ci\n');
  execSync('npm ci --no-audit --no-fund', { cwd: root, stdio: 'inherit' });
}
