/**
 * Preparation with a model backend (our deterministic OpenAI-compatible server over loopback) and
 * without one: the model writes a research brief, a rationale on a ready card and the draft's
 * request, grounded in the cited lines; prompts carry no secret and no excluded file, and an
 * unreachable backend leaves heuristic cards and says so.
 */
import { defaultConfig } from '@sous/config';
import { freePort, sous } from './support/cli';
import { startFakeBackend, type FakeBackend, type FakeChatRequest } from './support/fake-backend';
import { rawRequest } from './support/http';
import { git, makeGitRepo, rmTempDir, writeFile } from './support/tmp';
import { embeddedTopology } from './support/topologies';
import { until } from './support/wait';
import { warmCycle } from './support/prepared-work';

const KEY = 'sk-abcdefghijklmnopqrstuvwxyz0123';
const MODEL = 'qwen2.5-coder:1.5b';
const RATIONALE = 'The guide still links a file the latest commit moved.';
const REQUEST = 'Update the callers of `total` in src/report.ts to pass the third term, then run the tests.';
const CONFIRMED = 'The guide still tells readers to call parseConfig, which the commit renamed to loadConfig.';

/** Scripted answers by prompt: a rationale and a draft request; briefs and angles get the default answer. */
function answer(request: FakeChatRequest): string | undefined {
  const system = request.messages[0]?.content ?? '';
  if (system.includes('why a finding matters')) return RATIONALE;
  if (system.includes('next request')) return REQUEST;
  if (system.startsWith('You check one finding')) return `STALE\n${CONFIRMED}`;
  return undefined;
}

describe('preparation with and without a model backend, and when the machine is busy', () => {
  let repo: string;
  let env: NodeJS.ProcessEnv;
  let port: number;
  let backend: FakeBackend;
  const get = (p: string) => rawRequest({ port, path: p });

  /** The daemon's live config holds `list` as soon as `sous config set` returns: the CLI waits for the reload. */
  async function confirmHeld(list: string[]): Promise<void> {
    expect((await sous(['config', 'set', 'exploration.confirm_held', JSON.stringify(list), '--path', repo], { env })).code).toBe(0);
    expect((await get('/config')).json.config.exploration.confirm_held).toEqual(list);
  }

  async function prepare(): Promise<void> {
    expect((await warmCycle(port)).state).toBe('completed');
  }

  beforeAll(async () => {
    backend = await startFakeBackend({ recordBodies: true, answer });
    repo = makeGitRepo();
    writeFile(repo, 'src/config.ts', `// token ${KEY}\nexport function parseConfig(text: string) {\n  return JSON.parse(text);\n}\n`);
    writeFile(repo, 'src/local.env', `API_KEY=${KEY}\n`);
    // A link to a file the latest commit moves: a docs drift card and its patch with the default
    // detectors; the renamed `parseConfig` makes a card too, held back as a candidate (names are held).
    writeFile(repo, 'src/defaults.ts', `// token ${KEY}\nexport const DEFAULTS = { port: '8080' };\n`);
    writeFile(repo, 'docs/guide.md', '# Guide\n\nCall `parseConfig` first; [the defaults](../src/defaults.ts) list every key.\n');
    writeFile(repo, 'src/math.ts', `// token ${KEY}\nexport function total(a: number, b: number): number {\n  return a + b;\n}\n`);
    writeFile(repo, 'src/report.ts', "import { total } from './math';\nexport const sum = total(1, 2);\n");
    git(repo, ['add', '-A']);
    git(repo, ['commit', '-q', '-m', 'config']);
    writeFile(repo, 'src/config.ts', `// token ${KEY}\nexport function loadConfig(text: string) {\n  return JSON.parse(text);\n}\n`);
    writeFile(repo, 'src/math.ts', `// token ${KEY}\nexport function total(a: number, b: number, c: number): number {\n  return a + b + c;\n}\n`);
    git(repo, ['mv', 'src/defaults.ts', 'src/config-defaults.ts']);
    git(repo, ['commit', '-q', '-am', 'Rename parseConfig to loadConfig, move the defaults; total takes three terms']);
    env = await embeddedTopology().env();
    port = await freePort();
    expect((await sous(['up', '--path', repo, '--port', String(port), '--json'], { env })).code).toBe(0);
    await until(async () => ((await get('/status')).json.index?.state === 'ready' ? true : undefined), 60_000);
    // The brief and the draft follow the stale caller of `total`, held by default: let it into the feed.
    const held = JSON.stringify(defaultConfig().exploration.detectors_held.filter((d) => d !== 'review.stale_callers'));
    expect((await sous(['config', 'set', 'exploration.detectors_held', held, '--path', repo], { env })).code).toBe(0);
    // Hot-reloaded: the daemon probes the new backend at once.
    expect((await sous(['config', 'set', 'backend.base_url', backend.baseUrl, '--path', repo], { env })).code).toBe(0);
    await until(async () => ((await get('/status')).json.backend?.reachable === true ? true : undefined), 10_000);
  }, 120_000);

  afterAll(async () => {
    await sous(['down', '--path', repo], { env });
    await backend.close();
    rmTempDir(repo);
  }, 60_000);

  test('the model writes a research brief from the cited lines; prompts hold no secret and no excluded file', async () => {
    await prepare();
    // The feed shows every ready card, up to the budget (exploration.max_ready_cards, 10); the brief
    // cites the same line as its finding and the follow-up draft, so novelty may keep it a candidate:
    // look it up by kind.
    const cards = (await get('/work-products?kind=research_brief')).json.items as Array<{ id: string; kind: string; evidence: Array<{ path: string }> }>;
    const feed = (await get('/prepared-work')).json as { cards: unknown[]; cap: number };
    const ready = (await get('/work-products?state=ready')).json.items as unknown[];
    expect(feed.cap).toBe(10);
    expect(ready.length).toBeGreaterThan(1);
    expect(feed.cards).toHaveLength(Math.min(ready.length, feed.cap));
    const brief = cards[0];
    expect(brief).toBeDefined();
    // A brief explains a review finding (the stale caller of `total`), citing the same lines.
    expect(brief!.evidence.map((e) => e.path)).toEqual(expect.arrayContaining(['src/math.ts', 'src/report.ts']));
    expect(cards.filter((c) => c.kind === 'research_brief')).toHaveLength(1);
    const inspect = await get(`/work-products/${brief!.id}/inspect`);
    expect(inspect.json.body).toMatch(/fake answer/);
    expect(backend.bodies.length).toBeGreaterThan(0);
    const prompts = JSON.stringify(backend.bodies);
    expect(prompts).toContain('total(1, 2)');
    expect(prompts).not.toContain(KEY);
    expect(prompts).not.toContain('local.env');
    expect((await get('/status')).json.preparation.model.mode).toBe('model');
  });

  test('a ready card carries the rationale the model wrote for it, and its score is the evidence\'s', async () => {
    const drift = (await get('/work-products?state=ready&kind=docs_drift')).json.items as Array<{ id: string; diagnostic: { detector: string; score_parts: { strength: number } } }>;
    expect(drift).toHaveLength(1);
    expect(drift[0]!.diagnostic.score_parts.strength).toBe(0.85);
    const inspect = await get(`/work-products/${drift[0]!.id}/inspect`);
    expect(inspect.json.body).toContain(`## Why this matters here\n\n${RATIONALE}\n\n_Written by ${MODEL} from the cited lines`);
    expect(inspect.text).not.toContain(KEY);
    // The model writes nothing for a held card (it is never shown): the rationales went to cards that are.
    const held = ((await get('/work-products?state=candidate&kind=docs_drift')).json.items as Array<{ id: string; diagnostic: { detector: string } }>).filter((c) => c.diagnostic.detector === 'docs_drift.removed_name');
    expect(held).toHaveLength(1);
    expect((await get(`/work-products/${held[0]!.id}/inspect`)).json.body).not.toContain('## Why this matters here');
  });

  test('a ready draft for the likely next prompt is adopted once: its prompt and briefing are handed over', async () => {
    const drafts = (await get('/work-products?state=ready&kind=prediction_draft')).json.items as Array<{ id: string; actions: string[] }>;
    expect(drafts).toHaveLength(1);
    const draft = drafts[0]!;
    expect(draft.actions).toContain('adopt');
    const adopted = await rawRequest({ port, method: 'POST', path: `/work-products/${draft.id}/adopt` });
    expect(adopted.status).toBe(200);
    // The model rewrote the request from the cited lines; the briefing stays the heuristic one.
    expect(adopted.json.prompt).toBe(REQUEST);
    expect(adopted.json.briefing).toContain('src/report.ts:2');
    expect(adopted.json.prediction_id).toEqual(expect.any(String));
    expect(adopted.text).not.toContain(KEY);
    const again = await rawRequest({ port, method: 'POST', path: `/work-products/${draft.id}/adopt` });
    expect(again.status).toBe(409);
    expect(again.json.error.message).toMatch(/already adopted/);
    expect((await get(`/work-products/${draft.id}/inspect`)).json.actions).not.toContain('adopt');
  });

  test('a held finding reaches the feed once the user lets the model check it and the model confirms it, and leaves it when they stop', async () => {
    const renamed = async (state: string) =>
      ((await get(`/work-products?state=${state}&kind=docs_drift`)).json.items as Array<{ id: string; diagnostic: { detector: string } }>).filter((c) => c.diagnostic.detector === 'docs_drift.removed_name');
    expect(await renamed('ready')).toEqual([]);
    const from = backend.bodies.length;
    await confirmHeld(['docs_drift.removed_name']);
    await prepare();
    const checks = (backend.bodies as FakeChatRequest[]).slice(from).filter((r) => (r.messages[0]?.content ?? '').startsWith('You check one finding'));
    expect(checks).toHaveLength(1);
    expect(JSON.stringify(checks)).toContain('Call `parseConfig` first');
    expect(JSON.stringify(checks)).not.toContain(KEY);
    const [card] = await renamed('ready');
    expect(card).toBeDefined();
    expect((await get(`/work-products/${card!.id}/inspect`)).json.warnings.join('\n')).toContain(`the model ${MODEL} confirmed this finding from the cited lines (exploration.confirm_held): ${CONFIRMED}`);
    // Asked once: the verdict stays with the card.
    await prepare();
    expect((backend.bodies as FakeChatRequest[]).slice(from).filter((r) => (r.messages[0]?.content ?? '').startsWith('You check one finding'))).toHaveLength(1);
    // Turned off again: the held detector keeps its card out of the feed, whatever the model said.
    await confirmHeld([]);
    await prepare();
    expect(await renamed('ready')).toEqual([]);
    expect((await renamed('candidate')).map((c) => c.id)).toEqual([card!.id]);
  });

  test('an unreachable backend leaves heuristic cards only, and status says so', async () => {
    const closed = await freePort();
    expect((await sous(['config', 'set', 'backend.base_url', `http://127.0.0.1:${closed}/v1`, '--path', repo], { env })).code).toBe(0);
    await until(async () => ((await get('/status')).json.backend?.reachable === false ? true : undefined), 10_000);
    const calls = backend.bodies.length;
    await prepare();
    const status = (await get('/status')).json.preparation;
    expect(status.model).toMatchObject({ mode: 'heuristic', reason: expect.stringMatching(/not reachable.*heuristic cards only/) });
    expect(status.last_cycle.ready).toBeGreaterThan(0);
    expect(backend.bodies.length).toBe(calls);
    expect((await get('/work-products?state=ready&kind=docs_drift')).json.items).toHaveLength(1);
  });

  test('background cycles wait for Auto Focus: a workspace on standby gets none, and says why', async () => {
    writeFile(repo, 'src/report.ts', "import { total } from './math';\nexport const sum = total(1, 2);\nexport const standby = 1;\n");
    const deferred = await until(async () => (await get('/status')).json.preparation.deferred ?? undefined, 20_000, 100);
    expect(deferred).toMatch(/^Standby: no supported AI client is running.*Action: /);
  });

  test('with compute.idle_only, background cycles wait for an idle machine and say why; a warm request runs anyway', async () => {
    // Selected by the user, so Auto Focus lets background cycles through and the CPU check decides.
    expect((await sous(['focus', 'work-here', repo], { env })).code).toBe(0);
    expect((await sous(['config', 'set', 'compute.idle_cpu_threshold', '0', '--path', repo], { env })).code).toBe(0);
    writeFile(repo, 'src/report.ts', "import { total } from './math';\nexport const sum = total(1, 2);\nexport const more = 1;\n");
    const deferred = await until(async () => {
      const reason = (await get('/status')).json.preparation.deferred as string | null;
      return reason !== null && /compute\.idle_cpu_threshold 0/.test(reason) ? reason : undefined;
    }, 20_000, 100);
    expect(deferred).toMatch(/is at or above compute\.idle_cpu_threshold 0/);
    const jobs = (await get('/jobs?limit=5')).json.jobs as Array<{ name: string; result?: { deferred?: string } }>;
    expect(jobs.some((j) => j.name === 'prepare.cycle' && typeof j.result?.deferred === 'string')).toBe(true);
    await prepare();
    expect((await get('/status')).json.preparation.last_cycle.trigger).toBe('warm');
  });
});
