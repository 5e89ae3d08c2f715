#!/usr/bin/env node
/**
 * The Claude Code L0 composer adapter (spec 6.5): run by Claude Code's UserPromptSubmit hook with the
 * hook's JSON on stdin (`prompt`, `session_id`, `cwd`, …). It sends the daemon one DraftIntentSnapshot
 * per submit, `lifecycle_state: submitted`, carrying only `text_hash` (sha256) and `length_chars` of
 * the prompt, never its text. It prints nothing (UserPromptSubmit adds a hook's stdout to the
 * prompt), always exits 0, and gives up after 1 s: a dead daemon never blocks or alters the prompt.
 *
 * Only node built-ins are loaded: this runs on every prompt and must start fast.
 *   node claude-prompt-submit.js --run-state <.sous/run/daemon.json> [--workspace <dir>]
 *   node claude-prompt-submit.js --url http://127.0.0.1:8473 [--workspace <dir>]
 */
import { createHash, randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as http from 'node:http';

/**
 * Whole budget of one run from the script's first line, reading stdin included: with node's own start
 * (~0.1–0.2 s) a run stays within about 1 s whatever the daemon does (spec 6.5: timeout ≤ 1 s).
 */
const DEADLINE_MS = 850;
/** The POST gets what is left of the budget, at most this. */
const POST_TIMEOUT_MS = 700;
/** Stdin larger than this is not a prompt we hash (Claude Code prompts are far smaller). */
const MAX_STDIN_BYTES = 16 * 1024 * 1024;

const started = Date.now();
// Whatever happens, this process is gone within the budget, with exit code 0.
setTimeout(() => process.exit(0), DEADLINE_MS).unref();
process.on('uncaughtException', () => process.exit(0));
process.on('unhandledRejection', () => process.exit(0));

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

function readStdin(): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    process.stdin.on('data', (c: Buffer) => {
      size += c.length;
      if (size <= MAX_STDIN_BYTES) chunks.push(c);
    });
    process.stdin.on('end', () => resolve(size <= MAX_STDIN_BYTES ? Buffer.concat(chunks).toString('utf8') : ''));
    process.stdin.on('error', () => resolve(''));
  });
}

/** The daemon's base URL: `--url`, or host and port from the workspace's run-state file. */
function daemonUrl(): URL | undefined {
  const url = arg('--url');
  try {
    if (url) return new URL(url);
    const file = arg('--run-state');
    if (!file) return undefined;
    const state = JSON.parse(fs.readFileSync(file, 'utf8')) as { host?: unknown; port?: unknown };
    if (typeof state.port !== 'number' || typeof state.host !== 'string') return undefined;
    const host = state.host.includes(':') ? `[${state.host}]` : state.host === '0.0.0.0' ? '127.0.0.1' : state.host;
    return new URL(`http://${host}:${state.port}`);
  } catch {
    return undefined;
  }
}

/** A time-sortable id (48-bit ms time, then randomness), like a ULID in hex. */
function sortableId(): string {
  return Date.now().toString(16).padStart(12, '0') + randomBytes(10).toString('hex');
}

/** `Authorization: Bearer $SOUS_TOKEN` for a daemon that asks for a token. */
function tokenHeader(): Record<string, string> {
  const token = process.env.SOUS_TOKEN?.trim();
  return token ? { authorization: `Bearer ${token}` } : {};
}

function post(base: URL, body: string): Promise<void> {
  return new Promise((resolve) => {
    const timeout = Math.max(50, Math.min(POST_TIMEOUT_MS, DEADLINE_MS - (Date.now() - started) - 50));
    const req = http.request(
      new URL('/signals/composer', base),
      { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), 'x-sous-client': 'claude-code', ...tokenHeader() }, timeout },
      (res) => {
        res.resume();
        res.on('end', () => resolve());
        res.on('error', () => resolve());
      },
    );
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve());
    req.end(body);
  });
}

async function main(): Promise<void> {
  const input = await readStdin();
  let hook: { prompt?: unknown; session_id?: unknown; cwd?: unknown };
  try {
    hook = JSON.parse(input) as typeof hook;
  } catch {
    return;
  }
  if (typeof hook.prompt !== 'string') return;
  const base = daemonUrl();
  if (!base) return;
  const workspace = arg('--workspace') ?? (typeof hook.cwd === 'string' ? hook.cwd : undefined);
  const snapshot = {
    session_id: typeof hook.session_id === 'string' && hook.session_id !== '' ? hook.session_id.slice(0, 200) : 'claude-code',
    snapshot_id: sortableId(),
    timestamp: new Date().toISOString(),
    lifecycle_state: 'submitted',
    text_hash: createHash('sha256').update(hook.prompt).digest('hex'),
    // Characters as a person counts them (code points), not UTF-16 units.
    length_chars: [...hook.prompt].length,
    capabilities: { level: 'L0', emits: ['submitted'], host_app: 'claude-code', host_kind: 'cli' },
    ...(workspace ? { workspace_id: workspace.slice(0, 4096) } : {}),
  };
  await post(base, JSON.stringify(snapshot));
}

void main().finally(() => process.exit(0));
