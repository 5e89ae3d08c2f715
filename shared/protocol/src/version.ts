import * as fs from 'node:fs';
import * as path from 'node:path';

/**
 * The Sous release this build reports on /status, MCP server info and `sous --version`.
 *
 * Read from this package's own manifest, which sits beside `dist/` (and `src/`) in the checkout, in
 * the container image and in the installed npm package (node_modules/@sous/protocol/package.json).
 * The root package.json is the one version source; scripts/release/set-version.js copies it here and
 * test/release-version.test.ts fails when the two differ.
 */
export const SOUS_VERSION: string = readOwnVersion();

function readOwnVersion(): string {
  const manifest = JSON.parse(fs.readFileSync(path.join(__dirname, '..', 'package.json'), 'utf8')) as { version?: unknown };
  if (typeof manifest.version !== 'string') throw new Error('@sous/protocol/package.json has no version');
  return manifest.version;
}
