/**
 * Syscall-level proof that Sous never writes the user's repository. Every Sous process (one-shot
 * CLI commands, the supervisor, the daemon, PGlite's initdb child, and every git they start) runs
 * under `strace -f` while the user touches, edits, commits and switches branches; the trace shows no
 * process opening a path of the repository (work tree or .git) for writing, creating, renaming or
 * removing one, apart from Sous's own `.sous/`, and no git process writing anywhere in it. Every git
 * call carries the read-only flags.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { READ_ONLY_GIT_FLAGS } from '@sous/retrieval';
import { embeddedEnv, firstRunNotice, freePort, sous } from './support/cli';
import { rawRequest } from './support/http';
import { makeRenameDriftRepo, warmCycle } from './support/prepared-work';
import { isGit, readTraces, requireStrace, tracedSous, writesUnder } from './support/strace';
import { git, makeTempDir, rmTempDir, writeFile } from './support/tmp';
import { until } from './support/wait';

/** The git subcommand of an argv (`status` in `git --no-optional-locks -c a=b status -z`). */
function subcommand(argv: readonly string[]): string | undefined {
  for (let i = 1; i < argv.length; i++) {
    if (argv[i] === '-c') i++;
    else if (!(argv[i] as string).startsWith('-')) return argv[i];
  }
  return undefined;
}

test('no Sous process, and no git it runs, writes the repository (strace over prepare, context, doctor and a daemon session)', async () => {
  requireStrace();
  const repo = makeRenameDriftRepo();
  const traceDir = makeTempDir('sous-strace-');
  const env = embeddedEnv();
  const traces: string[] = [];
  const traced = (name: string, args: string[]) => {
    const file = path.join(traceDir, `${name}.trace`);
    traces.push(file);
    return tracedSous(args, file, env);
  };
  const status = async (port: number) => (await rawRequest({ port, path: '/status' })).json;
  let daemonDone: Promise<unknown> | undefined;
  try {
    // The user's state: a tracked file touched (mtime only), one edited, one new.
    const later = new Date(Date.now() + 60_000);
    fs.utimesSync(path.join(repo, 'src/server.ts'), later, later);
    writeFile(repo, 'src/config.ts', 'export function loadConfig(text: string): Record<string, string> {\n  return JSON.parse(text || "{}");\n}\n');
    writeFile(repo, 'src/extra.ts', 'export const extra = 1;\n');

    const prepared = await traced('prepare', ['prepare', '--path', repo, '--json']).done;
    expect(prepared.stderr).toBe(firstRunNotice(repo));
    expect(JSON.parse(prepared.stdout).items.some((i: { kind: string }) => i.kind === 'docs_drift')).toBe(true);
    expect((await traced('context', ['context', '--path', repo, '--prompt', 'loadConfig', '--json']).done).code).toBe(0);
    await traced('doctor', ['doctor', '--path', repo, '--json']).done;

    const port = await freePort();
    daemonDone = traced('daemon', ['up', '--path', repo, '--port', String(port)]).done;
    await until(async () => ((await status(port).catch(() => undefined))?.index?.state === 'ready' ? true : undefined), 90_000, 200);

    // The user works while the daemon watches; each step waits until Sous has taken it in.
    const generation = (await status(port)).index.generation as number;
    fs.utimesSync(path.join(repo, 'docs/guide.md'), later, later);
    writeFile(repo, 'src/server.ts', "import { loadConfig } from './config';\nexport function startServer(raw: string) {\n  return loadConfig(raw.trim());\n}\n");
    await until(async () => ((await status(port)).index.generation > generation ? true : undefined), 30_000, 100);
    git(repo, ['checkout', '-q', '-b', 'feature']);
    git(repo, ['commit', '-q', '-am', 'Trim the raw config']);
    const feature = git(repo, ['rev-parse', 'HEAD']).trim();
    await until(async () => ((await status(port)).index.head === feature ? true : undefined), 30_000, 100);
    git(repo, ['checkout', '-q', 'main']);
    const main = git(repo, ['rev-parse', 'HEAD']).trim();
    await until(async () => ((await status(port)).index.head === main ? true : undefined), 30_000, 100);
    expect(await warmCycle(port)).toMatchObject({ state: 'completed' });
    const cards = (await rawRequest({ port, path: '/work-products?state=ready' })).json.items as Array<{ id: string }>;
    expect(cards.length).toBeGreaterThan(0);
    for (const card of cards) expect((await rawRequest({ port, method: 'POST', path: `/work-products/${card.id}/export` })).status).toBe(200);

    expect((await traced('down', ['down', '--path', repo]).done).code).toBe(0);
    await daemonDone;

    const trace = readTraces(traces);
    // The parser sees writes: Sous's own, in .sous/ (the store, logs, run files).
    expect(writesUnder(trace, path.join(repo, '.sous')).length).toBeGreaterThan(0);
    expect(writesUnder(trace, repo, [path.join(repo, '.sous')])).toEqual([]);
    expect(writesUnder(trace, repo).filter((w) => isGit(w.program))).toEqual([]);
    // Not vacuous: git ran, for the working tree too, and always with the read-only flags.
    const gitRuns = trace.programs.filter(isGit);
    const subcommands = new Set(gitRuns.map(subcommand));
    for (const sub of ['status', 'diff', 'log', 'show', 'ls-files', 'rev-parse', 'blame']) expect(subcommands).toContain(sub);
    expect(gitRuns.filter((argv) => argv.slice(1, READ_ONLY_GIT_FLAGS.length + 1).join(' ') !== READ_ONLY_GIT_FLAGS.join(' '))).toEqual([]);
  } finally {
    if (daemonDone !== undefined) {
      await sous(['down', '--path', repo], { env });
      await daemonDone;
    }
    rmTempDir(repo);
    rmTempDir(traceDir);
  }
}, 240_000);
