/**
 * Fuzz: thousands of malformed requests against every HTTP route of the real daemon (embedded
 * PGlite, a temporary repository with prepared cards), the context API and the proxy, and malformed
 * calls of every MCP tool through `/mcp`. Routes and tools are enumerated from the running surfaces,
 * so new ones are fuzzed without touching this file.
 *
 * A user relies on: no answer is a 5xx (a client mistake is never a server error), every 4xx says
 * what was wrong in the one JSON error shape, nothing crashes (every surface answers afterwards),
 * and a refused request changes nothing (cards, feedback, jobs, Deep-Run sessions, Auto Focus, config, the repository).
 *
 * Seeded and deterministic: request i of seed s is always the same. SOUS_FUZZ_SEED replays a seed,
 * SOUS_FUZZ_REQUESTS sets the total (default 10,000), SOUS_FUZZ_CONCURRENCY the requests in flight.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { sousPaths } from '@sous/config';
import { startContextSurface, startSurface, type RunningSurface } from '@sous/http';
import { gatewayRoutes, type GatewayHandle } from '@sous/gateway';
import { parseProcessOptions } from '@sous/runtime';
import { startDaemon, type RunningDaemon } from '../services/daemon/src/daemon';
import { gitSnapshot } from './support/cli';
import { startFakeBackend, type FakeBackend } from './support/fake-backend';
import { answerProblem, describe as describeRequest, send } from './support/fuzz-client';
import { fuzzRequest, type FuzzIds, type FuzzRequest, type FuzzTarget } from './support/fuzz-http';
import { fuzzCall, type ListedTool } from './support/fuzz-mcp';
import { Dice, fuzzSeed } from './support/fuzz-random';
import { rawRequest } from './support/http';
import { makeRenameDriftRepo, warmCycle } from './support/prepared-work';
import { makeTempDir, rmTempDir } from './support/tmp';
import { until } from './support/wait';

const SEED = fuzzSeed();
const TOTAL = Number(process.env.SOUS_FUZZ_REQUESTS ?? 10_000);
/** Requests in flight at once: enough to overlap I/O, few enough for two busy cores. */
const CONCURRENCY = Number(process.env.SOUS_FUZZ_CONCURRENCY ?? 6);
/** MCP calls cost a server, a tool run and a daemon round trip each: they get a smaller share. */
const MCP_SHARE = 0.3;
const HTTP_COUNT = Math.ceil(TOTAL * (1 - MCP_SHARE));
const MCP_COUNT = TOTAL - HTTP_COUNT;
const REQUEST_TIMEOUT_MS = 30_000;
const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

/** Runs `run(0..count-1)` with `concurrency` in flight; returns the non-undefined results. */
async function pool(count: number, concurrency: number, run: (i: number) => Promise<string | undefined>): Promise<string[]> {
  const problems: string[] = [];
  let next = 0;
  const worker = async (): Promise<void> => {
    for (let i = next++; i < count; i = next++) {
      const problem = await run(i);
      if (problem !== undefined) problems.push(problem);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return problems;
}

/** The failures as one message that names the seed, so the run can be replayed. */
function report(kind: string, problems: string[]): string {
  return `${problems.length} ${kind} failed (replay with SOUS_FUZZ_SEED=${SEED}):\n${problems.slice(0, 15).join('\n')}`;
}

describe(`fuzz: malformed requests to every route and MCP tool (seed ${SEED})`, () => {
  let home: string;
  let previousHome: string | undefined;
  let repo: string;
  let daemon: RunningDaemon;
  let context: RunningSurface;
  let proxy: RunningSurface;
  let gateway: GatewayHandle | undefined;
  let upstream: FakeBackend | undefined;
  let targets: FuzzTarget[];
  let ids: FuzzIds;
  let gitBefore: ReturnType<typeof gitSnapshot>;

  /** Everything a refused request must leave as it was. Focus activity only when `activity`. */
  async function state(activity: boolean): Promise<Record<string, unknown>> {
    const files: Record<string, string> = {};
    const walk = (dir: string): void => {
      for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
        const full = path.join(dir, entry.name);
        if (entry.isDirectory()) {
          if (activity || entry.name !== 'activity') walk(full);
        } else if (entry.name !== 'focus.lock') files[path.relative(home, full)] = fs.readFileSync(full, 'utf8');
      }
    };
    walk(home);
    const { store, queue, workspaceId, paths } = daemon.context;
    return {
      focus: files,
      cards: await store.workProducts.list({ workspaceId, limit: 500 }),
      feedback: [...(await store.feedback.countsByDetector(workspaceId)).entries()],
      predictions: await store.predictions.list(workspaceId, { limit: 500 }),
      deepRuns: await store.deepRuns.list(workspaceId, { limit: 50 }),
      // Warm cycles are the only jobs a request queues; background ones (a deferred start cycle is
      // retried every minute, the backend probe) come and go on their own.
      jobs: (await queue.list({ limit: 500 }))
        .filter((j) => (j.payload as { trigger?: string } | undefined)?.trigger === 'warm')
        .map((j) => `${j.id} ${j.name} ${j.state}`)
        .sort(),
      config: fs.readFileSync(paths.config, 'utf8'),
    };
  }

  /** Every surface still answers its health endpoint. */
  async function healthy(): Promise<void> {
    expect((await rawRequest({ port: daemon.port, path: '/status', timeoutMs: 10_000 })).status).toBe(200);
    expect((await rawRequest({ port: context.port, path: '/healthz', timeoutMs: 10_000 })).status).toBe(200);
    expect((await rawRequest({ port: proxy.port, path: '/healthz', timeoutMs: 10_000 })).status).toBe(200);
  }

  /** No job queued or running (a cycle finishing mid-run would look like a change). */
  const settled = async (): Promise<void> => {
    await until(async () => ((await daemon.context.queue.list({ limit: 500 })).some((j) => j.state === 'queued' || j.state === 'running') ? undefined : true), 60_000, 100);
  };

  beforeAll(async () => {
    // A Sous home of this suite's own: its Auto Focus files are part of the state compared.
    previousHome = process.env.SOUS_HOME;
    home = makeTempDir('sous-home-');
    process.env.SOUS_HOME = home;
    repo = makeRenameDriftRepo();
    gitBefore = gitSnapshot(repo);
    // The embedded default (PGlite, in-process queue): no DATABASE_URL or REDIS_URL here.
    const options = parseProcessOptions(['--path', repo, '--port', '0'], { LOG_LEVEL: 'warn' }, { port: 0 });
    daemon = await startDaemon(options);
    await until(async () => ((await rawRequest({ port: daemon.port, path: '/status' })).json?.index?.state === 'ready' ? true : undefined), 90_000, 100);
    expect((await warmCycle(daemon.port)).state).toBe('completed');
    context = await startContextSurface('context', options, { workers: 1 });
    // The proxy forwards to a fake model backend of ours (a chat request that passes validation gets
    // an answer, not a 502) and passes through without injecting: the daemon's state must not change.
    const backend = await startFakeBackend();
    upstream = backend;
    proxy = await startSurface('proxy', options, (app, config, logger) => {
      gateway = gatewayRoutes(app, { config: { ...config, backend: { ...config.backend, base_url: backend.baseUrl }, gateway: { ...config.gateway, passthrough: { enabled: true } } }, root: repo, logger });
    });
    await settled();
    // Sorted, so request i picks the same card or job in every run of a seed.
    const cards = (await daemon.context.store.workProducts.list({ workspaceId: daemon.context.workspaceId, limit: 500 })).map((c) => c.id).sort();
    expect(cards.length).toBeGreaterThan(0);
    ids = { cards, jobs: (await daemon.context.queue.list({ limit: 50 })).map((j) => j.id).sort(), workspaces: [daemon.context.focus.id] };
    targets = [
      { name: 'daemon', port: daemon.port, routes: daemon.routes },
      { name: 'context', port: context.port, routes: context.routes ?? [] },
      { name: 'proxy', port: proxy.port, routes: proxy.routes ?? [] },
    ];
  }, 180_000);

  afterAll(async () => {
    await proxy?.close();
    await gateway?.close();
    await upstream?.close();
    await context?.close();
    await daemon?.close('test done');
    if (previousHome === undefined) delete process.env.SOUS_HOME;
    else process.env.SOUS_HOME = previousHome;
    for (const dir of [home, repo]) if (dir) rmTempDir(dir);
  }, 60_000);

  test(`${HTTP_COUNT} malformed HTTP requests: no 5xx, every 4xx in the JSON error shape, nothing changed, every surface still up`, async () => {
    const routes = targets.flatMap((t) => t.routes.map((r) => `${t.name} ${r.method} ${r.path}`));
    // The enumeration found the surfaces' real routes (a broken enumeration would fuzz nothing).
    expect(routes).toEqual(expect.arrayContaining(['daemon GET /status', 'daemon POST /work-products/:id/dismiss', 'daemon POST /mcp', 'context POST /v1/context', 'proxy POST /v1/chat/completions']));
    const before = await state(true);
    const hits = new Map<string, number>();
    const problems = await pool(HTTP_COUNT, CONCURRENCY, async (i) => {
      const req: FuzzRequest = fuzzRequest(new Dice(SEED, i), targets, ids);
      const key = `${req.target} ${req.route}`;
      hits.set(key, (hits.get(key) ?? 0) + 1);
      try {
        const res = await send(req, REQUEST_TIMEOUT_MS);
        const problem = answerProblem(req, res);
        return problem === undefined ? undefined : describeRequest(i, req, `${problem}: ${res.text.slice(0, 300)}`);
      } catch (err) {
        return describeRequest(i, req, `no answer (${err instanceof Error ? err.message : String(err)})`);
      }
    });
    if (problems.length > 0) throw new Error(report('HTTP requests', problems));
    // Every route was fuzzed (uniformly: about HTTP_COUNT / routes each).
    const least = Math.min(20, Math.floor(HTTP_COUNT / routes.length / 4));
    expect(routes.filter((r) => (hits.get(r) ?? 0) < least)).toEqual([]);
    await healthy();
    await settled();
    expect(await state(true)).toEqual(before);
    expect(gitSnapshot(repo)).toEqual(gitBefore);
  }, 300_000);

  test(`${MCP_COUNT} malformed MCP tool calls: refused with a clear error, never an internal one; nothing changed`, async () => {
    const list = await rawRequest({ port: daemon.port, method: 'POST', path: '/mcp', headers: MCP_HEADERS, body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'tools/list' }) });
    const tools = list.json.result.tools as ListedTool[];
    expect(tools.length).toBeGreaterThan(20);
    // Accepted MCP requests are integration activity (Auto Focus), so the activity reports may change.
    const before = await state(false);
    const calls = new Map<string, number>();
    const problems = await pool(MCP_COUNT, CONCURRENCY, async (i) => {
      const call = fuzzCall(new Dice(SEED, HTTP_COUNT + i), tools, ids, i + 1);
      calls.set(call.tool, (calls.get(call.tool) ?? 0) + 1);
      const req: FuzzRequest = { target: 'daemon', port: daemon.port, route: `tool ${call.tool}`, method: 'POST', path: '/mcp', headers: { host: `127.0.0.1:${daemon.port}`, ...MCP_HEADERS }, body: Buffer.from(call.body), chunked: false, defects: [] };
      const line = (outcome: string): string => describeRequest(HTTP_COUNT + i, { ...req, defects: call.defects }, outcome);
      let res;
      try {
        res = await send(req, REQUEST_TIMEOUT_MS);
      } catch (err) {
        return line(`no answer (${err instanceof Error ? err.message : String(err)})`);
      }
      const problem = answerProblem(req, res) ?? mcpProblem(call.defects, res.status, res.text);
      return problem === undefined ? undefined : line(`${problem}: ${res.text.slice(0, 300)}`);
    });
    if (problems.length > 0) throw new Error(report('MCP calls', problems));
    const least = Math.min(10, Math.floor(MCP_COUNT / tools.length / 4));
    expect(tools.filter((t) => (calls.get(t.name) ?? 0) < least).map((t) => t.name)).toEqual([]);
    await healthy();
    await settled();
    expect(await state(false)).toEqual(before);
    expect(gitSnapshot(repo)).toEqual(gitBefore);
  }, 300_000);
});

/** Tool error codes that mean Sous failed, not the caller. */
const SERVER_FAULTS = new Set(['internal', 'daemon_error', 'daemon_unreachable', 'daemon_unavailable', 'daemon_timeout', 'daemon_starting', 'unavailable']);

/**
 * What is wrong with the JSON-RPC answer to a tool call: a defective call must be refused (an HTTP
 * 4xx, a JSON-RPC error, or a tool error saying the arguments or the name are wrong); no call may
 * end in an internal error.
 */
function mcpProblem(defects: string[], status: number, text: string): string | undefined {
  if (status >= 400) return undefined; // judged by answerProblem: the one JSON error shape
  let body: { result?: { isError?: boolean; structuredContent?: { error?: { code?: string } } }; error?: { code?: number; message?: string } };
  try {
    body = JSON.parse(text) as typeof body;
  } catch {
    return `status ${status} with a body that is not JSON`;
  }
  if (body.error !== undefined) {
    // JSON-RPC's internal error (-32603) is a 500 in other words.
    return body.error.code === -32603 ? 'JSON-RPC internal error' : defects.length > 0 ? undefined : `JSON-RPC error ${body.error.code} for a well-formed call`;
  }
  const code = body.result?.structuredContent?.error?.code;
  if (code !== undefined && SERVER_FAULTS.has(code)) return `tool error ${code}`;
  if (defects.length > 0 && body.result?.isError !== true) return 'a malformed call succeeded';
  if (defects.length > 0 && code !== 'invalid_arguments' && code !== 'unknown_tool') return `tool error ${code ?? '(none)'} instead of invalid_arguments or unknown_tool`;
  return undefined;
}
