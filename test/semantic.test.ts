/**
 * The optional semantic stage through the daemon, with our deterministic embedding server over
 * loopback: off, nothing is ever sent and answers are lexical; on, chunks are embedded in the
 * background, a prompt that shares no word with the code finds it through fusion (with a `semantic`
 * rationale), a changed file alone is embedded again and a deleted one drops out; when the backend
 * goes away, answers are the lexical ones, unchanged, and `/status` says why.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { freePort, sous } from './support/cli';
import { startFakeBackend, type FakeBackend } from './support/fake-backend';
import { rawRequest } from './support/http';
import { git, makeGitRepo, rmTempDir, writeFile } from './support/tmp';
import { embeddedTopology } from './support/topologies';
import { until } from './support/wait';

/** What the fake model "learned": the prompt's words mean the code's words. */
const SYNONYMS = { authenticate: 'login', member: 'user', secret: 'password', phrase: 'password', verified: 'check' };
/** Shares no word with any file of the repository (lexically it finds nothing about logins). */
const PROMPT = 'authenticate a member with the secret phrase';

const GATEKEEPER = [
  '/** Checks a login: the user must exist and the password must match its stored hash. */',
  'export function checkLogin(user: string, password: string, hashes: Map<string, string>): boolean {',
  '  const stored = hashes.get(user);',
  '  return stored !== undefined && stored === hashPassword(password);',
  '}',
  '',
  'export function hashPassword(password: string): string {',
  "  return [...password].reverse().join('');",
  '}',
  '',
].join('\n');

describe('semantic retrieval through the daemon (embedded topology)', () => {
  let repo: string;
  let env: NodeJS.ProcessEnv;
  let port: number;
  let backend: FakeBackend;
  const get = (p: string) => rawRequest({ port, path: p });
  const semanticStatus = async () => (await get('/status')).json.index.semantic;
  const context = async (prompt = PROMPT) => {
    const res = await rawRequest({ port, method: 'POST', path: '/v1/context', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ prompt, top_n: 5 }) });
    expect(res.status).toBe(200);
    return res.json as { items: Array<{ path: string; rationale: Array<{ signal: string; detail: string }>; snippet: { start_line: number } }> };
  };
  const embeddingRequests = () => backend.requests.filter((r) => r === 'POST /v1/embeddings').length;
  const config = async (key: string, value: string) => expect((await sous(['config', 'set', key, value, '--path', repo], { env })).code).toBe(0);

  beforeAll(async () => {
    backend = await startFakeBackend({ synonyms: SYNONYMS });
    repo = makeGitRepo();
    writeFile(repo, 'src/session/gatekeeper.ts', GATEKEEPER);
    writeFile(repo, 'src/report/totals.ts', 'export function invoiceTotal(lines: number[]): number {\n  return lines.reduce((a, b) => a + b, 0);\n}\n');
    writeFile(repo, 'src/ui/theme.ts', "export const colors = { background: '#fff', text: '#222' };\n");
    writeFile(repo, 'docs/guide.md', '# Guide\n\nBuild the project with npm run build.\n');
    git(repo, ['add', '-A']);
    git(repo, ['commit', '-q', '-m', 'app']);
    env = await embeddedTopology().env();
    expect((await sous(['init', '--path', repo, '--non-interactive'], { env })).code).toBe(0);
    // The backend serves chat and embeddings; semantic retrieval starts switched off. Idle checks
    // off: a busy CI machine must not hold the background work back.
    await config('backend.base_url', backend.baseUrl);
    await config('exploration.semantic', 'off');
    await config('compute.idle_only', 'false');
    port = await freePort();
    expect((await sous(['up', '--path', repo, '--port', String(port), '--json'], { env })).code).toBe(0);
    await until(async () => ((await get('/status')).json.index?.state === 'ready' ? true : undefined), 60_000);
    // Auto Focus: the user works here, so background work may run.
    expect((await sous(['focus', 'work-here', repo], { env })).code).toBe(0);
    await until(async () => ((await get('/status')).json.backend?.reachable === true ? true : undefined), 10_000);
  }, 120_000);

  afterAll(async () => {
    await sous(['down', '--path', repo], { env });
    await backend.close();
    rmTempDir(repo);
  }, 60_000);

  test('switched off, nothing is sent to the backend and status says why', async () => {
    // A save makes the daemon consider background work; the preparation cycle it triggers shows
    // the daemon did, and still no embedding was asked for.
    writeFile(repo, 'docs/guide.md', '# Guide\n\nBuild the project with npm run build, then npm test.\n');
    await until(async () => ((await get('/status')).json.preparation.last_cycle?.trigger === 'file_change' ? true : undefined), 30_000, 100);
    const lexical = await context();
    expect(lexical.items.map((i) => i.path)).not.toContain('src/session/gatekeeper.ts');
    expect(await semanticStatus()).toMatchObject({ state: 'off', reason: 'exploration.semantic is off', files: 0, chunks: 0 });
    // The daemon does talk to this backend (its probe), just never for embeddings.
    expect(backend.requests).toContain('GET /v1/models');
    expect(embeddingRequests()).toBe(0);
  }, 60_000);

  test('switched on, files are embedded in the background and a semantically close prompt finds its file', async () => {
    await config('exploration.semantic', 'auto');
    const ready = await until(async () => {
      const s = await semanticStatus();
      return s.state === 'ready' && s.files === 5 ? s : undefined;
    }, 30_000, 100);
    // src/index.ts, the three src/ files and docs/guide.md: everything the privacy scope lets in.
    expect(ready).toMatchObject({ model: 'all-minilm', files: 5, chunks: 5, dims: 128, pending_files: 0, storage: 'array', reason: expect.stringContaining(`model all-minilm at ${backend.baseUrl}`) });
    expect(ready.storage_detail).toMatch(/PGlite.*in process/);
    expect(backend.embedded.some((t) => t.startsWith('README.md'))).toBe(false);

    const fused = await context();
    const first = fused.items[0]!;
    expect(first.path).toBe('src/session/gatekeeper.ts');
    expect(first.rationale).toEqual([{ signal: 'semantic', detail: expect.stringMatching(/^embedding similarity 0\.\d\d, chunk lines 1-9$/), weight: expect.any(Number) }]);
    expect(first.snippet.start_line).toBe(1);
  }, 60_000);

  test('a changed file alone is embedded again; a deleted file drops out', async () => {
    const sent = backend.embedded.length;
    writeFile(repo, 'src/ui/theme.ts', "export const colors = { background: '#000', text: '#eee' };\n");
    await until(async () => (backend.embedded.length > sent && (await semanticStatus()).state === 'ready' ? true : undefined), 30_000, 100);
    expect(backend.embedded.slice(sent)).toEqual(["src/ui/theme.ts\nexport const colors = { background: '#000', text: '#eee' };"]);

    fs.rmSync(path.join(repo, 'src/report/totals.ts'));
    const after = await until(async () => {
      const s = await semanticStatus();
      return s.files === 4 && s.state === 'ready' ? s : undefined;
    }, 30_000, 100);
    expect(after).toMatchObject({ chunks: 4, last_run: { removed_files: 1, embedded_files: 0 } });
    expect(backend.embedded.length).toBe(sent + 1);
  }, 60_000);

  test('with the backend gone, answers are the lexical ones, unchanged, and status says why', async () => {
    await backend.close();
    const down = await context();
    const status = await semanticStatus();
    expect(status.query.error).toMatch(/^cannot connect to http:\/\/127\.0\.0\.1:\d+\/v1/);
    expect(status.query.retry_at).toEqual(expect.any(String));

    // The same prompt with semantic retrieval switched off: the lexical answer, byte for byte.
    await config('exploration.semantic', 'off');
    await until(async () => ((await semanticStatus()).state === 'off' ? true : undefined), 10_000);
    const lexical = await context();
    expect(JSON.stringify(down.items)).toBe(JSON.stringify(lexical.items));
    expect(down.items.flatMap((i) => i.rationale).some((r) => r.signal === 'semantic')).toBe(false);

    // Switched on again while the backend is away: off, and why.
    await config('exploration.semantic', 'auto');
    const off = await until(async () => {
      const s = await semanticStatus();
      return s.state === 'off' && /backend not reachable/.test(s.reason) ? s : undefined;
    }, 10_000);
    expect(off.reason).toMatch(/^backend not reachable \(cannot connect to .*\): lexical ranking only$/);
    expect(JSON.stringify((await context()).items)).toBe(JSON.stringify(lexical.items));
  }, 60_000);
});
