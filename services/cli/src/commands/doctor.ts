import type { Command } from 'commander';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { probeBackend } from '@sous/backend';
import { loadConfig, type SousConfig, type SousPaths } from '@sous/config';
import { portFree } from '@sous/http';
import { DEFAULT_DAEMON_PORT, DEFAULT_HOST, redactUrl } from '@sous/protocol';
import { scopeCoverage, scopePolicyFromConfig } from '@sous/retrieval';
import { describeCoverage, type CoverageBody } from '../coverage';
import { clientFor } from '../daemon-control';
import { printJson, printLine } from '../output';
import { gitTopLevel } from '../repo-check';
import { run } from '../run';
import { resolveWorkspace } from '../workspace';

/** One diagnostic: `fail` makes `sous doctor` exit 1, `warn` does not. */
export interface Check {
  name: string;
  status: 'ok' | 'warn' | 'fail';
  detail: string;
  /** What to do about it (warn and fail only). */
  hint?: string;
}

interface DaemonStatus {
  store: { kind: string; ok: boolean; detail?: string };
  queue: { kind: string; ok: boolean; detail?: string };
  watch: { mode: string; reason?: string };
  config: { last_error?: string };
  index?: { files_indexed: number; coverage?: CoverageBody };
}

function tcpReachable(url: string, defaultPort: number): Promise<boolean> {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return Promise.resolve(false);
  }
  return new Promise((resolve) => {
    const s = net.connect({ host: u.hostname, port: Number(u.port || defaultPort) });
    const done = (ok: boolean) => {
      s.destroy();
      resolve(ok);
    };
    s.setTimeout(1500, () => done(false));
    s.once('connect', () => done(true));
    s.once('error', () => done(false));
  });
}

/** Runs every check; never throws (a check that cannot run reports why). */
export async function runDoctor(paths: SousPaths, env: NodeJS.ProcessEnv): Promise<Check[]> {
  const checks: Check[] = [];
  const top = gitTopLevel(paths.root);
  checks.push(top ? { name: 'repository', status: 'ok', detail: `git repository at ${top}` } : { name: 'repository', status: 'warn', detail: `${paths.root} is not a git repository`, hint: 'point --path at a repository; history signals need git' });

  const ignore = path.join(paths.dir, '.gitignore');
  const ignored = fs.existsSync(ignore) && fs.readFileSync(ignore, 'utf8').split('\n').includes('*');
  checks.push(ignored ? { name: 'state folder', status: 'ok', detail: `${paths.dir} (ignored by its own .gitignore)` } : { name: 'state folder', status: 'fail', detail: `${paths.dir} is missing or not ignored`, hint: `run: sous init --path ${paths.root}` });

  let config: SousConfig | undefined;
  try {
    config = loadConfig(paths.config);
    checks.push({ name: 'config', status: fs.existsSync(paths.config) ? 'ok' : 'warn', detail: fs.existsSync(paths.config) ? `${paths.config} is valid` : 'no config file; defaults apply', ...(fs.existsSync(paths.config) ? {} : { hint: `run: sous init --path ${paths.root}` }) });
  } catch (err) {
    checks.push({ name: 'config', status: 'fail', detail: err instanceof Error ? err.message : String(err), hint: 'fix the file (sous config edit) or reset a key (sous config set <key> <value>)' });
  }

  const client = clientFor(paths, 3000);
  let status: DaemonStatus | undefined;
  if (client) {
    try {
      status = await client.get<DaemonStatus>('/status');
      checks.push({ name: 'daemon', status: 'ok', detail: `running at ${client.baseUrl}` });
    } catch (err) {
      checks.push({ name: 'daemon', status: 'fail', detail: `process runs but does not answer: ${err instanceof Error ? err.message : String(err)}`, hint: 'sous down && sous up; see sous logs' });
    }
  } else {
    const free = await portFree(DEFAULT_HOST, DEFAULT_DAEMON_PORT);
    checks.push({ name: 'daemon', status: 'warn', detail: `not running${free ? '' : `; port ${DEFAULT_DAEMON_PORT} is taken by another process`}`, hint: free ? `sous up --path ${paths.root}` : `sous up --port <n> --path ${paths.root}` });
  }

  if (status) {
    checks.push({ name: 'store', status: status.store.ok ? 'ok' : 'fail', detail: `${status.store.kind}${status.store.detail ? `: ${status.store.detail}` : ''}`, ...(status.store.ok ? {} : { hint: 'check DATABASE_URL, or the disk under .sous/data' }) });
    checks.push({ name: 'queue', status: status.queue.ok ? 'ok' : 'fail', detail: `${status.queue.kind}${status.queue.detail ? `: ${status.queue.detail}` : ''}`, ...(status.queue.ok ? {} : { hint: 'check REDIS_URL and that Redis runs' }) });
    checks.push(status.watch.mode === 'polling'
      ? { name: 'file watching', status: 'warn', detail: `polling fallback: ${status.watch.reason ?? 'the file-watch limit is exhausted'}`, hint: 'raise the limit, e.g. sudo sysctl fs.inotify.max_user_watches=524288' }
      : { name: 'file watching', status: 'ok', detail: 'native file events' });
    if (status.index?.coverage) checks.push({ name: 'index coverage', status: 'ok', detail: `${status.index.files_indexed} files indexed; ${describeCoverage(status.index.coverage)}` });
    if (status.config.last_error) checks.push({ name: 'config reload', status: 'warn', detail: `the daemon refused the last change: ${status.config.last_error}`, hint: 'fix the file; the daemon keeps the last valid config' });
  } else {
    const db = env.DATABASE_URL;
    checks.push(db ? ((await tcpReachable(db, 5432)) ? { name: 'store', status: 'ok', detail: `PostgreSQL answers at ${redactUrl(db)}` } : { name: 'store', status: 'fail', detail: `PostgreSQL does not answer at ${redactUrl(db)}`, hint: 'start PostgreSQL or fix DATABASE_URL' }) : { name: 'store', status: 'ok', detail: `embedded PGlite in ${paths.data}` });
    const redis = env.REDIS_URL;
    checks.push(redis ? ((await tcpReachable(redis, 6379)) ? { name: 'queue', status: 'ok', detail: `Redis answers at ${redactUrl(redis)}` } : { name: 'queue', status: 'fail', detail: `Redis does not answer at ${redactUrl(redis)}`, hint: 'start Redis or fix REDIS_URL' }) : { name: 'queue', status: 'ok', detail: 'in-process queue' });
  }

  if (config && top) checks.push(await scopeCheck(paths.root, config));

  if (config) {
    const b = config.backend;
    const probe = await probeBackend({ name: b.name, baseUrl: b.base_url, model: b.model, apiKeyEnv: b.api_key_env }, { env });
    if (!probe.reachable) {
      checks.push({ name: 'model backend', status: 'warn', detail: `${b.name} at ${b.base_url}: ${probe.error ?? 'not reachable'}`, hint: `start the runtime (e.g. ollama serve) or set backend.base_url; Sous still indexes and detects without a model` });
    } else {
      checks.push({ name: 'model backend', status: 'ok', detail: `${b.name} answers at ${b.base_url} (${probe.models.length} models)` });
      checks.push(probe.model_present
        ? { name: 'model', status: 'ok', detail: `${b.model} is available` }
        : { name: 'model', status: 'warn', detail: `${b.model} is not in the runtime's model list${probe.models.length ? ` (it has: ${probe.models.slice(0, 5).join(', ')})` : ''}`, hint: `pull it (e.g. ollama pull ${b.model}) or set backend.model to one it has` });
    }
  }
  return checks;
}

/**
 * The spec's default scope (`src/**`, `docs/**`) misses many layouts: say how much code it leaves
 * out and which globs would cover it, without ever widening the scope itself.
 */
async function scopeCheck(root: string, config: SousConfig): Promise<Check> {
  try {
    const c = await scopeCoverage(root, scopePolicyFromConfig(config));
    const detail = `${c.inScope} of ${c.total} files in privacy.allowed_paths (${config.privacy.allowed_paths.join(', ')})`;
    if (c.outOfScopeCode === 0) return { name: 'scope', status: 'ok', detail };
    const globs = JSON.stringify([...config.privacy.allowed_paths, ...c.suggestedGlobs]);
    return {
      name: 'scope',
      status: 'warn',
      detail: `${detail}; ${c.outOfScopeCode} code files are left out`,
      ...(c.suggestedGlobs.length ? { hint: `to include them: sous config set privacy.allowed_paths '${globs}'` } : {}),
    };
  } catch (err) {
    return { name: 'scope', status: 'warn', detail: `could not list the repository's files: ${err instanceof Error ? err.message : String(err)}` };
  }
}

export function registerDoctorCommand(program: Command): void {
  program
    .command('doctor')
    .description('diagnose the workspace, config, daemon, store, queue and model backend (exit 1 on a failure)')
    .option('--path <dir>', 'repository (default: nearest .sous/ upward)')
    .option('--json', 'print the checks as JSON')
    .action(
      run(async (opts: { path?: string; json?: boolean }) => {
        const paths = resolveWorkspace(opts.path);
        const checks = await runDoctor(paths, process.env);
        const failed = checks.some((c) => c.status === 'fail');
        if (opts.json) printJson({ ok: !failed, checks });
        else {
          for (const c of checks) {
            printLine(`${c.status === 'ok' ? 'ok  ' : c.status === 'warn' ? 'warn' : 'FAIL'}  ${c.name}: ${c.detail}`);
            if (c.hint) printLine(`      → ${c.hint}`);
          }
        }
        if (failed) process.exitCode = 1;
      }),
    );
}
