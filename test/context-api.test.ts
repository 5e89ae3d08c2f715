/**
 * `POST /v1/context` from the separate context process, against the index the daemon stored, in
 * both topologies: embedded (the context process reads through the daemon, which alone may open
 * PGlite) and server (it reads PostgreSQL itself). Real CLI processes, real git, real HTTP.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { CLI, freePort, gitSnapshot, sous } from './support/cli';
import { rawRequest } from './support/http';
import { makeGitRepo, rmTempDir, writeFile } from './support/tmp';
import { embeddedTopology, serverTopology } from './support/topologies';
import { until } from './support/wait';

const KEY = 'sk-abcdefghijklmnopqrstuvwxyz0123';

interface Item { rank: number; path: string; score: number; tokens: number; rationale: { signal: string }[]; snippet: { start_line: number; end_line: number; text: string } }

// One process in the embedded topology, two workers (each its own replica) on PostgreSQL.
describe.each([
  { ...embeddedTopology(), workers: '1' },
  { ...serverTopology('ctxapi'), workers: '2' },
])('context API, $name, SOUS_CONTEXT_WORKERS=$workers', (topology) => {
  let repo: string;
  let env: NodeJS.ProcessEnv;
  let daemonPort: number;
  let port: number;
  let context: ChildProcess;
  let before: ReturnType<typeof gitSnapshot>;

  const ask = (body: unknown, p = port) =>
    rawRequest({ port: p, method: 'POST', path: '/v1/context', headers: { 'content-type': 'application/json' }, body: typeof body === 'string' ? body : JSON.stringify(body) });
  const paths = (items: Item[]) => items.map((i) => i.path);

  beforeAll(async () => {
    repo = makeGitRepo();
    writeFile(repo, 'src/user.ts', 'export function getUserName(id: string): string {\n  return lookup(id).name;\n}\n');
    writeFile(repo, 'src/report.ts', "import { getUserName } from './user';\nexport const line = (id: string) => `user ${getUserName(id)}`;\n");
    writeFile(repo, 'src/billing.ts', `// billing provider\nexport const billingToken = '${KEY}';\n`);
    writeFile(repo, 'src/prod.env', `BILLING_TOKEN=${KEY}\n`);
    writeFile(repo, 'scripts/deploy.ts', 'export const getUserNameDeploy = 1; // billingToken\n');
    before = gitSnapshot(repo);
    env = await topology.env();
    daemonPort = await freePort();
    // The user's own scope, set before the first start: scripts/ stays out (on a new config init would
    // take it in, since code lives there).
    expect((await sous(['init', '--path', repo], { env })).code).toBe(0);
    expect((await sous(['config', 'set', 'privacy.allowed_paths', '["src/**","docs/**"]', '--path', repo], { env })).code).toBe(0);
    const up = await sous(['up', '--path', repo, '--port', String(daemonPort), '--json'], { env });
    expect(up.code).toBe(0);
    await until(async () => ((await rawRequest({ port: daemonPort, path: '/status' })).json.index?.state === 'ready' ? true : undefined), 60_000);
    port = await freePort();
    context = spawn(process.execPath, [CLI, 'proxy', '--context-only', '--path', repo, '--port', String(port)], { env: { ...env, SOUS_CONTEXT_WORKERS: topology.workers }, stdio: 'ignore' });
    await until(async () => ((await ask({ prompt: 'getUserName' }).catch(() => undefined))?.status === 200 ? true : undefined), 30_000);
  }, 120_000);

  afterAll(async () => {
    context?.kill('SIGTERM');
    await sous(['down', '--path', repo], { env });
    await topology.cleanup();
    rmTempDir(repo);
  }, 60_000);

  test('answers from the stored index: ranked files with score, rationale, snippet and tokens, like the daemon', async () => {
    const res = await ask({ prompt: 'getUserName returns undefined for new users', top_n: 3 });
    expect(res.status).toBe(200);
    const items = res.json.items as Item[];
    expect(items[0]).toMatchObject({ rank: 1, path: 'src/user.ts' });
    expect(items[0]!.rationale.map((r) => r.signal)).toContain('symbol_defined');
    expect(items[0]!.snippet.text).toContain('getUserName');
    expect(items[0]!.tokens).toBeGreaterThan(0);
    expect(paths(items)).toContain('src/report.ts');
    const scores = items.map((i) => i.score);
    expect([...scores].sort((a, b) => b - a)).toEqual(scores);
    expect(res.json.stats).toMatchObject({ index_state: 'ready', files_indexed: 4 });
    const fromDaemon = await ask({ prompt: 'getUserName returns undefined for new users', top_n: 3 }, daemonPort);
    expect(paths(fromDaemon.json.items)).toEqual(paths(items));
  });

  test('never answers with an excluded or out-of-scope file, and redacts a planted sk- key', async () => {
    const res = await ask({ prompt: `billingToken ${KEY} in src/prod.env and scripts/deploy.ts getUserNameDeploy`, top_n: 50 });
    expect(res.status).toBe(200);
    expect(paths(res.json.items)).toContain('src/billing.ts');
    expect(paths(res.json.items)).not.toContain('src/prod.env');
    expect(paths(res.json.items)).not.toContain('scripts/deploy.ts');
    expect(res.text).not.toContain(KEY);
    expect(res.json.items.find((i: Item) => i.path === 'src/billing.ts').snippet.text).toContain('[redacted]');
  });

  test('fits a token budget', async () => {
    const res = await ask({ prompt: 'getUserName report line billing', top_n: 10, budget_tokens: 12 });
    expect(res.status).toBe(200);
    const total = (res.json.items as Item[]).reduce((sum, i) => sum + i.tokens, 0);
    expect(total).toBeLessThanOrEqual(12);
  });

  test('a save in the repository becomes visible through the context process', async () => {
    writeFile(repo, 'src/ledger.ts', 'export function reconcileLedgerEntries() {\n  return 0;\n}\n');
    const found = await until(async () => {
      const res = await ask({ prompt: 'reconcileLedgerEntries is off by one', top_n: 1 });
      return res.json.items?.[0]?.path === 'src/ledger.ts' ? res.json.items[0] : undefined;
    }, 10_000);
    expect(found.snippet.text).toContain('reconcileLedgerEntries');
  });

  test('bad input gets 400 with what to change and where', async () => {
    const cases: Array<[unknown, string, RegExp]> = [
      [{}, 'body.prompt', /prompt is required/],
      [{ prompt: '   ' }, 'body.prompt', /prompt is empty/],
      [{ prompt: 42 }, 'body.prompt', /prompt must be a string/],
      [{ prompt: 'x', top_n: 0 }, 'body.top_n', /top_n must be an integer from 1 to 50/],
      [{ prompt: 'x', top_n: 51 }, 'body.top_n', /top_n must be an integer from 1 to 50/],
      [{ prompt: 'x', top_n: '3' }, 'body.top_n', /top_n must be an integer/],
      [{ prompt: 'x', top_n: 2.5 }, 'body.top_n', /top_n must be an integer/],
      [{ prompt: 'x'.repeat(32_001) }, 'body.prompt', /longer than 32000 characters/],
      [{ prompt: 'x', budget_tokens: -1 }, 'body.budget_tokens', /budget_tokens must be an integer/],
      [{ prompt: 'x', topN: 3 }, 'body.topN', /not a field of a context request/],
      [[1, 2], 'body', /must be of type object/],
    ];
    for (const [body, where, message] of cases) {
      const res = await ask(body);
      expect({ body, status: res.status, where: res.json.error?.where }).toEqual({ body, status: 400, where });
      expect(res.json.error.message).toMatch(message);
    }
    const notJson = await ask('{"prompt": ');
    expect(notJson.status).toBe(400);
    expect(notJson.json.error.code).toBe('invalid_json');
    const text = await rawRequest({ port, method: 'POST', path: '/v1/context', headers: { 'content-type': 'text/plain' }, body: 'getUserName' });
    expect(text.status).toBe(415);
  });

  test('a repeated request gets the same answer, never past the Host and Origin guards, never once the index moved', async () => {
    const body = JSON.stringify({ prompt: 'getUserName lookup for the report', top_n: 2 });
    const first = await ask(body);
    expect(first.status).toBe(200);
    const again = await ask(body);
    expect(again.status).toBe(200);
    expect(again.text).toBe(first.text);
    // The same request in other words (whitespace) is parsed and answered alike.
    const spaced = await ask(`  ${body}\n`);
    expect(spaced.json.items).toEqual(first.json.items);
    const json = { 'content-type': 'application/json' };
    const rebound = await rawRequest({ port, method: 'POST', path: '/v1/context', headers: { ...json, host: 'evil.example' }, body });
    expect(rebound.status).toBe(403);
    expect(rebound.json.error.code).toBe('forbidden_host');
    const crossSite = await rawRequest({ port, method: 'POST', path: '/v1/context', headers: { ...json, origin: 'https://evil.example' }, body });
    expect(crossSite.status).toBe(403);
    expect(crossSite.json.error.code).toBe('forbidden_origin');
    // An error is never kept as an answer.
    for (let i = 0; i < 2; i++) expect((await ask('{"prompt": ')).json.error.code).toBe('invalid_json');
    for (let i = 0; i < 2; i++) expect((await ask('"getUserName"')).json.error.code).toBe('invalid_json');
    writeFile(repo, 'src/lookup.ts', 'export function lookupReportUser() {\n  return 1;\n}\n');
    const moved = await until(async () => {
      const res = await ask(body);
      return res.json.stats?.generation > first.json.stats.generation ? res : undefined;
    }, 10_000);
    expect(moved.status).toBe(200);
  });

  test('sous context asks the running daemon instead of opening the store', async () => {
    const res = await sous(['context', '--path', repo, '--prompt', 'getUserName', '--json'], { env });
    expect(res.code).toBe(0);
    expect(res.json.stats.answered_by).toBe('daemon');
    expect(res.json.items[0].path).toBe('src/user.ts');
  });

  test('status reports the index and what the privacy scope leaves out, suggesting globs without widening it', async () => {
    const status = await rawRequest({ port: daemonPort, path: '/status' });
    expect(status.json.index).toMatchObject({ state: 'ready', watch: 'native', scope: { out_of_scope_code: 1, suggested_globs: ['scripts/**'] } });
    const text = await sous(['status', '--path', repo], { env });
    expect(text.stdout).toMatch(/^index\s+ready, \d+ files/m);
    expect(text.stdout).toMatch(/^scope\s+\d+ of \d+ files in privacy.allowed_paths; 1 code files left out \(to include them: sous config set privacy.allowed_paths '\["src\/\*\*","docs\/\*\*","scripts\/\*\*"\]'\)/m);
    const config = await sous(['config', 'get', 'privacy.allowed_paths', '--path', repo, '--json'], { env });
    expect(config.stdout).not.toContain('scripts');
  });

  test('a privacy change while running re-reads under the new scope, and the context process follows', async () => {
    const set = await sous(['config', 'set', 'privacy.redact_patterns', '["sk-[A-Za-z0-9]{20,}", "provider"]', '--path', repo], { env });
    expect(set.code).toBe(0);
    const item = await until(async () => {
      const res = await ask({ prompt: 'billingToken', top_n: 1 });
      const top = res.json.items?.[0] as Item | undefined;
      return top?.path === 'src/billing.ts' && top.snippet.text.includes('billing [redacted]') ? top : undefined;
    }, 15_000);
    expect(item.snippet.text).not.toContain(KEY);
    const restored = await sous(['config', 'set', 'privacy.redact_patterns', '["sk-[A-Za-z0-9]{20,}"]', '--path', repo], { env });
    expect(restored.code).toBe(0);
  });

  test('the repository is as the test left it: Sous wrote nothing there', () => {
    const after = gitSnapshot(repo);
    expect(after.head).toBe(before.head);
    // The only changes are the files the tests wrote.
    expect(after.porcelain.split('\n').filter((l) => l && !before.porcelain.includes(l)).sort()).toEqual(['?? src/ledger.ts', '?? src/lookup.ts']);
  });
});
