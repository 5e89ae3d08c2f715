import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { defaultConfig } from '@sous/config';
import {
  createScopePolicy,
  headCommit,
  listCandidateFiles,
  readScopedFile,
  scopeCoverage,
  scopePolicyFromConfig,
  ScopeError,
  type ScopedReadResult,
} from '../src/scope';
import { RealPaths } from '../src/scope/real-paths';
import { git, makeEmptyGitRepo, makeGitRepo, makeTempDir, rmTempDir, writeFile as write } from '../../../test/support/tmp';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmTempDir(d);
});

function track<T extends string>(dir: T): T {
  dirs.push(dir);
  return dir;
}

function initRepo(): string {
  return track(makeEmptyGitRepo('sous-scope-'));
}

function refusalOf(result: ScopedReadResult): string {
  if (result.ok) throw new Error(`expected a refusal, read ${result.file.path}`);
  return result.refusal.reason;
}

describe('listCandidateFiles', () => {
  it('lists tracked plus untracked-not-ignored files as POSIX paths', async () => {
    const dir = track(makeGitRepo());
    write(dir, '.gitignore', 'build/\n*.log\n');
    write(dir, 'src/new file.ts', 'export {};\n');
    write(dir, 'build/out.js', 'x');
    write(dir, 'debug.log', 'x');
    expect(await listCandidateFiles(dir)).toEqual(['.gitignore', 'README.md', 'src/index.ts', 'src/new file.ts']);
  });

  it('lists untracked files in a repository without commits, and nothing in an empty one', async () => {
    const empty = initRepo();
    expect(await listCandidateFiles(empty)).toEqual([]);
    expect(await headCommit(empty)).toBeNull();
    write(empty, 'src/a.ts', 'export const a = 1;\n');
    expect(await listCandidateFiles(empty)).toEqual(['src/a.ts']);
  });

  it('gives a typed error outside a repository and for a missing root', async () => {
    const plain = track(makeTempDir('sous-plain-'));
    const err = await listCandidateFiles(plain).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ScopeError);
    expect((err as ScopeError).code).toBe('not_a_repository');
    expect((err as ScopeError).message).toContain('is not a git repository');
    await expect(headCommit(plain)).rejects.toMatchObject({ code: 'not_a_repository' });
    await expect(listCandidateFiles(path.join(plain, 'missing'))).rejects.toMatchObject({ code: 'root_not_found' });
  });

  it('headCommit names HEAD', async () => {
    const dir = track(makeGitRepo());
    expect(await headCommit(dir)).toBe(git(dir, ['rev-parse', 'HEAD']).trim());
  });
});

describe('readScopedFile', () => {
  const policy = scopePolicyFromConfig(defaultConfig());

  it('reads an in-scope file with hash, size and language', async () => {
    const dir = track(makeGitRepo());
    const result = await readScopedFile(dir, 'src/index.ts', policy);
    expect(result).toEqual({
      ok: true,
      file: {
        path: 'src/index.ts',
        text: 'export const answer = 42;\n',
        sha256: createHash('sha256').update('export const answer = 42;\n').digest('hex'),
        bytes: 26,
        language: 'typescript',
      },
    });
    const again = await readScopedFile(dir, './src//index.ts', policy);
    expect(again.ok && result.ok && again.file.sha256 === result.file.sha256).toBe(true);
  });

  it('never reads planted secrets, whatever the path says', async () => {
    const dir = track(makeGitRepo());
    write(dir, 'src/.env', 'TOKEN=abc\n');
    write(dir, 'src/config/secrets.json', '{"k":"v"}\n');
    write(dir, 'src/deep/credentials.yml', 'k: v\n');
    write(dir, 'lib/a.ts', 'export {};\n');
    git(dir, ['add', '-A']);
    for (const rel of ['src/.env', 'src/config/secrets.json', 'src/deep/credentials.yml', 'lib/a.ts', '.git/config']) {
      expect([rel, refusalOf(await readScopedFile(dir, rel, policy))]).toEqual([rel, 'out_of_scope']);
    }
    // A symlink inside the scope that points at an excluded file is refused too.
    fs.symlinkSync('.env', path.join(dir, 'src', 'settings.txt'));
    expect(refusalOf(await readScopedFile(dir, 'src/settings.txt', policy))).toBe('out_of_scope');
  });

  it('refuses paths and symlinks that leave the root', async () => {
    const dir = track(makeGitRepo());
    const outside = track(makeTempDir('sous-outside-'));
    write(outside, 'secret.ts', 'export const s = 1;\n');
    fs.symlinkSync(path.join(outside, 'secret.ts'), path.join(dir, 'src', 'link.ts'));
    fs.symlinkSync(outside, path.join(dir, 'src', 'linked-dir'));
    const open = createScopePolicy({ allowedPaths: ['**'], excludedPatterns: [] });
    expect(refusalOf(await readScopedFile(dir, 'src/link.ts', open))).toBe('outside_root');
    expect(refusalOf(await readScopedFile(dir, 'src/linked-dir/secret.ts', open))).toBe('outside_root');
    expect(refusalOf(await readScopedFile(dir, '../x.ts', open))).toBe('outside_root');
    expect(refusalOf(await readScopedFile(dir, 'src/../../x.ts', open))).toBe('outside_root');
    expect(refusalOf(await readScopedFile(dir, path.join(outside, 'secret.ts'), open))).toBe('invalid_path');
    expect(refusalOf(await readScopedFile(dir, '', open))).toBe('invalid_path');
  });

  it('with folders resolved once for a pass, symlinks are refused alike and plain files read alike', async () => {
    const dir = track(makeGitRepo());
    const outside = track(makeTempDir('sous-outside-'));
    write(outside, 'secret.ts', 'export const s = 1;\n');
    write(dir, 'src/.env', 'TOKEN=abc\n');
    write(dir, 'src/deep/er/mod.ts', 'export const m = 1;\n');
    fs.symlinkSync(path.join(outside, 'secret.ts'), path.join(dir, 'src', 'link.ts'));
    fs.symlinkSync(outside, path.join(dir, 'src', 'linked-dir'));
    fs.symlinkSync('.env', path.join(dir, 'src', 'settings.txt'));
    fs.symlinkSync('deep', path.join(dir, 'src', 'alias'));
    // The repository reached through a symlinked path of its own.
    const viaLink = path.join(track(makeTempDir('sous-via-')), 'repo');
    fs.symlinkSync(dir, viaLink);
    const open = createScopePolicy({ allowedPaths: ['**'], excludedPatterns: ['**/.env'] });
    for (const root of [dir, viaLink]) {
      const realPaths = new RealPaths(root);
      const read = (rel: string) => readScopedFile(root, rel, open, { realPaths });
      expect(refusalOf(await read('src/link.ts'))).toBe('outside_root');
      expect(refusalOf(await read('src/linked-dir/secret.ts'))).toBe('outside_root');
      expect(refusalOf(await read('src/settings.txt'))).toBe('out_of_scope');
      expect(refusalOf(await read('src/gone/x.ts'))).toBe('not_found');
      expect(refusalOf(await read('src/gone/y.ts'))).toBe('not_found');
      const plain = await read('src/deep/er/mod.ts');
      expect(plain).toEqual(await readScopedFile(root, 'src/deep/er/mod.ts', open));
      expect(plain.ok && plain.file.text).toBe('export const m = 1;\n');
      // A symlinked folder inside the root resolves to its target, which is in scope.
      expect((await read('src/alias/er/mod.ts')).ok).toBe(true);
    }
  });

  it('refuses binaries, oversized files, folders and missing files', async () => {
    const dir = track(makeGitRepo());
    write(dir, 'src/logo.png', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00]));
    write(dir, 'src/big.ts', 'x'.repeat(2000));
    const tooBig = await readScopedFile(dir, 'src/big.ts', policy, { maxBytes: 1000 });
    expect(refusalOf(tooBig)).toBe('too_large');
    expect(tooBig.ok ? '' : tooBig.refusal.message).toBe('src/big.ts is 2000 bytes, over the 1000-byte limit; it is not read');
    expect((await readScopedFile(dir, 'src/big.ts', policy)).ok).toBe(true);
    expect(refusalOf(await readScopedFile(dir, 'src/logo.png', policy))).toBe('binary');
    expect(refusalOf(await readScopedFile(dir, 'src', createScopePolicy({ allowedPaths: ['**'], excludedPatterns: [] })))).toBe('not_a_file');
    expect(refusalOf(await readScopedFile(dir, 'src/gone.ts', policy))).toBe('not_found');
  });

  it('redacts key-like strings unless asked not to; the hash is of the bytes on disk', async () => {
    const dir = track(makeGitRepo());
    const key = `sk-${'a'.repeat(24)}`;
    write(dir, 'src/client.ts', `const key = '${key}';\n`);
    const redacted = await readScopedFile(dir, 'src/client.ts', policy);
    const raw = await readScopedFile(dir, 'src/client.ts', policy, { redact: false });
    expect(redacted.ok && redacted.file.text).toBe("const key = '[redacted]';\n");
    expect(raw.ok && raw.file.text).toBe(`const key = '${key}';\n`);
    expect(redacted.ok && raw.ok && redacted.file.sha256 === raw.file.sha256).toBe(true);
  });

  it('detects a script language from its shebang', async () => {
    const dir = track(makeGitRepo());
    write(dir, 'src/bin/tool', '#!/usr/bin/env python3\nprint(1)\n');
    const result = await readScopedFile(dir, 'src/bin/tool', policy);
    expect(result.ok && result.file.language).toBe('python');
  });
});

describe('scopeCoverage', () => {
  it('never suggests a glob already allowed: a file named with a newline is inside src/**', async () => {
    const dir = initRepo();
    write(dir, 'src/a\nb.py', 'def odd_name():\n    return 1\n');
    write(dir, 'src/ok.py', 'pass\n');
    git(dir, ['add', '-A']);
    git(dir, ['commit', '-q', '-m', 'odd name']);
    expect(await listCandidateFiles(dir)).toEqual(['src/a\nb.py', 'src/ok.py']);

    const coverage = await scopeCoverage(dir, scopePolicyFromConfig(defaultConfig()));
    expect(coverage).toMatchObject({ total: 2, inScope: 2, outOfScope: 0, outOfScopeCode: 0, suggestedGlobs: [] });
  });

  it('counts what the scope leaves out and suggests globs for lib/ and packages/ code', async () => {
    const dir = initRepo();
    write(dir, 'lib/a.ts', 'export {};\n');
    write(dir, 'lib/b.ts', 'export {};\n');
    write(dir, 'lib/notes.md', '# notes\n');
    write(dir, 'packages/core/src/index.ts', 'export {};\n');
    write(dir, 'packages/core/package.json', '{}\n');
    write(dir, 'docs/guide.md', '# guide\n');
    write(dir, 'vendor/dep.js', 'x;\n');
    write(dir, '.github/scripts/ci.sh', 'echo\n');
    write(dir, 'setup.py', 'pass\n');
    write(dir, 'README.md', '# r\n');
    write(dir, 'lib/credentials.ts', 'export {};\n');
    write(dir, 'secrets/x.py', 'pass\n');
    git(dir, ['add', '-A']);
    git(dir, ['commit', '-q', '-m', 'layout']);

    const policy = scopePolicyFromConfig(defaultConfig());
    const coverage = await scopeCoverage(dir, policy);
    expect(coverage).toMatchObject({ total: 12, inScope: 1, outOfScope: 11, outOfScopeCode: 8 });
    expect(coverage.suggestedGlobs).toEqual(['lib/**', 'packages/**', '*.py']);
    expect(coverage.byTopLevel.find((f) => f.folder === 'lib')).toEqual({ folder: 'lib', inScope: 0, outOfScope: 4, outOfScopeCode: 3 });
    expect(coverage.byTopLevel.find((f) => f.folder === '.')).toEqual({ folder: '.', inScope: 0, outOfScope: 2, outOfScopeCode: 1 });
    // Only a suggestion: the policy itself is unchanged.
    expect(policy.allowedPaths).toEqual(['src/**', 'docs/**']);
    expect(policy.inScope('lib/a.ts')).toBe(false);

    const widened = createScopePolicy({ allowedPaths: [...policy.allowedPaths, ...coverage.suggestedGlobs], excludedPatterns: policy.excludedPatterns });
    const after = await scopeCoverage(dir, widened);
    expect(after.suggestedGlobs).toEqual([]);
    expect(after.inScope).toBe(7);
  });
});
