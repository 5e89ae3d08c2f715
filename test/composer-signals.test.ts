/**
 * Composer signals (spec 2.7, 4.3, 6) through a real daemon over HTTP (embedded PGlite, temp repo):
 * a valid snapshot is stored as a composer_lifecycle event without text; a raw-text field is refused
 * and nothing is stored; an L0 adapter emitting more than `submitted` is a capability_mismatch (422);
 * a cleared draft makes its session's predictions stale; the work-style multiplier is recorded; and
 * the committed JSON Schema matches what `npm run schema:generate` produces.
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import { sql } from 'drizzle-orm';
import { setConfigValue, sousPaths } from '@sous/config';
import { draftIntentSnapshotSchema } from '@sous/http';
import { parseProcessOptions } from '@sous/runtime';
import { startDaemon, type RunningDaemon } from '../services/daemon/src/daemon';
import { rawRequest } from './support/http';
import { makeGitRepo, makeTempDir, rmTempDir, writeFile } from './support/tmp';
import { until } from './support/wait';

const generator = require('../scripts/schema/generate.js') as { SCHEMA_FILE: string; draftIntentSnapshotJsonSchema(schema?: unknown): string };

/** A draft no table may ever hold. */
const DRAFT = 'refactor the quantum flux capacitor parser 7f3a';
const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

function snapshot(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    session_id: 'sess-1',
    snapshot_id: '01JDX7W2Q8S3K4M5N6P7R8T9V0',
    timestamp: '2026-11-26T02:00:00.000Z',
    lifecycle_state: 'submitted',
    text_hash: sha256(DRAFT),
    length_chars: DRAFT.length,
    capabilities: { level: 'L0', emits: ['submitted'], host_app: 'claude-code', host_kind: 'cli' },
    ...overrides,
  };
}

describe('POST /signals/composer on a real daemon (embedded)', () => {
  let repo: string;
  let home: string;
  let previousHome: string | undefined;
  let daemon: RunningDaemon;

  const post = (body: unknown) =>
    rawRequest({ port: daemon.port, method: 'POST', path: '/signals/composer', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const events = () => daemon.context.store.signals.listRecent('composer_lifecycle', { workspaceId: daemon.context.workspaceId, limit: 500 });
  const rows = async <T>(query: ReturnType<typeof sql>): Promise<T[]> => ((await daemon.context.store.db.execute(query)) as unknown as { rows: T[] }).rows;

  beforeAll(async () => {
    previousHome = process.env.SOUS_HOME;
    home = makeTempDir('sous-home-');
    process.env.SOUS_HOME = home;
    repo = makeGitRepo();
    fs.mkdirSync(sousPaths(repo).dir, { recursive: true });
    daemon = await startDaemon(parseProcessOptions(['--path', repo, '--port', '0'], { LOG_LEVEL: 'warn' }, { port: 0 }));
  }, 120_000);

  afterAll(async () => {
    await daemon?.close('test done');
    if (previousHome === undefined) delete process.env.SOUS_HOME;
    else process.env.SOUS_HOME = previousHome;
    rmTempDir(repo);
    rmTempDir(home);
  });

  test('a valid L0 snapshot is stored as a composer_lifecycle event, answered with a UUID, without text', async () => {
    const res = await post(snapshot());
    expect(res.status).toBe(201);
    expect(res.json.composer_event_id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(res.json).toMatchObject({ work_style: 'coding', multiplier: 1, stale_predictions: 0, prediction_id: null });
    const stored = (await events()).find((e) => e.id === res.json.composer_event_id);
    expect(stored?.kind).toBe('composer_lifecycle');
    expect(stored?.payload).toEqual({ ...snapshot(), work_style: 'coding', multiplier: 1 });
  });

  test('a body carrying the raw draft text is refused with 400 saying so, and nothing is stored', async () => {
    const before = (await events()).length;
    for (const [body, where] of [
      [{ ...snapshot(), text: DRAFT }, 'body.text'],
      [{ ...snapshot(), preview: DRAFT.slice(0, 10) }, 'body.preview'],
      [snapshot({ capabilities: { level: 'L0', emits: ['submitted'], draft_text: DRAFT } }), 'body.capabilities.draft_text'],
    ] as const) {
      const res = await post(body);
      expect(res.status).toBe(400);
      expect(res.json.error).toMatchObject({ code: 'invalid_body', where });
      expect(res.json.error.message).toMatch(/raw draft text is never accepted.*text_hash/);
    }
    expect((await events()).length).toBe(before);
    // No table holds the draft or any slice of it the requests carried.
    const tables = await rows<{ table_name: string }>(
      sql`SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'`,
    );
    expect(tables.length).toBeGreaterThan(5);
    for (const { table_name } of tables) {
      const hits = await rows<{ n: number }>(
        sql`SELECT count(*)::int AS n FROM ${sql.identifier(table_name)} t WHERE t::text LIKE ${'%' + DRAFT.slice(0, 10) + '%'}`,
      );
      expect({ table_name, hits: hits[0]?.n }).toEqual({ table_name, hits: 0 });
    }
  });

  test('bad fields are 400s that name the field', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [snapshot({ text_hash: 'abc' }), 'body.text_hash'],
      [snapshot({ lifecycle_state: 'typing' }), 'body.lifecycle_state'],
      [snapshot({ timestamp: '2026-11-26T03:00:00+02:00' }), 'body.timestamp'],
      [snapshot({ length_chars: -1 }), 'body.length_chars'],
      [snapshot({ capabilities: { level: 'L9', emits: ['submitted'] } }), 'body.capabilities.level'],
      [snapshot({ session_id: undefined }), 'body.session_id'],
    ];
    for (const [body, where] of cases) {
      const res = await post(body);
      expect({ where, status: res.status, code: res.json.error.code, at: res.json.error.where }).toEqual({ where, status: 400, code: 'invalid_body', at: where });
    }
  });

  test('an L0 adapter declaring more than submitted, or a state outside its emits, is capability_mismatch (422)', async () => {
    const before = (await events()).length;
    const dishonest = await post(snapshot({ lifecycle_state: 'actionable', capabilities: { level: 'L0', emits: ['submitted', 'actionable'] } }));
    expect(dishonest.status).toBe(422);
    expect(dishonest.json.error).toMatchObject({ code: 'capability_mismatch', where: 'body.capabilities.emits', details: { level: 'L0', allowed: ['submitted'] } });
    expect(dishonest.json.error.message).toMatch(/L0 adapter may emit only submitted/);
    const undeclared = await post(snapshot({ lifecycle_state: 'cleared', capabilities: { level: 'L1', emits: ['submitted', 'actionable'] } }));
    expect(undeclared.status).toBe(422);
    expect(undeclared.json.error).toMatchObject({ code: 'capability_mismatch', where: 'body.lifecycle_state' });
    expect((await events()).length).toBe(before);
    // The same state from an L1 adapter that declares it is accepted.
    const honest = await post(snapshot({ lifecycle_state: 'actionable', capabilities: { level: 'L1', emits: ['actionable', 'submitted'] } }));
    expect(honest.status).toBe(201);
  });

  test('a cleared draft makes its session\'s predictions stale and clears their briefing; other sessions keep theirs', async () => {
    const { store, workspaceId } = daemon.context;
    const mine = await store.predictions.insert({ workspaceId, source: 'composer_intent', composerSessionId: 'sess-clear', title: 'next ask', summary: 'briefing for the ask', state: 'ready' });
    const other = await store.predictions.insert({ workspaceId, source: 'composer_intent', composerSessionId: 'sess-other', title: 'other ask', summary: 'other briefing', state: 'ready' });
    const l1 = { level: 'L1', emits: ['observing', 'tentative', 'stabilizing', 'actionable', 'submitted', 'cleared', 'abandoned'] };

    const res = await post(snapshot({ session_id: 'sess-clear', lifecycle_state: 'cleared', length_chars: 0, text_hash: sha256(''), capabilities: l1 }));
    expect(res.status).toBe(201);
    expect(res.json.stale_predictions).toBe(1);
    expect(await store.predictions.get(mine.id)).toMatchObject({ state: 'stale', staleReason: 'draft_cleared', summary: '' });
    expect(await store.predictions.get(other.id)).toMatchObject({ state: 'ready', summary: 'other briefing' });

    const abandoned = await post(snapshot({ session_id: 'sess-other', lifecycle_state: 'abandoned', capabilities: l1 }));
    expect(abandoned.json.stale_predictions).toBe(1);
    expect(await store.predictions.get(other.id)).toMatchObject({ state: 'stale', staleReason: 'draft_abandoned' });
  });

  const L1 = { level: 'L1', emits: ['observing', 'tentative', 'stabilizing', 'actionable', 'submitted', 'cleared', 'abandoned'] };
  const dashboard = async (): Promise<Array<Record<string, any>>> =>
    (await rawRequest({ port: daemon.port, method: 'GET', path: '/predictions/dashboard' })).json.predictions;
  const readyPrediction = (id: string) =>
    until(async () => (await dashboard()).find((p) => p.id === id && p.state === 'ready'), 30_000, 100);

  test('an actionable draft makes one composer_intent prediction per session, anticipated from the latest arc of edits; cleared makes it stale', async () => {
    // No text crosses the boundary, so the draft is anticipated from what the user was just editing.
    writeFile(repo, 'src/parser.ts', 'export function parseTokens(input: string): string[] {\n  return input.split(/\\s+/);\n}\n');
    await until(async () => (await dashboard()).find((p) => p.source === 'arc' && p.state === 'ready'), 30_000, 100);
    const observing = await post(snapshot({ session_id: 'sess-draft', lifecycle_state: 'observing', capabilities: L1 }));
    expect(observing.json.prediction_id).toBeNull();
    const first = await post(snapshot({ session_id: 'sess-draft', lifecycle_state: 'stabilizing', capabilities: L1, field_role: 'chat' }));
    expect(first.status).toBe(201);
    expect(first.json.prediction_id).toEqual(expect.any(String));
    // A later snapshot of the same draft updates that prediction instead of adding one.
    const again = await post(snapshot({ session_id: 'sess-draft', snapshot_id: '01JDX7W2Q8S3K4M5N6P7R8T9V2', lifecycle_state: 'actionable', capabilities: L1 }));
    expect(again.json.prediction_id).toBe(first.json.prediction_id);
    const ready = await readyPrediction(first.json.prediction_id);
    expect(ready).toMatchObject({ source: 'composer_intent', composer_session_id: 'sess-draft', weight: 0.9 });
    expect(ready.prompt).toBe('a draft in the chat field, likely about: review and continue the changes in src');
    expect(Object.keys(ready.evidence)).toEqual(['src/parser.ts']);
    expect(ready.briefing.items.length).toBeGreaterThan(0);
    expect((await dashboard()).filter((p) => p.composer_session_id === 'sess-draft')).toHaveLength(1);

    const cleared = await post(snapshot({ session_id: 'sess-draft', lifecycle_state: 'cleared', length_chars: 0, text_hash: sha256(''), capabilities: L1 }));
    expect(cleared.json.stale_predictions).toBe(1);
    expect((await dashboard()).find((p) => p.id === first.json.prediction_id)).toMatchObject({ state: 'stale', stale_reason: 'draft_cleared', weight: 0.45, briefing: null });
  });

  test('submitting a draft adopts its ready prediction and records the composer_event_id; an L0 submit alone makes none', async () => {
    const draft = await post(snapshot({ session_id: 'sess-submit', lifecycle_state: 'actionable', capabilities: L1 }));
    await readyPrediction(draft.json.prediction_id);
    const submitted = await post(snapshot({ session_id: 'sess-submit', lifecycle_state: 'submitted', capabilities: L1 }));
    expect(submitted.json.prediction_id).toBe(draft.json.prediction_id);
    expect((await dashboard()).find((p) => p.id === draft.json.prediction_id)).toMatchObject({ state: 'adopted', composer_event_id: submitted.json.composer_event_id });
    const adoption = await daemon.context.store.signals.listRecent('adoption', { workspaceId: daemon.context.workspaceId });
    expect(adoption.map((e) => e.payload)).toContainEqual({ prediction_id: draft.json.prediction_id, source: 'composer_intent', composer_event_id: submitted.json.composer_event_id });

    const l0 = await post(snapshot({ session_id: 'sess-l0' }));
    expect(l0.json.prediction_id).toBeNull();
    expect((await dashboard()).filter((p) => p.composer_session_id === 'sess-l0')).toEqual([]);
  });

  test('with refinement on, a submitted draft\'s adoption is pending for the configured window, then confirmed', async () => {
    const config = sousPaths(repo).config;
    await setConfigValue(config, 'refinement.adoption_pending_confirm_seconds', '1');
    await setConfigValue(config, 'refinement.enabled', 'true');
    await until(async () => (daemon.context.config().refinement.enabled && daemon.context.config().refinement.adoption_pending_confirm_seconds === 1 ? true : undefined), 10_000, 50);
    try {
      const draft = await post(snapshot({ session_id: 'sess-refine', lifecycle_state: 'actionable', capabilities: L1 }));
      await readyPrediction(draft.json.prediction_id);
      const submitted = await post(snapshot({ session_id: 'sess-refine', lifecycle_state: 'submitted', capabilities: L1 }));
      const pending = (await dashboard()).find((p) => p.id === draft.json.prediction_id)!;
      // Pending unless the window already passed on a slow machine; either way it is confirmed in the end.
      expect(['pending', 'confirmed']).toContain(pending.adoption);
      const confirmed = await until(async () => (await dashboard()).find((p) => p.id === draft.json.prediction_id && p.adoption === 'confirmed'), 10_000, 100);
      expect(confirmed).toMatchObject({ state: 'adopted', composer_event_id: submitted.json.composer_event_id, adoption_confirm_at: null });
    } finally {
      await setConfigValue(config, 'refinement.enabled', 'false');
      await until(async () => (daemon.context.config().refinement.enabled ? undefined : true), 10_000, 50);
    }
  });

  test('the work-style multiplier follows policy.work_style and is stored on the event', async () => {
    await setConfigValue(sousPaths(repo).config, 'policy.work_style', 'writing');
    await until(async () => (daemon.context.config().policy.work_style === 'writing' ? true : undefined), 10_000, 50);
    const res = await post(snapshot({ snapshot_id: '01JDX7W2Q8S3K4M5N6P7R8T9V1' }));
    expect(res.json).toMatchObject({ work_style: 'writing', multiplier: 1.5 });
    const stored = (await events()).find((e) => e.id === res.json.composer_event_id);
    expect(stored?.payload).toMatchObject({ work_style: 'writing', multiplier: 1.5 });
    // The composer_intent prediction's weight carries the multiplier.
    const draft = await post(snapshot({ session_id: 'sess-writing', lifecycle_state: 'actionable', capabilities: { level: 'L1', emits: ['actionable'] } }));
    expect((await dashboard()).find((p) => p.id === draft.json.prediction_id)?.weight).toBe(1.35);
  });
});

describe('the committed DraftIntentSnapshot JSON Schema', () => {
  test('matches what npm run schema:generate produces from the joi schema (spec 9.2 drift check)', () => {
    const committed = fs.readFileSync(generator.SCHEMA_FILE, 'utf8');
    expect(committed).toBe(generator.draftIntentSnapshotJsonSchema(draftIntentSnapshotSchema));
  });
});
