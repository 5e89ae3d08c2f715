/**
 * The MCP tools end to end: a real daemon (`sous up`) on a repository with a planted docs drift
 * (docs/guide.md mentions `parseConfig` and links src/defaults.ts; a later commit renames the one to
 * `loadConfig` and moves the other), and the SDK's own
 * Client talking to createSousMcpServer over an in-memory transport. Every tool is called with valid
 * arguments and its structured result checked; bad arguments and unknown names give error results
 * that say what to fix while the server keeps answering; dotted and underscore names both work; a
 * server whose daemon is down, hung or failed to start answers every tool with a clear error fast.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { createSousMcpServer, NAME_RULE, sousToolRegistry, type ToolNameStyle } from '@sous/mcp';
import { DaemonClient } from '@sous/runtime';
import { loadConfig } from '@sous/config';
import { TIER_EFFECTS, type Tier } from '@sous/setup';
import { embeddedEnv, freePort, gitSnapshot, pinBundle, sous } from './support/cli';
import { makeGitRepo, makeTempDir, rmTempDir } from './support/tmp';
import { until } from './support/wait';
import { makeRenameDriftRepo } from './support/prepared-work';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- structured results are checked field by field
type Structured = Record<string, any>;
interface Called {
  isError: boolean;
  text: string;
  data: Structured;
}

const IDS = sousToolRegistry().ids();

/** Valid arguments for every tool, for the daemon-down checks (card and job ids need not exist there). */
const SAMPLE_ARGS: Record<string, Record<string, unknown>> = {
  'prepared_work.dashboard': {},
  'work_products.list': { limit: 5 },
  'work_products.inspect': { id: 'wp-1' },
  'work_products.export': { id: 'wp-1' },
  'work_products.dismiss': { id: 'wp-1' },
  'work_products.feedback': { id: 'wp-1', value: 'useful' },
  search: { query: 'loadConfig' },
  expand: { target: 'loadConfig' },
  warm: { paths: ['src/config.ts'] },
  inspect: { id: 'wp-1' },
  status: {},
  'resources.status': {},
  'jobs.status': {},
  'jobs.cancel': { id: 'job-1' },
  'sources.status': {},
  'debug.trace': {},
  'focus.status': {},
  'focus.work_here': {},
  'focus.pin_current_workspace': {},
  'focus.pause_current_workspace': {},
  'focus.resume_current_workspace': {},
  'focus.set_mode': { mode: 'auto' },
  'setup.questions': {},
  'setup.recommend': {},
  'setup.apply': { bundle: 'local_balanced' },
  'setup.status': {},
  'policy.show': {},
  'artefacts.list': {},
  'artefacts.inspect': { id: 'wp-1' },
  'artefacts.status': {},
  'artefacts.influence': { id: 'wp-1', action: 'useful' },
  'goals.list': {},
  'goals.declare': { title: 'Rename the config loader', related_files: ['src/config.ts'] },
  'goals.update_status': { id: 'goal-1', status: 'paused' },
  'goals.delete': { id: 'goal-1' },
  'predictions.active': {},
  'predictions.adopt': { id: 'prediction-1' },
  'predictions.dashboard': {},
  resolve: { prompt: 'where is the config loaded' },
  explain: { id: 'resolution-1' },
  feedback: { id: 'resolution-1', value: 'useful' },
  suggest: {},
  'deep_run.start': { preset: 'conservative', duration_minutes: 5, cost_cap_usd: 0 },
  'deep_run.stop': {},
  'deep_run.inspect': {},
  'deep_run.list': {},
  'deep_run.defaults': {},
};

/** A connected SDK client for a Sous MCP server over an in-memory pair. */
async function connect(options: { daemon: () => Promise<DaemonClient>; workspace: string; toolNames?: ToolNameStyle; timeoutMs?: number }): Promise<Client> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const server = createSousMcpServer({ version: '0.1.0-test', ...options });
  await server.connect(serverSide);
  const client = new Client({ name: 'sous-test', version: '0.0.0' });
  await client.connect(clientSide);
  return client;
}

async function callWith(client: Client, name: string, args: Record<string, unknown> = {}): Promise<Called> {
  const result = await client.callTool({ name, arguments: args });
  const content = result.content as Array<{ type: string; text?: string }>;
  return { isError: result.isError === true, text: content.map((c) => c.text ?? '').join('\n'), data: (result.structuredContent ?? {}) as Structured };
}

describe('MCP tools over a real daemon', () => {
  let repo: string;
  let env: NodeJS.ProcessEnv;
  let port: number;
  let client: Client;
  let before: ReturnType<typeof gitSnapshot>;
  const called = new Set<string>();

  /** Calls a tool by its underscore name, remembers it, and fails on an error result unless allowed. */
  async function call(id: string, args: Record<string, unknown> = {}, allowError = false): Promise<Called> {
    const result = await callWith(client, `sous_${id.replace(/\./g, '_')}`, args);
    if (!allowError && result.isError) throw new Error(`${id} answered an error: ${result.text}`);
    called.add(id);
    return result;
  }

  /** Waits for a job to end through jobs.status. */
  async function jobEnds(id: string): Promise<Structured> {
    return until(async () => {
      const { data } = await call('jobs.status', { id });
      return ['completed', 'failed', 'timed_out', 'cancelled'].includes(data.job.state) ? data.job : undefined;
    }, 60_000, 100);
  }

  async function card(kind: string): Promise<Structured> {
    const { data } = await call('prepared_work.dashboard', { diagnostic: true });
    const found = (data.cards as Structured[]).find((c) => c.kind === kind);
    if (!found) throw new Error(`no ${kind} card in the feed`);
    return found;
  }

  beforeAll(async () => {
    repo = makeRenameDriftRepo();
    before = gitSnapshot(repo);
    env = embeddedEnv();
    port = await freePort();
    await pinBundle(repo, env);
    const up = await sous(['up', '--path', repo, '--port', String(port), '--json'], { env });
    expect(up.code).toBe(0);
    const daemon = new DaemonClient(`http://127.0.0.1:${port}`);
    await until(async () => ((await daemon.get<{ index: { state: string } }>('/status')).index.state === 'ready' ? true : undefined), 60_000);
    // A generous bound: the daemon's first GET /resources waits for its hardware probe, which a loaded
    // CI machine can stretch past the 5 s default (the daemon-down tests below use the default).
    client = await connect({ daemon: async () => daemon, workspace: repo, timeoutMs: 20_000 });
  }, 120_000);

  afterAll(async () => {
    await client?.close();
    await sous(['down', '--path', repo], { env });
    rmTempDir(repo);
    if (env.SOUS_HOME) rmTempDir(env.SOUS_HOME);
  }, 60_000);

  test('lists every tool under a name every client accepts, and tells agents to call the dashboard first', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(IDS.map((id) => `sous_${id.replace(/\./g, '_')}`).sort());
    for (const tool of tools) expect(tool.name).toMatch(NAME_RULE);
    expect(client.getInstructions()).toMatch(/Call sous_prepared_work_dashboard first/);
    expect(Object.keys(SAMPLE_ARGS).sort()).toEqual([...IDS].sort());
  });

  test('warm queues a cycle that jobs.status follows; the dashboard then shows the docs-drift card', async () => {
    const warmed = await call('warm', { paths: ['docs/guide.md', path.join(repo, 'src/config.ts')] });
    expect(warmed.data).toMatchObject({ queued: true, paths: ['docs/guide.md', 'src/config.ts'], job: { id: expect.any(String) } });
    expect((await jobEnds(warmed.data.job.id)).state).toBe('completed');
    const drift = await card('docs_drift');
    expect(drift.evidence[0]).toMatchObject({ path: 'docs/guide.md', line_start: 3 });
    const dashboard = await call('prepared_work.dashboard');
    expect(dashboard.data.workspace).toBe(repo);
    expect(dashboard.text).toMatch(/\[docs_drift\]/);
    expect(JSON.stringify(dashboard.data.cards)).not.toMatch(/"diagnostic"/);

    const jobs = await call('jobs.status', { limit: 20 });
    expect((jobs.data.jobs as Structured[]).map((j) => j.name)).toContain('prepare.cycle');
    expect((await call('jobs.status', { state: 'completed', limit: 5 })).data.jobs.every((j: Structured) => j.state === 'completed')).toBe(true);
  });

  test('search finds src/config.ts for loadConfig; expand warms around a symbol and a path', async () => {
    const found = await call('search', { query: 'loadConfig', top_n: 5 });
    expect((found.data.items as Structured[]).map((i) => i.path)).toContain('src/config.ts');
    expect(found.text).toMatch(/src\/config\.ts/);
    const bySymbol = await call('expand', { target: 'loadConfig' });
    expect(bySymbol.data).toMatchObject({ target_kind: 'symbol', warm: { queued: true } });
    expect(bySymbol.data.paths).toContain('src/config.ts');
    await jobEnds(bySymbol.data.warm.job.id);
    const byPath = await call('expand', { target: 'src/server.ts', top_n: 3 });
    expect(byPath.data).toMatchObject({ target: 'src/server.ts', target_kind: 'path' });
    expect(byPath.data.paths[0]).toBe('src/server.ts');
    await jobEnds(byPath.data.warm.job.id);
  });

  test('inspect and export: the virtual diff exports a patch git accepts; one evidence record on its own', async () => {
    const diff = await card('virtual_diff');
    const inspected = await call('work_products.inspect', { id: diff.id });
    expect(inspected.data).toMatchObject({ id: diff.id, actions: expect.arrayContaining(['export']) });
    expect(inspected.data.preview).toContain('src/config-defaults.ts');
    const exported = await call('work_products.export', { id: diff.id });
    expect(exported.data).toMatchObject({ format: 'patch', id: diff.id });
    const patchDir = makeTempDir('sous-mcp-patch-');
    try {
      fs.writeFileSync(path.join(patchDir, 'x.patch'), exported.data.content);
      execFileSync('git', ['apply', '--check', path.join(patchDir, 'x.patch')], { cwd: repo });
    } finally {
      rmTempDir(patchDir);
    }
    const drift = await card('docs_drift');
    const one = await call('inspect', { id: drift.id });
    expect(one.data).toMatchObject({ id: drift.id, diagnostic: { state: 'ready' } });
    const evidence = await call('inspect', { id: drift.id, evidence: 1 });
    expect(evidence.data).toMatchObject({ card: { id: drift.id }, index: 1, evidence: { path: 'docs/guide.md', line_start: 3 } });
    const past = await call('inspect', { id: drift.id, evidence: 99 }, true);
    expect(past.isError).toBe(true);
    expect(past.text).toMatch(/`evidence` must be between 1 and \d+/);
  });

  test('feedback, lists and artefact controls', async () => {
    const drift = await card('docs_drift');
    const fb = await call('work_products.feedback', { id: drift.id, value: 'useful' });
    expect(fb.data).toMatchObject({ id: drift.id, feedback: { value: 'useful', recorded_at: expect.any(String) } });
    const listed = await call('work_products.list', { kind: 'docs_drift' });
    expect((listed.data.items as Structured[]).map((i) => i.id)).toContain(drift.id);
    const artefacts = await call('artefacts.list', { state: ['ready'] });
    expect(artefacts.data.artefacts).toEqual(expect.arrayContaining([expect.objectContaining({ id: drift.id, state: 'ready', detector: expect.stringMatching(/^docs_drift\./) })]));
    const counts = await call('artefacts.status');
    expect(counts.data.by_state.ready).toBeGreaterThanOrEqual(2);
    expect(counts.data.by_kind.docs_drift).toBeGreaterThanOrEqual(1);
    const deep = await call('artefacts.inspect', { id: drift.id });
    expect(deep.data).toMatchObject({ id: drift.id, diagnostic: { claim_key: expect.stringMatching(/^docs_drift\.moved_path\|[0-9a-f]{40}\|path$/) } });
    const partial = await call('artefacts.influence', { id: drift.id, action: 'partial' });
    expect(partial.data).toMatchObject({ id: drift.id, action: 'partial', feedback: { value: 'partial' } });
  });

  test('focus: status, work here, pin and unpin, pause (warm then says why) and resume, mode', async () => {
    const status = await call('focus.status');
    expect(status.data.this_workspace).toMatchObject({ root: repo, class: expect.any(String) });
    expect(status.text).toMatch(/Action: /);
    const id = status.data.workspace as string;
    expect((await call('focus.work_here')).data.selected).toBe(id);
    expect((await call('focus.pin_current_workspace')).isError).toBe(false);
    expect((await call('focus.pin_current_workspace', { unpin: true })).isError).toBe(false);
    expect((await call('focus.pause_current_workspace')).data.this_workspace.class).toBe('paused');
    const refused = await call('warm', { paths: ['src/config.ts'] });
    expect(refused.data).toMatchObject({ queued: false, reason: expect.stringMatching(/paused/i) });
    expect((await call('focus.resume_current_workspace')).data.this_workspace.class).not.toBe('paused');
    expect((await call('focus.set_mode', { mode: 'manual-only' })).data.mode).toBe('manual-only');
    expect((await call('focus.set_mode', { mode: 'auto' })).data.mode).toBe('auto');
  });

  test('goals: declare, list, update_status and delete round trip; bad status and unknown id are error results', async () => {
    const declared = await call('goals.declare', { title: 'Rename the config loader', related_files: ['src/config.ts'] });
    const goal = declared.data.goal as Structured;
    expect(goal).toMatchObject({ title: 'Rename the config loader', status: 'active', related_files: ['src/config.ts'], reconciliation_state: 'current' });
    expect(declared.text).toMatch(/^Goal declared:\n- \[active, current\] Rename the config loader/);
    const listed = await call('goals.list', { status: ['active'] });
    expect((listed.data.goals as Structured[]).map((g) => g.id)).toContain(goal.id);
    expect((await call('goals.update_status', { id: goal.id, status: 'achieved' })).data.goal.status).toBe('achieved');
    expect((await call('goals.list', { status: 'active' })).data.goals.map((g: Structured) => g.id)).not.toContain(goal.id);
    const badStatus = await callWith(client, 'sous_goals_update_status', { id: goal.id, status: 'done' });
    expect(badStatus.text).toMatch(/`status` must be one of \[active, paused, abandoned, achieved\]/);
    const noTitle = await callWith(client, 'sous_goals_declare', { related_files: ['src/config.ts'] });
    expect(noTitle.data.error).toMatchObject({ code: 'invalid_arguments', details: { fields: ['title'] } });
    const outside = await callWith(client, 'sous_goals_declare', { title: 'x', related_files: ['../elsewhere.ts'] });
    expect(outside.data.error).toMatchObject({ code: 'invalid_arguments' });
    expect(outside.text).toMatch(/related_files\[0\] must be a path relative to the repository root/);
    expect((await call('goals.delete', { id: goal.id })).data).toEqual({ deleted: goal.id });
    const gone = await callWith(client, 'sous_goals_delete', { id: goal.id });
    expect(gone).toMatchObject({ isError: true, data: { error: { code: 'not_found' } } });
    expect(gone.text).toMatch(/sous_goals_list/);
  });

  test('predictions: an active goal seeds one with a briefing; active, dashboard and adopt round trip; adopting twice or an unknown id are error results', async () => {
    const goal = (await call('goals.declare', { title: 'Harden the config loader', related_files: ['src/config.ts'] })).data.goal as Structured;
    const seeded = await until(async () => {
      const active = await call('predictions.active');
      return (active.data.predictions as Structured[]).find((p) => p.goal_id === goal.id && p.state === 'ready') ? active : undefined;
    }, 30_000, 100);
    const prediction = (seeded.data.predictions as Structured[]).find((p) => p.goal_id === goal.id)!;
    expect(prediction).toMatchObject({ source: 'goal', prompt: 'continue: Harden the config loader', weight: 1 });
    expect(seeded.text).toContain(`[ready, goal] continue: Harden the config loader — ${prediction.id}`);
    const dashboard = await call('predictions.dashboard');
    expect((dashboard.data.predictions as Structured[]).map((p) => p.id)).toContain(prediction.id);
    expect(dashboard.data.by_source.goal).toBeGreaterThanOrEqual(1);
    expect((await call('predictions.adopt', { id: prediction.id })).data.prediction).toMatchObject({ id: prediction.id, state: 'adopted' });
    const twice = await callWith(client, 'sous_predictions_adopt', { id: prediction.id });
    expect(twice).toMatchObject({ isError: true, data: { error: { code: 'conflict' } } });
    const unknown = await callWith(client, 'sous_predictions_adopt', { id: 'no-such-prediction' });
    expect(unknown).toMatchObject({ isError: true, data: { error: { code: 'not_found' } } });
    expect(unknown.text).toMatch(/sous_predictions_active/);
    await call('goals.delete', { id: goal.id });
  });

  test('resolve: a prompt becomes a briefing from the live index with a resolution id', async () => {
    const r = await call('resolve', { prompt: 'where is the config loaded' });
    expect(r.data).toMatchObject({ cache: 'miss', predicted_response: null, resolution_id: expect.any(String) });
    expect(r.text).toMatch(/^Resolution \S+ \(cache miss/);
    const id = r.data.resolution_id as string;
    expect((await call('explain', { id })).data).toMatchObject({ resolution_id: id, cache: 'miss' });
    expect((await call('feedback', { id, value: 'useful' })).data.feedback).toMatchObject({ resolution_id: id, value: 'useful' });
    expect(Array.isArray((await call('suggest')).data.suggestions)).toBe(true);
  });

  test('status, resources, sources, trace, job cancel, setup and policy answer from the daemon', async () => {
    const status = await call('status');
    expect(status.data).toMatchObject({ status: 'ok', workspace: { root: repo }, index: { state: expect.any(String) } });
    const resources = await call('resources.status');
    expect(resources.data.hardware.tier).toEqual(expect.any(String));
    const sources = await call('sources.status');
    expect((sources.data.sources as Structured[]).map((s) => s.name)).toEqual(['repository_index', 'file_watcher', 'store', 'job_queue', 'model_backend', 'config']);
    const trace = await call('debug.trace', { limit: 5 });
    expect(trace.data).toMatchObject({ preparation: { last_cycle: expect.objectContaining({ trigger: expect.any(String) }) }, focus: { this_workspace: expect.any(Object) } });
    expect(trace.data.jobs.length).toBeGreaterThan(0);
    expect(trace.text).toMatch(/Last cycle: /);

    // A finished job cannot be cancelled: an error result that says why.
    const done = (await call('jobs.status', { state: 'completed', limit: 1 })).data.jobs[0] as Structured;
    const cancel = await call('jobs.cancel', { id: done.id }, true);
    expect(cancel.isError).toBe(true);
    expect(cancel.text).toMatch(/already ended \(completed\)/);

    // `sous up` wired the workspace with the bundle recommended for this machine.
    const bundle = status.data.policy.bundle as string;
    const policy = await call('policy.show');
    expect(policy.data).toMatchObject({ bundle, posture: expect.stringMatching(/^(local_only|local_preferred|hybrid|cloud_preferred)$/), dimensions: { privacy: expect.any(String) } });
    expect(policy.text).toContain(`Policy bundle ${bundle}: posture ${policy.data.posture}`);
    const setup = await call('setup.status');
    expect(setup.data).toMatchObject({ bundle, recommended_bundle: expect.any(String), tier: resources.data.hardware.tier });
    const recommend = await call('setup.recommend');
    expect(recommend.data.scores).toHaveLength(7);
    expect(recommend.data.tier).toBe(resources.data.hardware.tier);
    const questions = await call('setup.questions');
    expect((questions.data.questions as Structured[])[0]).toMatchObject({ id: 'policy_bundle', recommended: recommend.data.bundle_id });
    const other = bundle === 'deep_research' ? 'cost_saver' : 'deep_research';
    // setup.apply writes the config through the daemon (the tier's settings too) and the daemon hot-reloads it.
    const configFile = path.join(repo, '.sous', 'config.toml');
    const tier = resources.data.hardware.tier as Tier;
    const apply = await call('setup.apply', { bundle: other });
    expect(apply.data).toMatchObject({ bundle_id: other, previous_bundle_id: bundle, tier, reloaded: true });
    expect(apply.data.changed).toContainEqual({ key: 'policy.bundle', from: bundle, to: other });
    expect(apply.text).toContain(`Policy bundle ${other} applied (was ${bundle})`);
    expect(loadConfig(configFile)).toMatchObject({ policy: { bundle: other }, compute: { max_cycle_seconds: TIER_EFFECTS[tier].max_cycle_seconds } });
    expect((await call('policy.show')).data.bundle).toBe(other);
    // Invalid input is refused with a tool error and the file is untouched.
    const text = fs.readFileSync(configFile, 'utf8');
    const refused = await call('setup.apply', { bundle: 'turbo' }, true);
    expect(refused.isError).toBe(true);
    expect(refused.text).toMatch(/bundle/);
    expect(fs.readFileSync(configFile, 'utf8')).toBe(text);
    // Back to the bundle `sous up` chose, for the tests below.
    const back = await call('setup.apply', { bundle });
    expect(back.data).toMatchObject({ bundle_id: bundle, previous_bundle_id: other, reloaded: true });
    expect((await call('policy.show')).data.bundle).toBe(bundle);
  });

  test('dismissing through the card tool hides the card from the dashboard', async () => {
    const drift = await card('docs_drift');
    const dismissed = await call('work_products.dismiss', { id: drift.id });
    expect(dismissed.data.card.id).toBe(drift.id);
    const { data } = await call('prepared_work.dashboard');
    expect((data.cards as Structured[]).map((c) => c.id)).not.toContain(drift.id);
  });

  test('bad arguments and unknown names give error results that say what to fix; the server keeps answering', async () => {
    const missing = await callWith(client, 'sous_work_products_inspect', {});
    expect(missing.isError).toBe(true);
    expect(missing.text).toMatch(/^Invalid arguments for sous_work_products_inspect: `id` is required\. Fix them and call again/);
    const wrongType = await callWith(client, 'sous_search', { query: 'x', top_n: 'many' });
    expect(wrongType.text).toMatch(/`top_n` must be a number/);
    const tooMany = await callWith(client, 'sous_search', { query: 'x', top_n: 99, colour: 'red' });
    expect(tooMany.text).toMatch(/`top_n` must be less than or equal to 50; `colour` is not allowed/);
    expect(tooMany.data.error).toMatchObject({ code: 'invalid_arguments', details: { fields: ['top_n', 'colour'] } });
    const badValue = await callWith(client, 'sous.work_products.feedback', { id: 'x', value: 'great' });
    expect(badValue.text).toMatch(/^Invalid arguments for sous\.work_products\.feedback: `value` must be one of \[useful, partial, irrelevant, wrong\]/);
    const unknown = await callWith(client, 'sous_make_coffee', {});
    expect(unknown.isError).toBe(true);
    expect(unknown.text).toMatch(/Unknown tool "sous_make_coffee".*sous_prepared_work_dashboard/);
    const outside = await callWith(client, 'sous_warm', { paths: ['../elsewhere.ts'] });
    expect(outside.text).toMatch(/not a path inside the workspace/);
    const notFound = await callWith(client, 'sous_work_products_inspect', { id: 'nope' });
    expect(notFound).toMatchObject({ isError: true, data: { error: { code: 'not_found' } } });
    expect((await callWith(client, 'sous_status')).isError).toBe(false);
  });

  test('dotted, underscore and bare names are all callable, whichever style is listed', async () => {
    for (const name of ['sous.status', 'sous_status', 'status']) {
      const r = await callWith(client, name);
      expect(r.isError).toBe(false);
      expect(r.data.workspace.root).toBe(repo);
    }
    const daemon = new DaemonClient(`http://127.0.0.1:${port}`);
    const dotted = await connect({ daemon: async () => daemon, workspace: repo, toolNames: 'dotted' });
    try {
      const names = (await dotted.listTools()).tools.map((t) => t.name);
      expect(names).toContain('sous.prepared_work.dashboard');
      expect(dotted.getInstructions()).toMatch(/Call sous\.prepared_work\.dashboard first/);
      expect((await callWith(dotted, 'sous_prepared_work_dashboard')).isError).toBe(false);
      const hint = await callWith(dotted, 'sous.work_products.inspect', { id: 'nope' });
      expect(hint.text).toMatch(/sous\.work_products\.list/);
    } finally {
      await dotted.close();
    }
  });

  test('deep_run tools start, inspect, list and stop a session that prepares only', async () => {
    const defaults = await call('deep_run.defaults');
    expect(defaults.data).toMatchObject({ units: { duration: 'minutes', cost_cap: 'US dollars of estimated hosted-model spend' }, refused: null });
    const started = await call('deep_run.start', SAMPLE_ARGS['deep_run.start']);
    expect(started.data.session).toMatchObject({ state: 'running', preset: 'conservative', duration_minutes: 5, cost_cap_usd: 0 });
    expect((await call('deep_run.inspect')).data.session.id).toBe(started.data.session.id);
    expect((await call('deep_run.list', { limit: 5 })).data.sessions[0].id).toBe(started.data.session.id);
    const stopped = await call('deep_run.stop');
    expect(stopped.data.session).toMatchObject({ state: 'stopped', stop_reason: 'stop' });
    expect(stopped.text).toMatch(/stopped \(stop: stopped on request\)/);
  });

  test('every tool was called against the live daemon; the repository is untouched', () => {
    expect([...IDS].filter((id) => !called.has(id))).toEqual([]);
    expect(gitSnapshot(repo)).toEqual(before);
  });
});

describe('MCP tools without a daemon', () => {
  let root: string;
  beforeAll(() => {
    root = makeGitRepo();
  });
  afterAll(() => rmTempDir(root));

  test('a daemon that is down: every tool answers with a clear error within seconds', async () => {
    const port = await freePort();
    const client = await connect({ daemon: async () => new DaemonClient(`http://127.0.0.1:${port}`), workspace: root });
    try {
      const started = Date.now();
      for (const id of IDS) {
        const r = await callWith(client, `sous_${id.replace(/\./g, '_')}`, SAMPLE_ARGS[id]);
        expect(r.isError).toBe(true);
        expect(r.text).toContain(`No Sous daemon answers for ${root}`);
        expect(r.text).toContain(`sous up --path ${root}`);
        expect(r.data.error.code).toBe('daemon_unreachable');
      }
      expect(Date.now() - started).toBeLessThan(10_000);
      expect((await client.listTools()).tools.length).toBe(IDS.length);
    } finally {
      await client.close();
    }
  });

  test('a daemon still starting answers "still starting" after the bound; a failed start says why', async () => {
    const hung = await connect({ daemon: () => new Promise<DaemonClient>(() => undefined), workspace: root, timeoutMs: 300 });
    const failed = await connect({ daemon: () => Promise.reject(new Error('port 8473 is taken by another program')), workspace: root });
    try {
      const started = Date.now();
      const waiting = await callWith(hung, 'sous_prepared_work_dashboard');
      expect(Date.now() - started).toBeLessThan(3000);
      expect(waiting).toMatchObject({ isError: true, data: { error: { code: 'daemon_starting' } } });
      expect(waiting.text).toMatch(/still starting.*call sous_prepared_work_dashboard again in a few seconds/i);
      const refused = await callWith(failed, 'sous_status');
      expect(refused).toMatchObject({ isError: true, data: { error: { code: 'daemon_unavailable' } } });
      expect(refused.text).toMatch(/No Sous daemon for .*: port 8473 is taken by another program\. Run `sous up --path/);
    } finally {
      await hung.close();
      await failed.close();
    }
  });
});
