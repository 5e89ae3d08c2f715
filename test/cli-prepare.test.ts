/**
 * `sous prepare`: the one-shot preparation command for scripts and CI, on real repositories. Without
 * a daemon it runs a cycle in the workspace's own store; with one it asks the daemon to run it. A
 * planted doc drift becomes a ready card; `--fail-on` turns chosen kinds into a failing exit code;
 * the repository is never changed.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { firstRunNotice, freePort, gitSnapshot, sous } from './support/cli';
import { rawRequest } from './support/http';
import { git, makeGitRepo, makeTempDir, rmTempDir, writeFile } from './support/tmp';
import { until } from './support/wait';

interface Item {
  id: string;
  kind: string;
  title: string;
  summary: string;
  claim?: string;
  action: string;
  evidence: Array<{ path: string; line_start: number | null; line_end: number | null; commit: string | null; note: string }>;
  actions: string[];
}

const KINDS = ['review_note', 'bug_hypothesis', 'docs_drift', 'virtual_diff', 'research_brief', 'prediction_draft'];

/**
 * A repository whose guide still names `parseConfig` and links src/defaults.ts after a later commit
 * renamed the one to `loadConfig` and moved the other: a ready docs_drift card for the moved file, and
 * a candidate for the renamed name (names are held back by default, patches off).
 */
function makeDriftRepo(): string {
  const repo = makeGitRepo();
  writeFile(repo, 'src/config.ts', 'export function parseConfig(text: string): Record<string, string> {\n  return JSON.parse(text);\n}\n');
  writeFile(repo, 'src/defaults.ts', "export const DEFAULTS = { port: '8080' };\n");
  writeFile(repo, 'docs/guide.md', '# Guide\n\nRead the settings with `parseConfig` before starting; [the defaults](../src/defaults.ts) list every key.\n');
  git(repo, ['add', '-A']);
  git(repo, ['commit', '-q', '-m', 'config and guide']);
  writeFile(repo, 'src/config.ts', 'export function loadConfig(text: string): Record<string, string> {\n  return JSON.parse(text);\n}\n');
  git(repo, ['mv', 'src/defaults.ts', 'src/config-defaults.ts']);
  git(repo, ['commit', '-q', '-am', 'Rename parseConfig to loadConfig, move the defaults']);
  return repo;
}

function oneLine(stderr: string): string[] {
  return stderr.trim().split('\n');
}

describe('sous prepare', () => {
  test('without a daemon: a planted doc drift becomes a ready docs_drift card citing the guide; the repository is untouched', async () => {
    const repo = makeDriftRepo();
    try {
      const before = gitSnapshot(repo);
      const rename = git(repo, ['rev-parse', 'HEAD']).trim();

      const res = await sous(['prepare', '--path', repo, '--json']);
      expect(res.stderr).toBe(firstRunNotice(repo));
      expect(res.code).toBe(0);
      expect(res.json).toMatchObject({ workspace: repo, cycle: { answered_by: 'cli' } });
      expect(res.json.cycle.duration_ms).toEqual(expect.any(Number));
      const items = res.json.items as Item[];
      const drift = items.find((i) => i.kind === 'docs_drift');
      expect(drift).toBeDefined();
      expect(drift!.evidence[0]).toMatchObject({ path: 'docs/guide.md', line_start: 3 });
      expect(drift!.evidence.some((e) => e.commit === rename)).toBe(true);
      expect(drift!.claim).toMatch(/^[0-9a-f]{40}\|path$/); // one card per removing commit and kind of mention
      expect(drift!.title).toContain('src/defaults.ts');
      expect(drift!.title).toContain('moved to `src/config-defaults.ts`');
      expect(drift!.actions).toEqual(expect.arrayContaining(['inspect', 'export']));
      // The move's patch is offered (docs_drift.rename_diff); the renamed name, held back, gets none.
      const patches = items.filter((i) => i.kind === 'virtual_diff');
      expect(patches.map((i) => i.title)).toEqual([expect.stringContaining('`src/defaults.ts` → `src/config-defaults.ts`')]);
      expect(res.json.cycle.landed).toBeGreaterThanOrEqual(1);

      // Nothing changed: the next run keeps the same cards and lands none.
      const again = await sous(['prepare', '--path', repo, '--json']);
      expect(again.code).toBe(0);
      expect(again.json.cycle.landed).toBe(0);
      expect((again.json.items as Item[]).map((i) => i.id).sort()).toEqual(items.map((i) => i.id).sort());

      // The renamed function's card is made but held back (docs drift's names, exploration.detectors_held):
      // never among the ready items, listed with --diagnostic with the reason.
      expect(items.some((i) => i.title.includes('`parseConfig`'))).toBe(false);
      expect(again.json.candidates).toBeUndefined();
      const diagnostic = await sous(['prepare', '--path', repo, '--json', '--diagnostic']);
      expect(diagnostic.code).toBe(0);
      expect((diagnostic.json.items as Item[]).map((i) => i.id).sort()).toEqual(items.map((i) => i.id).sort());
      const name = (diagnostic.json.candidates as Array<Item & { score: number; reason: string }>).find((c) => c.title.includes('`parseConfig`'));
      expect(name).toMatchObject({ kind: 'docs_drift', evidence: expect.arrayContaining([expect.objectContaining({ path: 'docs/guide.md', line_start: 3 })]) });
      expect(name!.title).toContain('renamed to `loadConfig`');
      expect(name!.reason).toMatch(/exploration\.detectors_held/);
      expect(name!.score).toEqual(expect.any(Number));
      const diagnosticText = await sous(['prepare', '--path', repo, '--diagnostic']);
      expect(diagnosticText.code).toBe(0);
      expect(diagnosticText.stdout).toMatch(/candidates?, not in the feed/);
      expect(diagnosticText.stdout).toMatch(/`parseConfig`[^\n]*\n(?: {2}[^\n]*\n)*? {2}\(candidate, score [0-9.]+: its detector is held back/);

      const failing = await sous(['prepare', '--path', repo, '--json', '--fail-on', 'docs_drift,virtual_diff']);
      expect(failing.code).toBe(1);
      expect(oneLine(failing.stderr)).toHaveLength(1);
      expect(failing.stderr).toMatch(/ready card.*docs_drift/);
      expect(failing.json.items.length).toBe(items.length);

      const passing = await sous(['prepare', '--path', repo, '--fail-on', 'research_brief']);
      expect(passing.code).toBe(0);
      expect(passing.stdout).toMatch(/docs_drift {2}.*src\/defaults\.ts/);
      expect(passing.stdout).toMatch(/docs\/guide\.md:3/);

      // State lives in .sous/, which ignores itself: git sees no change.
      expect(fs.readFileSync(path.join(repo, '.sous', '.gitignore'), 'utf8').trim()).toBe('*');
      expect(gitSnapshot(repo)).toEqual(before);
    } finally {
      rmTempDir(repo);
    }
  }, 240_000);

  test('a clean repository prepares nothing and exits 0, with or without --fail-on', async () => {
    const repo = makeGitRepo();
    try {
      writeFile(repo, 'docs/usage.md', '# Usage\n\nThe answer is `answer`, exported from src/index.ts.\n');
      git(repo, ['add', '-A']);
      git(repo, ['commit', '-q', '-m', 'usage']);
      const before = gitSnapshot(repo);

      const res = await sous(['prepare', '--path', repo, '--json', '--fail-on', 'docs_drift,virtual_diff']);
      expect(res.stderr).toBe(firstRunNotice(repo));
      expect(res.code).toBe(0);
      expect(res.json.items).toEqual([]);
      expect(res.json.cycle).toMatchObject({ landed: 0, ready: 0, answered_by: 'cli' });

      const text = await sous(['prepare', '--path', repo]);
      expect(text.code).toBe(0);
      expect(text.stdout).toMatch(/No ready Prepared Work/);
      expect(gitSnapshot(repo)).toEqual(before);
    } finally {
      rmTempDir(repo);
    }
  }, 180_000);

  test('an unknown --fail-on kind exits 2 with one line naming the allowed kinds; a non-repository is refused', async () => {
    const repo = makeGitRepo();
    const plain = makeTempDir();
    try {
      for (const value of ['nonsense', 'docs_drift,nonsense', ',']) {
        const res = await sous(['prepare', '--path', repo, '--fail-on', value]);
        expect(res.code).toBe(2);
        expect(oneLine(res.stderr)).toHaveLength(1);
        expect(res.stderr).toMatch(/--fail-on/);
        for (const kind of KINDS) expect(res.stderr).toContain(kind);
      }
      expect(await sous(['prepare', '--path', repo, '--fail-on', 'nonsense'])).toMatchObject({ stdout: '' });
      // Input is checked before anything is created.
      expect(fs.existsSync(path.join(repo, '.sous'))).toBe(false);

      const refused = await sous(['prepare', '--path', plain]);
      expect(refused.code).not.toBe(0);
      expect(oneLine(refused.stderr)).toHaveLength(1);
      expect(refused.stderr).toMatch(/not a git repository/);
      expect(refused.stdout).toBe('');
      // With --json the same refusal is JSON on stdout (docs/errors.md).
      const refusedJson = await sous(['prepare', '--path', plain, '--json']);
      expect(refusedJson).toMatchObject({ code: refused.code, stderr: '', json: { error: { code: 'failed', exit_code: refused.code } } });
      expect(refusedJson.json.error.message).toMatch(/not a git repository/);
      expect(fs.existsSync(path.join(plain, '.sous'))).toBe(false);
    } finally {
      rmTempDir(repo);
      rmTempDir(plain);
    }
  });

  test('with a running daemon: the daemon runs the cycle and the CLI lists its ready cards', async () => {
    const repo = makeDriftRepo();
    const port = await freePort();
    try {
      const before = gitSnapshot(repo);
      const up = await sous(['up', '--path', repo, '--port', String(port), '--json']);
      expect(up.code).toBe(0);
      await until(async () => ((await rawRequest({ port, path: '/status' })).json?.index?.state === 'ready' ? true : undefined), 60_000, 100);

      const res = await sous(['prepare', '--path', repo, '--json']);
      expect(res.stderr).toBe(''); // the daemon's store: nothing to create
      expect(res.code).toBe(0);
      expect(res.json.cycle).toMatchObject({ answered_by: 'daemon' });
      expect(res.json.cycle.id).toEqual(expect.any(String));
      const drift = (res.json.items as Item[]).find((i) => i.kind === 'docs_drift');
      expect(drift).toBeDefined();
      expect(drift!.evidence[0]).toMatchObject({ path: 'docs/guide.md', line_start: 3 });
      expect(drift!.claim).toMatch(/^[0-9a-f]{40}\|path$/); // one card per removing commit and kind of mention
      expect(drift!.title).toContain('src/defaults.ts');

      // The daemon's candidates too: the held name card, with its reason.
      const diagnostic = await sous(['prepare', '--path', repo, '--json', '--diagnostic']);
      expect(diagnostic.code).toBe(0);
      const name = (diagnostic.json.candidates as Array<Item & { reason: string }>).find((c) => c.title.includes('`parseConfig`'));
      expect(name?.reason).toMatch(/exploration\.detectors_held/);

      const failing = await sous(['prepare', '--path', repo, '--fail-on', 'docs_drift']);
      expect(failing.code).toBe(1);
      expect(oneLine(failing.stderr)).toHaveLength(1);
      expect(failing.stdout).toMatch(/docs\/guide\.md:3/);
      expect(gitSnapshot(repo)).toEqual(before);
    } finally {
      await sous(['down', '--path', repo]);
      rmTempDir(repo);
    }
  }, 240_000);
});
