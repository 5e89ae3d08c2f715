#!/usr/bin/env node
// Generates a @sous/store migration from shared/store/src/schema and makes it schema-neutral.
//
//   node scripts/db/generate-migration.js <name>      e.g.  node scripts/db/generate-migration.js add_chunks
//
// drizzle-kit writes foreign keys as REFERENCES "public"."table"; Sous applies the same migrations inside
// any PostgreSQL schema (tests use one schema each), so the "public". qualifier is stripped and every
// reference resolves through search_path like the CREATE TABLE statements do.
'use strict';
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..', '..');
const migrations = path.join(root, 'shared', 'store', 'migrations');
const name = process.argv[2];
if (!name || !/^[a-z0-9_]+$/.test(name)) {
  console.error('usage: node scripts/db/generate-migration.js <name>  (lower-case letters, digits and _ only)');
  process.exit(2);
}

execFileSync(
  process.execPath,
  [path.join(path.dirname(require.resolve('drizzle-kit')), 'bin.cjs'), 'generate', '--config', 'shared/store/drizzle.config.ts', '--name', name],
  { cwd: root, stdio: 'inherit' },
);

for (const file of fs.readdirSync(migrations)) {
  if (!file.endsWith('.sql')) continue;
  const full = path.join(migrations, file);
  const sql = fs.readFileSync(full, 'utf8');
  const neutral = sql.replace(/"public"\./g, '');
  if (neutral !== sql) {
    fs.writeFileSync(full, neutral);
    console.log(`made ${file} schema-neutral (removed "public". qualifiers)`);
  }
}
