#!/usr/bin/env node
// Generates the committed JSON Schema of the composer-adapter contract from its one source, the joi
// schema in shared/http/src/composer-snapshot.ts (spec 9.2). Run after `npm run build`:
//
//   npm run schema:generate            writes shared/protocol/schemas/draft-intent-snapshot.schema.json
//
// test/composer-signals.test.ts fails when the committed file differs from what this produces.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const joiToJson = require('joi-to-json');

const root = path.resolve(__dirname, '..', '..');
const SCHEMA_FILE = path.join(root, 'shared', 'protocol', 'schemas', 'draft-intent-snapshot.schema.json');

/**
 * The JSON Schema (draft 2019-09) text of the DraftIntentSnapshot, as committed. `joiSchema`
 * defaults to the built one (shared/http/dist); the drift test passes the source's.
 */
function draftIntentSnapshotJsonSchema(joiSchema) {
  const source = joiSchema ?? require(path.join(root, 'shared', 'http', 'dist', 'composer-snapshot.js')).draftIntentSnapshotSchema;
  const body = joiToJson(source, 'json-draft-2019-09');
  const schema = {
    $schema: 'https://json-schema.org/draft/2019-09/schema',
    title: 'DraftIntentSnapshot',
    ...body,
  };
  return `${JSON.stringify(schema, null, 2)}\n`;
}

module.exports = { SCHEMA_FILE, draftIntentSnapshotJsonSchema };

if (require.main === module) {
  fs.writeFileSync(SCHEMA_FILE, draftIntentSnapshotJsonSchema());
  console.log(`wrote ${path.relative(root, SCHEMA_FILE)}`);
}
