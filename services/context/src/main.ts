#!/usr/bin/env node
/** Context-only API process (spec 4.5, default port 8472) for the three-container topology. */
import { DEFAULT_CONTEXT_PORT, PRIVATE_UMASK } from '@sous/protocol';
import { runSurfaceProcess, startContextSurface } from '@sous/http';
import { parseProcessOptions } from '@sous/runtime';

process.umask(PRIVATE_UMASK);
let options;
try {
  options = parseProcessOptions(process.argv.slice(2), process.env, { port: DEFAULT_CONTEXT_PORT });
} catch (err) {
  process.stderr.write(`sous context: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(2);
}
const opts = options;
runSurfaceProcess(() => startContextSurface('context', opts), 'context');
