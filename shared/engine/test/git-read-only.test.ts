/**
 * Sous reads git without writing the repository. A tracked file whose mtime changed but whose content
 * did not (an editor's save-without-change, `touch`, a build tool) used to make `git diff HEAD`
 * rewrite `.git/index` through `index.lock`, and a `git commit` racing it failed on the lock. Here a
 * real repository with such a file, a staged change, a filter and a cached textconv driver goes
 * through a full index build, a preparation cycle with the default detectors and every git-backed
 * view method; `.git/index` keeps its bytes and mtime, no `index.lock` ever appears, and none of the
 * user's filter or textconv programs runs (each would have written a marker file).
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { defaultConfig } from '@sous/config';
import { RepositoryWatcher, buildRepositoryIndex, gitSignals, listCandidateFiles, scopePolicyFromConfig } from '@sous/retrieval';
import type { Store } from '@sous/store';
import { postgresFactory } from '../../store/test/helpers';
import { symbolParserPool } from '../../retrieval/src/symbols/parser-pool';
import { git, makeGitRepo, rmTempDir, writeFile } from '../../../test/support/tmp';
import { until } from '../../../test/support/wait';
import { createRepositoryView, defaultDetectors, runCycle } from '../src';

interface Snapshot {
  entries: Record<string, unknown>;
}
// eslint-disable-next-line @typescript-eslint/no-require-imports -- the CI script is plain JavaScript
const untouched = require('../../../scripts/ci/repo-untouched.js') as { snapshot(root: string): Snapshot; differences(a: Snapshot, b: Snapshot): string[] };

const config = defaultConfig();
const policy = scopePolicyFromConfig(config);
const factory = postgresFactory();
let store: Store;

beforeAll(async () => {
  store = await factory.open();
});

afterAll(async () => {
  symbolParserPool().release();
  await store?.close();
  await factory.cleanup();
});

function indexFile(repo: string): { sha256: string; mtimeMs: number } {
  const file = path.join(repo, '.git', 'index');
  return { sha256: createHash('sha256').update(fs.readFileSync(file)).digest('hex'), mtimeMs: fs.statSync(file).mtimeMs };
}

/** A history with a rename, a doc naming a removed function, and files under a filter and a textconv driver. */
function arrange(): string {
  const repo = makeGitRepo();
  // Both drivers are the user's programs: each leaves a marker in .git when git runs it.
  git(repo, ['config', 'filter.marker.clean', "sh -c 'touch .git/filter-ran; cat'"]);
  git(repo, ['config', 'filter.marker.smudge', 'cat']);
  git(repo, ['config', 'diff.marker.textconv', "sh -c 'touch .git/textconv-ran; cat \"$0\"'"]);
  git(repo, ['config', 'diff.marker.cachetextconv', 'true']);
  writeFile(repo, '.gitattributes', '*.gen.ts filter=marker diff=marker\n');
  writeFile(repo, 'src/config.ts', 'export function parseConfig(text: string): Record<string, string> {\n  return JSON.parse(text);\n}\n');
  writeFile(repo, 'src/util.ts', 'export function pad(s: string, n: number): string {\n  return s.padStart(n);\n}\n');
  writeFile(repo, 'docs/guide.md', '# Guide\n\nRead the settings with `parseConfig` before starting.\n');
  writeFile(repo, 'src/table.gen.ts', 'export const rows = [1, 2];\n');
  writeFile(repo, 'docs/two words.md', '# Notes\n');
  git(repo, ['add', '-A']);
  git(repo, ['commit', '-q', '-m', 'config, util, guide, table']);
  writeFile(repo, 'src/config.ts', 'export function loadConfig(text: string): Record<string, string> {\n  return JSON.parse(text);\n}\n');
  writeFile(repo, 'src/table.gen.ts', 'export const rows = [1, 2, 3];\n');
  git(repo, ['mv', 'src/util.ts', 'src/strings.ts']);
  git(repo, ['commit', '-q', '-am', 'Rename parseConfig to loadConfig; move util; grow the table']);
  return repo;
}

test('an index build, a preparation cycle and every git read leave .git/index and the repository untouched', async () => {
  const repo = arrange();
  try {
    // The user: stages one edit, touches two tracked files (mtime only), edits another, adds a file.
    writeFile(repo, 'src/strings.ts', 'export function pad(s: string, n: number, c = " "): string {\n  return s.padStart(n, c);\n}\n');
    git(repo, ['add', 'src/strings.ts']);
    const later = new Date(Date.now() + 60_000);
    fs.utimesSync(path.join(repo, 'src/config.ts'), later, later);
    fs.utimesSync(path.join(repo, 'src/table.gen.ts'), later, later);
    writeFile(repo, 'docs/guide.md', '# Guide\n\nRead the settings with `parseConfig` first.\n');
    writeFile(repo, 'src/new.ts', 'export const fresh = 1;\n');
    writeFile(repo, 'docs/two words.md', '# Notes\n\nMore.\n');
    // The user's own git ran the filter while arranging; from here on only Sous runs git.
    fs.rmSync(path.join(repo, '.git', 'filter-ran'), { force: true });
    fs.rmSync(path.join(repo, '.git', 'textconv-ran'), { force: true });
    const before = indexFile(repo);
    const everything = untouched.snapshot(repo);

    const seen: string[] = [];
    const watch = fs.watch(path.join(repo, '.git'), (_event, name) => seen.push(String(name)));
    try {
      const index = await buildRepositoryIndex(repo, policy);
      await gitSignals(repo);
      await listCandidateFiles(repo);
      const view = createRepositoryView(index, policy);
      const workspaceId = (await store.workspaces.upsertByRoot({ rootPath: repo })).id;
      await runCycle({ store, workspaceId, view, trigger: { kind: 'warm' }, config, detectors: defaultDetectors() });

      // Every git-backed read of the view, whether or not the detectors needed it on this repository.
      const changes = await view.git.uncommitted();
      expect(changes.map((c) => c.path).sort()).toEqual(['docs/guide.md', 'docs/two words.md', 'src/new.ts', 'src/strings.ts']);
      const [latest] = await view.git.recentCommits(5);
      expect(latest?.files.map((f) => f.path).sort()).toEqual(['src/config.ts', 'src/strings.ts', 'src/table.gen.ts']);
      await view.git.commitDiff(latest!.sha);
      expect(await view.git.nameAt(`${latest!.sha}^`, 'src/strings.ts')).toBe('src/util.ts');
      expect(await view.git.showAt('HEAD', 'src/table.gen.ts')).toBe('export const rows = [1, 2, 3];\n');
      expect(await view.git.isAncestor(`${latest!.sha}^`, latest!.sha)).toBe(true);
      expect((await view.git.history()).commits).toHaveLength(3);
      expect((await view.git.removals(['parseConfig'])).removing('parseConfig').map((c) => c.sha)).toEqual([latest!.sha]);
      const watcher = await RepositoryWatcher.start(repo, { onFiles: () => undefined, onHead: () => undefined, onResync: async () => undefined });
      await watcher.close();
      // Every path of the work tree and .git: same content, mode, mtime and ctime; none added or removed.
      expect(untouched.differences(everything, untouched.snapshot(repo))).toEqual([]);

      // inotify delivers in order: once the user's own sentinel shows up, any index.lock would have too.
      writeFile(repo, '.git/sentinel', 'x');
      await until(() => (seen.includes('sentinel') ? true : undefined), 5000);
      fs.rmSync(path.join(repo, '.git', 'sentinel'));
    } finally {
      watch.close();
    }

    expect(seen.filter((name) => name !== 'sentinel')).toEqual([]);
    expect(indexFile(repo)).toEqual(before);
    expect(fs.existsSync(path.join(repo, '.git', 'filter-ran'))).toBe(false);
    expect(fs.existsSync(path.join(repo, '.git', 'textconv-ran'))).toBe(false);
    expect(git(repo, ['status', '--porcelain']).split('\n').filter(Boolean).sort()).toEqual([' M "docs/two words.md"', ' M docs/guide.md', '?? src/new.ts', 'M  src/strings.ts']);
  } finally {
    rmTempDir(repo);
  }
}, 60_000);
