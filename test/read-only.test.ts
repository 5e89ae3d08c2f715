/**
 * Sous never writes to the repository: a full index and a watch session with edits (the user's,
 * made by this test) leave git's status, HEAD, .git/index and every file's mtime exactly as the user
 * left them. Only `.sous/` (ignored by its own .gitignore) is Sous's.
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { freePort, gitSnapshot, sous } from './support/cli';
import { rawRequest } from './support/http';
import { git, makeGitRepo, rmTempDir, writeFile } from './support/tmp';
import { embeddedTopology } from './support/topologies';
import { until } from './support/wait';

/** mtime of every file in the worktree and in .git (except .sous/), by path. */
function mtimes(root: string): Map<string, number> {
  const out = new Map<string, number>();
  const walk = (dir: string): void => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      const rel = path.relative(root, full);
      if (rel === '.sous') continue;
      if (entry.isDirectory()) walk(full);
      else out.set(rel, fs.statSync(full).mtimeMs);
    }
  };
  walk(root);
  return out;
}

function indexFile(root: string): { sha256: string; mtimeMs: number } {
  const file = path.join(root, '.git', 'index');
  return { sha256: createHash('sha256').update(fs.readFileSync(file)).digest('hex'), mtimeMs: fs.statSync(file).mtimeMs };
}

test('a full index and a watch session with edits leave the repository exactly as the user left it', async () => {
  const repo = makeGitRepo();
  const env = await embeddedTopology().env();
  try {
    for (let i = 0; i < 40; i++) writeFile(repo, `src/mod${i}.ts`, `export function handler${i}() {\n  return ${i};\n}\n`);
    writeFile(repo, 'docs/guide.md', '# Guide\n');
    git(repo, ['add', '-A']);
    git(repo, ['commit', '-q', '-m', 'modules']);
    writeFile(repo, 'src/dirty.ts', 'export const uncommitted = true;\n');

    const before = { git: gitSnapshot(repo), index: indexFile(repo), mtimes: mtimes(repo) };
    const port = await freePort();
    expect((await sous(['up', '--path', repo, '--port', String(port)], { env })).code).toBe(0);
    await until(async () => ((await rawRequest({ port, path: '/status' })).json.index?.state === 'ready' ? true : undefined), 60_000);
    const ask = (prompt: string) => rawRequest({ port, method: 'POST', path: '/v1/context', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ prompt, top_n: 3 }) });

    // The user edits while Sous watches: a save, a new file, a deletion; Sous takes each in.
    writeFile(repo, 'src/mod3.ts', 'export function settleInvoices() {}\n');
    writeFile(repo, 'src/added.ts', 'export function freshlyAdded() {}\n');
    fs.rmSync(path.join(repo, 'src/mod7.ts'));
    await until(async () => ((await ask('settleInvoices freshlyAdded')).json.items?.length === 2 ? true : undefined), 10_000);
    await until(async () => (!(await ask('handler7')).json.items.some((i: { path: string }) => i.path === 'src/mod7.ts') ? true : undefined), 10_000);
    const edited = new Map([...mtimes(repo)].filter(([rel]) => ['src/mod3.ts', 'src/added.ts'].includes(rel)));
    const expectedPorcelain = gitSnapshot(repo).porcelain;
    const expectedIndex = indexFile(repo);
    // Let Sous run on for a while (queries, a `sous context`, a config reload) after the last edit.
    expect((await sous(['context', '--path', repo, '--prompt', 'handler12', '--json'], { env })).json.items[0].path).toBe('src/mod12.ts');
    expect((await sous(['config', 'set', 'privacy.excluded_patterns', '["**/*.env", "**/secrets/**"]', '--path', repo], { env })).code).toBe(0);
    await new Promise((r) => setTimeout(r, 1500));
    expect((await sous(['down', '--path', repo], { env })).code).toBe(0);

    const after = { git: gitSnapshot(repo), index: indexFile(repo), mtimes: mtimes(repo) };
    expect(after.git.head).toBe(before.git.head);
    expect(after.git.porcelain).toBe(expectedPorcelain);
    expect(after.git.porcelain.split('\n').filter(Boolean).sort()).toEqual(['?? src/added.ts', '?? src/dirty.ts', ' D src/mod7.ts', ' M src/mod3.ts'].sort());
    // Sous ran git only with optional locks off: .git/index is byte-for-byte and mtime-for-mtime the user's.
    expect(after.index).toEqual(before.index);
    expect(expectedIndex).toEqual(before.index);
    for (const [rel, mtime] of after.mtimes) {
      if (rel.startsWith('.git/') || rel === '.git') continue;
      expect({ rel, mtime }).toEqual({ rel, mtime: edited.get(rel) ?? before.mtimes.get(rel) });
    }
    // Nothing under .git changed except what git itself does for a read (no new files, no rewrites).
    for (const [rel, mtime] of before.mtimes) if (rel.startsWith('.git/')) expect({ rel, mtime: after.mtimes.get(rel) }).toEqual({ rel, mtime });
  } finally {
    await sous(['down', '--path', repo], { env });
    rmTempDir(repo);
  }
}, 120_000);
