/** A small multi-language git repository for the indexer tests (real files, real git). */
import { defaultConfig } from '@sous/config';
import { scopePolicyFromConfig, type ScopePolicy } from '../src/scope';
import { git, makeGitRepo, rmTempDir, writeFile } from '../../../test/support/tmp';
import type { ContextResult } from '../src/indexer';

/** A key-like value the default `privacy.redact_patterns` matches. */
export const SECRET = 'sk-test0123456789abcdefghijklmnop';

/** The default privacy scope: `src/**` and `docs/**`, `*.env` excluded, `sk-…` redacted. */
export function defaultPolicy(): ScopePolicy {
  return scopePolicyFromConfig(defaultConfig());
}

export { git, writeFile as write };

export function commit(dir: string, files: Record<string, string>, isoDate: string): void {
  for (const [rel, content] of Object.entries(files)) writeFile(dir, rel, content);
  git(dir, ['add', '-A']);
  git(dir, ['commit', '-q', '-m', `change at ${isoDate}`], { GIT_AUTHOR_DATE: isoDate, GIT_COMMITTER_DATE: isoDate });
}

export const FILES: Record<string, string> = {
  'src/app/repo.ts': [
    'export interface Account { id: string; name: string }',
    '',
    'export class AccountStore {',
    '  private readonly rows = new Map<string, Account>();',
    '  save(account: Account): void {',
    '    this.rows.set(account.id, account);',
    '  }',
    '  find(id: string): Account | undefined {',
    '    return this.rows.get(id);',
    '  }',
    '}',
    '',
  ].join('\n'),
  'src/app/user.ts': [
    "import { AccountStore, type Account } from './repo';",
    '',
    'const store = new AccountStore();',
    '',
    '/** Loads the profile of one account. */',
    'export function loadUserProfile(id: string): Account | undefined {',
    '  return store.find(id);',
    '}',
    '',
  ].join('\n'),
  'src/app/handler.ts': [
    "import { loadUserProfile } from './user';",
    '',
    'export function handleRequest(id: string): string {',
    '  const profile = loadUserProfile(id);',
    "  return profile === undefined ? 'missing' : profile.name;",
    '}',
    '',
  ].join('\n'),
  'src/app/notes.ts': [
    '// Notes: loadUserProfile is called from the handler; loadUserProfile may return undefined.',
    '// When loadUserProfile returns undefined the handler answers missing.',
    'export const NOTES = 1;',
    '',
  ].join('\n'),
  'src/app/config.ts': [
    '// Billing provider settings.',
    `export const billingApiKey = '${SECRET}';`,
    "export const billingEndpoint = 'https://billing.example.com';",
    '',
  ].join('\n'),
  'src/pricing/__init__.py': '',
  'src/pricing/discount.py': [
    'def apply_discount(total, quantity):',
    '    """Price per unit after the discount."""',
    '    return total / quantity',
    '',
  ].join('\n'),
  'src/pricing/api.py': [
    'from .discount import apply_discount',
    '',
    'def post_order(request):',
    '    return apply_discount(request.total, request.quantity)',
    '',
  ].join('\n'),
  'docs/guide.md': '# Guide\n\nHow requests are handled.\n',
  // Excluded by `*.env` although inside `src/`.
  'src/prod.env': `BILLING_KEY=${SECRET}\n`,
  // Outside `privacy.allowed_paths`.
  'scripts/deploy.ts': "export const deployTarget = 'production'; // billingApiKey deploy\n",
};

/**
 * The fixture repository: `makeGitRepo`'s README.md and src/index.ts, then FILES in a first commit and
 * two later commits that change src/app/handler.ts and docs/guide.md together (a co-change pair).
 */
export function makeFixtureRepo(): string {
  const dir = makeGitRepo('sous-indexer-');
  commit(dir, FILES, '2024-01-01T00:00:00Z');
  commit(dir, { 'src/app/handler.ts': `${FILES['src/app/handler.ts']}// v2\n`, 'docs/guide.md': '# Guide v2\n' }, '2024-02-01T00:00:00Z');
  commit(dir, { 'src/app/handler.ts': `${FILES['src/app/handler.ts']}// v3\n`, 'docs/guide.md': '# Guide v3\n' }, '2024-03-01T00:00:00Z');
  return dir;
}

const created: string[] = [];

/** A fresh fixture repository, removed by `cleanupFixtures` (call it in afterEach). */
export function fixture(): string {
  const dir = makeFixtureRepo();
  created.push(dir);
  return dir;
}

/** Removes `dir` with the fixtures at cleanup. */
export function trackForCleanup(dir: string): string {
  created.push(dir);
  return dir;
}

export function cleanupFixtures(): void {
  for (const d of created.splice(0)) rmTempDir(d);
}

/** The item paths of a result, in rank order. */
export const resultPaths = (result: ContextResult): string[] => result.items.map((i) => i.path);
