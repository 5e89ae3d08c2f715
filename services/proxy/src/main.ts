#!/usr/bin/env node
/**
 * Chat-completions proxy (spec 4.4, default port 8471; @sous/gateway, docs/proxy.md) and, with
 * `--context-only`, the context API (spec 4.5, port 8472).
 */
import { DEFAULT_CONTEXT_PORT, DEFAULT_PROXY_PORT, PRIVATE_UMASK } from '@sous/protocol';
import { runSurfaceProcess, startContextSurface } from '@sous/http';
import { startProxySurface } from '@sous/gateway';
import { parseProcessOptions } from '@sous/runtime';

process.umask(PRIVATE_UMASK);
const contextOnly = process.argv.includes('--context-only');
let options;
try {
  options = parseProcessOptions(process.argv.slice(2), process.env, { port: contextOnly ? DEFAULT_CONTEXT_PORT : DEFAULT_PROXY_PORT, switches: ['--context-only'] });
} catch (err) {
  process.stderr.write(`sous proxy: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(2);
}
const opts = options;
runSurfaceProcess(() => (contextOnly ? startContextSurface('context', opts) : startProxySurface(opts)), 'proxy');
