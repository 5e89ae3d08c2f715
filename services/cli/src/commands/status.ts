import type { Command } from 'commander';
import * as fs from 'node:fs';
import { loadConfig } from '@sous/config';
import { daemonBaseUrl } from '@sous/runtime';
import { CliError } from '../cli-error';
import { describeCoverage, type CoverageBody } from '../coverage';
import { clientFor, findProcesses } from '../daemon-control';
import { printJson, printLine, printTable } from '../output';
import { run } from '../run';
import { resolveWorkspace } from '../workspace';

/** Exit code of `sous status` when no daemon runs (as LSB init scripts do), so scripts can test it. */
export const EXIT_NOT_RUNNING = 3;

interface StatusBody {
  status: string; version: string; pid: number; uptime_seconds: number; port: number;
  reasons?: Array<{ dependency: string; reason: string; since: string | null }>;
  workspace: { root: string; state_dir: string };
  config: { path: string; last_error?: string };
  store: { kind: string; ok: boolean; latency_ms: number; detail?: string };
  queue: { kind: string; ok: boolean; detail?: string };
  /** Absent from daemons older than scale-out. */
  role?: { role: string; since: string; lease: { key: string; ttl_ms: number } | null; lost: string | null };
  policy: { bundle: string };
  backend: { base_url: string; model: string; reachable: boolean | null; model_present: boolean | null; error?: string };
  watch: { mode: string; reason?: string };
  index?: {
    state: string; files_indexed: number; watch: string; updated_at: string | null; error: string | null;
    progress?: { done: number; total: number } | null;
    scope: { total_files: number; in_scope: number; out_of_scope_code: number; suggested_globs: string[] } | null;
    coverage?: CoverageBody;
    semantic?: { state: string; reason: string; files: number; chunks: number; pending_files: number | null; query?: { error: string | null } };
  };
}

/** The semantic stage in one line: off and why, or how much is embedded (docs/retrieval-semantic.md). */
function semanticRow(semantic: NonNullable<StatusBody['index']>['semantic']): Array<[string, string]> {
  if (!semantic) return [];
  if (semantic.state === 'off') return [['semantic', `off: ${semantic.reason}`]];
  const pending = semantic.pending_files ? `, ${semantic.pending_files} files to go` : '';
  const query = semantic.query?.error ? `; queries lexical for now (${semantic.query.error})` : '';
  return [['semantic', `${semantic.state}, ${semantic.files} files / ${semantic.chunks} chunks embedded${pending} (${semantic.reason})${query}`]];
}

/** The index line, and the scope line that says what the privacy scope leaves out (never widened silently). */
function indexRows(s: StatusBody, allowed: string[]): Array<[string, string]> {
  if (!s.index) return [];
  const i = s.index;
  const progress = i.progress ? ` (${i.progress.done}/${i.progress.total} files checked)` : '';
  const rows: Array<[string, string]> = [['index', `${i.state}${progress}, ${i.files_indexed} files${i.updated_at ? `, updated ${i.updated_at}` : ''}${i.error ? `: ${i.error}` : ''}`]];
  if (i.scope) {
    const left = i.scope.out_of_scope_code > 0 ? `; ${i.scope.out_of_scope_code} code files left out` : '';
    const hint = i.scope.suggested_globs.length > 0 ? ` (to include them: sous config set privacy.allowed_paths '${JSON.stringify([...allowed, ...i.scope.suggested_globs])}')` : '';
    rows.push(['scope', `${i.scope.in_scope} of ${i.scope.total_files} files in privacy.allowed_paths${left}${hint}`]);
  }
  if (i.coverage) rows.push(['coverage', describeCoverage(i.coverage)]);
  rows.push(...semanticRow(i.semantic));
  return rows;
}

function allowedPaths(configPath: string): string[] {
  try {
    return loadConfig(configPath).privacy.allowed_paths;
  } catch {
    return [];
  }
}

export function registerStatusCommands(program: Command): void {
  program
    .command('status')
    .description('health of the running daemon (exit 3 when none runs)')
    .option('--path <dir>', 'repository (default: nearest .sous/ upward)')
    .option('--json', 'print the daemon\'s /status as JSON')
    .action(
      run(async (opts: { path?: string; json?: boolean }) => {
        const paths = resolveWorkspace(opts.path);
        const client = clientFor(paths);
        if (!client) {
          if (opts.json) printJson({ running: false, workspace: paths.root });
          else printLine(`Sous is not running for ${paths.root}. Start it with: sous up --path ${paths.root}`);
          process.exitCode = EXIT_NOT_RUNNING;
          return;
        }
        const s = await client.get<StatusBody>('/status');
        if (opts.json) return printJson({ running: true, ...s });
        const backend = s.backend.reachable === null ? 'not checked yet' : s.backend.reachable ? (s.backend.model_present === false ? `reachable, model ${s.backend.model} missing` : 'reachable') : `not reachable${s.backend.error ? `: ${s.backend.error}` : ''}`;
        printTable([
          ['status', s.status],
          // Why it is degraded: which dependency, what failed, since when.
          ...(s.reasons ?? []).map((r): [string, string] => [`  ${r.dependency}`, `${r.reason}${r.since ? ` (since ${r.since})` : ''}`]),
          ['version', s.version],
          ['daemon', `pid ${s.pid}, up ${s.uptime_seconds} s, ${client.baseUrl}`],
          ['workspace', s.workspace.root],
          ['config', s.config.path + (s.config.last_error ? ` (last change refused: ${s.config.last_error})` : '')],
          ['policy bundle', s.policy.bundle],
          ['store', `${s.store.kind} ${s.store.ok ? 'ok' : 'failing'} (${s.store.latency_ms} ms)${s.store.detail ? `: ${s.store.detail}` : ''}`],
          ['queue', `${s.queue.kind} ${s.queue.ok ? 'ok' : 'failing'}${s.queue.detail ? `: ${s.queue.detail}` : ''}`],
          ...(s.role ? [['role', roleLine(s.role)] as [string, string]] : []),
          ['model backend', `${s.backend.base_url} ${backend}`],
          ['file watching', s.watch.mode === 'polling' ? `polling (${s.watch.reason ?? 'watch limit exhausted'})` : 'native'],
          ...indexRows(s, allowedPaths(paths.config)),
        ]);
      }),
    );

  program
    .command('ps')
    .description('processes of the running daemon: supervisor, daemon, restarts')
    .option('--path <dir>', 'repository (default: nearest .sous/ upward)')
    .option('--json', 'print as JSON')
    .action(
      run(async (opts: { path?: string; json?: boolean }) => {
        const paths = resolveWorkspace(opts.path);
        const p = findProcesses(paths);
        const rows = [
          { role: 'supervisor', pid: p.supervisorAlive ? p.supervisor?.pid ?? null : null, state: p.supervisorAlive ? p.supervisor?.state ?? 'running' : 'stopped', restarts: p.supervisor?.restarts ?? 0, started_at: p.supervisorAlive ? p.supervisor?.started_at ?? null : null },
          { role: 'daemon', pid: p.daemonAlive ? p.daemon?.pid ?? null : null, state: p.daemonAlive ? (p.daemonOrphaned ? 'orphaned' : 'running') : 'stopped', port: p.daemon?.port ?? null, started_at: p.daemonAlive ? p.daemon?.started_at ?? null : null },
        ];
        if (opts.json) return printJson({ workspace: paths.root, processes: rows });
        printLine('ROLE        PID      STATE       DETAIL');
        for (const r of rows) {
          const detail = r.role === 'supervisor' ? `restarts ${r.restarts}` : r.pid ? `port ${r.port}` : '';
          printLine(`${r.role.padEnd(10)}  ${String(r.pid ?? '-').padEnd(7)}  ${r.state.padEnd(10)}  ${detail}`);
        }
      }),
    );

  program
    .command('show')
    .description('what Sous knows about this workspace: paths, bundle, backend, daemon')
    .option('--path <dir>', 'repository (default: nearest .sous/ upward)')
    .option('--json', 'print as JSON')
    .action(
      run(async (opts: { path?: string; json?: boolean }) => {
        const paths = resolveWorkspace(opts.path);
        if (!fs.existsSync(paths.config)) throw new CliError(`${paths.root} is not set up for Sous; run: sous init --path ${paths.root}`);
        const config = loadConfig(paths.config);
        const p = findProcesses(paths);
        const url = p.daemonAlive && p.daemon ? daemonBaseUrl(p.daemon.host, p.daemon.port) : null;
        const info = {
          workspace: paths.root,
          state_dir: paths.dir,
          config: paths.config,
          logs: paths.logs,
          policy_bundle: config.policy.bundle,
          backend: { name: config.backend.name, base_url: config.backend.base_url, model: config.backend.model },
          privacy: { allowed_paths: config.privacy.allowed_paths, excluded_patterns: config.privacy.excluded_patterns },
          store: process.env.DATABASE_URL ? 'postgres (DATABASE_URL)' : `embedded PGlite in ${paths.data}`,
          queue: process.env.REDIS_URL ? 'bullmq (REDIS_URL)' : 'in-process',
          daemon: url ? { running: true, url, cockpit_url: `${url}/`, pid: p.daemon?.pid } : { running: false },
        };
        if (opts.json) return printJson(info);
        printTable([
          ['workspace', info.workspace],
          ['state', info.state_dir],
          ['config', info.config],
          ['logs', info.logs],
          ['policy bundle', info.policy_bundle],
          ['model backend', `${info.backend.name} ${info.backend.base_url} (${info.backend.model})`],
          ['scope', info.privacy.allowed_paths.join(', ')],
          ['excluded', info.privacy.excluded_patterns.join(', ')],
          ['store', info.store],
          ['queue', info.queue],
          ['daemon', url ? `running at ${url} (cockpit ${url}/)` : 'not running (sous up)'],
        ]);
      }),
    );
}

/** `watcher` or `standby`, with the lease when there is one (docs/jobs.md, "Scale-out"). */
function roleLine(r: NonNullable<StatusBody['role']>): string {
  if (r.lease === null) return `${r.role} (the only daemon of this workspace)`;
  const what = r.role === 'watcher' ? 'watches the repository' : 'another daemon watches; runs shared jobs';
  return `${r.role} since ${r.since}: ${what} (lease ${r.lease.key}, ${r.lease.ttl_ms} ms)${r.lost ? `; lost the lease: ${r.lost}` : ''}`;
}
