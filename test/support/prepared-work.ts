/** Shared arrangements of the Prepared Work tests: a repository with a planted docs drift, a warm cycle. */
import { rawRequest } from './http';
import { git, makeGitRepo, writeFile } from './tmp';
import { until } from './wait';

/** The guide that still names `parseConfig` and links `src/defaults.ts` after the code renamed the one and moved the other. */
export const GUIDE = ['# Guide', '', 'Read the settings with `parseConfig` before starting; [the defaults](../src/defaults.ts) list every key.', '', 'See also `startServer`.', ''].join('\n');

/**
 * A repository whose latest commit renames `parseConfig` to `loadConfig` in src/config.ts and its
 * caller and moves src/defaults.ts to src/config-defaults.ts, while docs/guide.md (line 3) still
 * mentions the old name and links the old file. With the default detectors that is a docs drift
 * card for the moved file (`docs_drift.moved_path`) and its patch (`docs_drift.rename_diff`); the
 * rename's card is a candidate and gets no patch while names are held back (the default).
 */
export function makeRenameDriftRepo(): string {
  const repo = makeGitRepo();
  writeFile(repo, 'src/config.ts', 'export function parseConfig(text: string): Record<string, string> {\n  return JSON.parse(text);\n}\n');
  writeFile(repo, 'src/server.ts', "import { parseConfig } from './config';\nexport function startServer(raw: string) {\n  return parseConfig(raw);\n}\n");
  writeFile(repo, 'src/defaults.ts', "export const DEFAULTS = { port: '8080' };\n");
  writeFile(repo, 'docs/guide.md', GUIDE);
  git(repo, ['add', '-A']);
  git(repo, ['commit', '-q', '-m', 'config and guide']);
  writeFile(repo, 'src/config.ts', 'export function loadConfig(text: string): Record<string, string> {\n  return JSON.parse(text);\n}\n');
  writeFile(repo, 'src/server.ts', "import { loadConfig } from './config';\nexport function startServer(raw: string) {\n  return loadConfig(raw);\n}\n");
  git(repo, ['mv', 'src/defaults.ts', 'src/config-defaults.ts']);
  git(repo, ['commit', '-q', '-am', 'Rename parseConfig to loadConfig, move the defaults']);
  return repo;
}

/** Queues a warm cycle on the daemon at `port` and waits for its job to end; returns the job. */
export async function warmCycle(port: number): Promise<{ state: string; result?: Record<string, unknown> }> {
  const res = await rawRequest({ port, method: 'POST', path: '/prepare', headers: { 'content-type': 'application/json' }, body: '{}' });
  if (res.status !== 202) throw new Error(`POST /prepare answered ${res.status}: ${res.text}`);
  const id = res.json.job.id as string;
  return until(async () => {
    const job = (await rawRequest({ port, path: `/jobs/${id}` })).json.job;
    return ['completed', 'failed', 'timed_out', 'cancelled'].includes(job?.state) ? job : undefined;
  }, 60_000, 100);
}
