/**
 * The store contract: the same cases against embedded PGlite and PostgreSQL (a unique schema each run).
 */
import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { StoreError, sha256Hex, workProducts, type Store } from '@sous/store';
import { pgliteFactory, postgresFactory, rejection, type StoreFactory } from './helpers';

const factories: StoreFactory[] = [pgliteFactory(), postgresFactory()];

describe.each(factories)('store contract ($name)', (factory) => {
  let store: Store;

  beforeAll(async () => {
    store = await factory.open();
  });

  afterAll(async () => {
    await store?.close();
    await factory.cleanup();
  });

  /** A workspace of its own for each test, so cases never see each other's rows. */
  async function workspace(): Promise<string> {
    const ws = await store.workspaces.upsertByRoot({ rootPath: `/tmp/sous-contract/${randomUUID()}` });
    return ws.id;
  }

  async function refusal(promise: Promise<unknown>): Promise<StoreError> {
    const err = await rejection(promise);
    expect(err).toBeInstanceOf(StoreError);
    return err as StoreError;
  }

  it('reports its kind and is healthy', async () => {
    expect(store.kind).toBe(factory.name);
    const health = await store.health();
    expect(health.ok).toBe(true);
    expect(health.latencyMs).toBeGreaterThanOrEqual(0);
    expect(health.detail).toContain(factory.name);
  });

  it('upserts workspaces by root path', async () => {
    const root = `/tmp/sous-contract/${randomUUID()}/repo`;
    const first = await store.workspaces.upsertByRoot({ rootPath: root, details: { wired: ['claude'] } });
    expect(first.name).toBe('repo');
    expect(first.rootPath).toBe(root);
    expect(first.createdAt).toBeInstanceOf(Date);

    const again = await store.workspaces.upsertByRoot({ rootPath: `${root}/`, name: 'Demo' });
    expect(again.id).toBe(first.id);
    expect(again.name).toBe('Demo');
    expect(again.details).toEqual({ wired: ['claude'] });
    expect(again.updatedAt.getTime()).toBeGreaterThanOrEqual(first.updatedAt.getTime());

    expect(await store.workspaces.get(first.id)).toEqual(again);
    expect(await store.workspaces.getByRoot(root)).toEqual(again);
    expect((await store.workspaces.list()).map((w) => w.id)).toContain(first.id);
    expect(await store.workspaces.get('no-such-id')).toBeUndefined();
  });

  it('stores a card with its evidence and reads it back', async () => {
    const workspaceId = await workspace();
    const before = Date.now();
    const details = { targets: ['src/a.ts'], score: 0.82, nested: { ok: true, none: null }, note: 'naïve ✓ "quoted"' };
    const card = await store.workProducts.insert({
      workspaceId,
      kind: 'review_note',
      title: 'Unchecked error in loader',
      summary: 'The loader swallows ENOENT',
      body: '## Finding\nThe loader ignores errors.',
      rationale: 'Changed in the last commit',
      details,
      evidence: [
        { path: 'src/loader.ts', lineStart: 10, lineEnd: 24, contentHash: 'a'.repeat(64), commit: 'abc123' },
        { path: 'src/index.ts', note: 'calls the loader' },
      ],
    });
    expect(card.state).toBe('candidate');
    expect(card.evidence.map((e) => [e.position, e.path])).toEqual([
      [0, 'src/loader.ts'],
      [1, 'src/index.ts'],
    ]);

    const read = await store.workProducts.get(card.id);
    expect(read).toEqual(card);
    expect(read!.details).toEqual(details);
    expect(read!.evidence[0]).toMatchObject({ lineStart: 10, lineEnd: 24, contentHash: 'a'.repeat(64), commit: 'abc123', note: '' });
    expect(read!.evidence[1]).toMatchObject({ lineStart: null, lineEnd: null, contentHash: null, commit: null });
    expect(read!.createdAt).toBeInstanceOf(Date);
    expect(Math.abs(read!.createdAt.getTime() - before)).toBeLessThan(60_000);
    expect(await store.workProducts.get('missing')).toBeUndefined();
  });

  it('lists cards by workspace and state and changes their state', async () => {
    const workspaceId = await workspace();
    const other = await workspace();
    const a = await store.workProducts.insert({ workspaceId, kind: 'bug_hypothesis', title: 'A' });
    const b = await store.workProducts.insert({ workspaceId, kind: 'docs_drift', title: 'B', state: 'ready' });
    await store.workProducts.insert({ workspaceId: other, kind: 'research_brief', title: 'elsewhere' });

    expect((await store.workProducts.list({ workspaceId })).map((p) => p.id).sort()).toEqual([a.id, b.id].sort());
    expect((await store.workProducts.list({ workspaceId, states: ['ready'] })).map((p) => p.id)).toEqual([b.id]);
    expect(await store.workProducts.list({ workspaceId, limit: 1 })).toHaveLength(1);

    const hidden = await store.workProducts.updateState(b.id, 'hidden');
    expect(hidden!.state).toBe('hidden');
    expect(hidden!.updatedAt.getTime()).toBeGreaterThanOrEqual(b.updatedAt.getTime());
    expect(await store.workProducts.list({ workspaceId, states: ['ready'] })).toEqual([]);
    expect(await store.workProducts.updateState('missing', 'ready')).toBeUndefined();
  });

  it('refuses invalid card values without leaking them, and never half-writes a card', async () => {
    const workspaceId = await workspace();
    const secretBody = 'BODY-THAT-MUST-NOT-APPEAR-IN-ERRORS';
    const badState = await refusal(
      store.workProducts.insert({ workspaceId, kind: 'review_note', title: 't', body: secretBody, state: 'shipped' as 'ready' }),
    );
    expect(badState.code).toBe('store_invalid_value');
    expect(badState.details.constraint).toBe('work_products_state_check');
    expect(badState.message).toContain('saving the work product');
    expect(badState.message).not.toContain(secretBody);

    const card = await store.workProducts.insert({ workspaceId, kind: 'virtual_diff', title: 'diff' });
    const badUpdate = await refusal(store.workProducts.updateState(card.id, 'gone' as 'ready'));
    expect(badUpdate.code).toBe('store_invalid_value');

    const badKind = await refusal(store.workProducts.insert({ workspaceId, kind: 'poem' as 'review_note', title: 't' }));
    expect(badKind.details.constraint).toBe('work_products_kind_check');

    const badLines = await refusal(
      store.workProducts.insert({ workspaceId, kind: 'review_note', title: 'atomic', evidence: [{ path: 'a.ts', lineStart: 9, lineEnd: 3 }] }),
    );
    expect(badLines.details.constraint).toBe('evidence_lines_check');
    const titles = (await store.workProducts.list({ workspaceId })).map((p) => p.title);
    expect(titles).toEqual(['diff']);

    const orphan = await refusal(store.workProducts.insert({ workspaceId: 'no-such-workspace', kind: 'review_note', title: 't' }));
    expect(orphan.code).toBe('store_missing_reference');
  });

  it('records feedback on cards and resolutions', async () => {
    const workspaceId = await workspace();
    const card = await store.workProducts.insert({ workspaceId, kind: 'review_note', title: 'x' });
    await store.feedback.record({ workProductId: card.id, value: 'useful', clientId: 'claude-code' });
    await store.feedback.record({ workProductId: card.id, value: 'wrong' });
    const list = await store.feedback.listForProduct(card.id);
    expect(list.map((f) => [f.value, f.clientId])).toEqual([
      ['useful', 'claude-code'],
      ['wrong', null],
    ]);

    const resolution = await store.resolutions.insert({ workspaceId, promptHash: sha256Hex('fix the loader') });
    await store.feedback.record({ resolutionId: resolution.id, value: 'partial' });
    expect((await store.feedback.listForResolution(resolution.id)).map((f) => f.value)).toEqual(['partial']);

    const bad = await refusal(store.feedback.record({ workProductId: card.id, value: 'great' as 'useful' }));
    expect(bad.details.constraint).toBe('feedback_value_check');
    const twoTargets = { workProductId: card.id, resolutionId: resolution.id, value: 'useful' } as unknown as Parameters<Store['feedback']['record']>[0];
    expect((await refusal(store.feedback.record(twoTargets))).details.constraint).toBe('feedback_target_check');
    expect((await refusal(store.feedback.record({ workProductId: 'missing', value: 'useful' }))).code).toBe('store_missing_reference');
  });

  it('keeps goals with their status', async () => {
    const workspaceId = await workspace();
    const goal = await store.goals.create({ workspaceId, title: 'Ship the store', relatedFiles: ['shared/store/src/store.ts'] });
    expect(goal.status).toBe('active');
    expect(goal.relatedFiles).toEqual(['shared/store/src/store.ts']);
    expect(goal.reconciliationState).toBe('unreconciled');
    const paused = await store.goals.create({ workspaceId, title: 'Later', status: 'paused' });

    const achieved = await store.goals.updateStatus(goal.id, 'achieved');
    expect(achieved!.status).toBe('achieved');
    expect((await store.goals.list(workspaceId)).map((g) => g.id)).toEqual([goal.id, paused.id]);
    expect((await store.goals.list(workspaceId, { statuses: ['paused'] })).map((g) => g.id)).toEqual([paused.id]);
    expect(await store.goals.updateStatus('missing', 'active')).toBeUndefined();

    const bad = await refusal(store.goals.updateStatus(goal.id, 'done' as 'achieved'));
    expect(bad.details.constraint).toBe('goals_status_check');
    expect(await store.goals.delete(paused.id)).toBe(true);
    expect(await store.goals.delete(paused.id)).toBe(false);
    expect(await store.goals.get(paused.id)).toBeUndefined();

    const reconciled = await store.goals.update(goal.id, { status: 'active', reconciliationState: 'stale', details: { reasons: ['x was deleted'] } });
    expect([reconciled!.status, reconciled!.reconciliationState, reconciled!.details]).toEqual(['active', 'stale', { reasons: ['x was deleted'] }]);
    expect((await store.goals.get(goal.id))!.reconciliationState).toBe('stale');
    expect(await store.goals.update('missing', { reconciliationState: 'stale' })).toBeUndefined();
  });

  it('keeps predictions and marks them stale on a signal', async () => {
    const workspaceId = await workspace();
    const goal = await store.goals.create({ workspaceId, title: 'g' });
    const fromGoal = await store.predictions.insert({
      workspaceId,
      source: 'goal',
      goalId: goal.id,
      title: 'Add tests for the loader',
      weight: 0.75,
      pathHashes: { 'src/loader.ts': 'b'.repeat(64) },
    });
    const fromComposer = await store.predictions.insert({ workspaceId, source: 'composer_intent', composerSessionId: 's-1', title: 'c', state: 'ready' });
    expect(fromGoal).toMatchObject({ state: 'drafting', weight: 0.75, staleReason: null, staleAt: null });
    expect(fromGoal.pathHashes).toEqual({ 'src/loader.ts': 'b'.repeat(64) });

    expect(await store.predictions.markStale([fromGoal.id, fromComposer.id], 'file_change')).toBe(2);
    expect(await store.predictions.markStale([fromGoal.id], 'commit')).toBe(0);
    expect(await store.predictions.markStale([], 'commit')).toBe(0);
    const stale = await store.predictions.get(fromGoal.id);
    expect(stale).toMatchObject({ state: 'stale', staleReason: 'file_change' });
    expect(stale!.staleAt).toBeInstanceOf(Date);
    expect((await store.predictions.list(workspaceId, { states: ['stale'] })).map((p) => p.id).sort()).toEqual([fromGoal.id, fromComposer.id].sort());

    const fresh = await store.predictions.insert({ workspaceId, source: 'history', title: 'h' });
    const bad = await refusal(store.predictions.markStale([fresh.id], 'boredom' as 'commit'));
    expect(bad.code).toBe('store_invalid_value');
    expect((await refusal(store.predictions.insert({ workspaceId, source: 'guess' as 'goal', title: 't' }))).details.constraint).toBe(
      'predictions_source_check',
    );

    await store.goals.delete(goal.id);
    expect((await store.predictions.get(fromGoal.id))!.goalId).toBeNull();
  });

  it("marks one composer session's predictions stale and clears their briefing, in its workspace only", async () => {
    const workspaceId = await workspace();
    const elsewhere = await workspace();
    const a = await store.predictions.insert({ workspaceId, source: 'composer_intent', composerSessionId: 's-a', title: 'a', summary: 'brief a', state: 'ready' });
    const b = await store.predictions.insert({ workspaceId, source: 'composer_intent', composerSessionId: 's-b', title: 'b', summary: 'brief b', state: 'ready' });
    const sameIdOther = await store.predictions.insert({ workspaceId: elsewhere, source: 'composer_intent', composerSessionId: 's-a', title: 'o', summary: 'brief o' });
    expect(await store.predictions.markSessionStale(workspaceId, 's-a', 'draft_cleared')).toBe(1);
    expect(await store.predictions.markSessionStale(workspaceId, 's-a', 'draft_abandoned')).toBe(0);
    expect(await store.predictions.get(a.id)).toMatchObject({ state: 'stale', staleReason: 'draft_cleared', summary: '' });
    expect(await store.predictions.get(b.id)).toMatchObject({ state: 'ready', summary: 'brief b' });
    expect(await store.predictions.get(sameIdOther.id)).toMatchObject({ state: 'drafting', summary: 'brief o' });
  });

  it('updates a prediction (stale with a reason and time, then cleared) and deletes predictions', async () => {
    const workspaceId = await workspace();
    const p = await store.predictions.insert({ workspaceId, source: 'goal', title: 'continue: x', pathHashes: { 'a.ts': 'h1' }, details: { briefing: { items: [] } } });
    const stale = await store.predictions.update(p.id, { state: 'stale', staleReason: 'file_change', weight: 0.5, details: { briefing: null } });
    expect(stale).toMatchObject({ state: 'stale', staleReason: 'file_change', weight: 0.5, details: { briefing: null }, pathHashes: { 'a.ts': 'h1' } });
    expect(stale!.staleAt).toBeInstanceOf(Date);
    expect(await store.predictions.update(p.id, { state: 'ready', staleReason: null })).toMatchObject({ state: 'ready', staleReason: null, staleAt: null });
    expect(await store.predictions.update('missing', { weight: 2 })).toBeUndefined();
    const bad = await refusal(store.predictions.update(p.id, { state: 'gone' as never }));
    expect(bad.details.constraint).toBe('predictions_state_check');
    const q = await store.predictions.insert({ workspaceId, source: 'arc', title: 'arc' });
    expect(await store.predictions.delete([])).toBe(0);
    expect(await store.predictions.delete([p.id, q.id, 'missing'])).toBe(2);
    expect(await store.predictions.list(workspaceId)).toEqual([]);
  });

  it('keeps resolutions with their named fields, never the prompt', async () => {
    const workspaceId = await workspace();
    const resolution = await store.resolutions.insert({
      workspaceId,
      promptHash: sha256Hex('why does the loader fail?'),
      briefing: 'The loader ignores ENOENT.',
      evidence: [{ path: 'src/loader.ts', lineStart: 3, lineEnd: 9, commit: 'abc' }],
      alternativesConsidered: [{ angle: 'config', score: 0.2 }],
      predictedResponse: 'Handle ENOENT',
      briefingTokenUsed: 812,
      briefingTokenBudget: 2000,
    });
    const read = await store.resolutions.get(resolution.id);
    expect(read).toEqual(resolution);
    expect(read).toMatchObject({ draft: null, composerEventId: null, briefingTokenUsed: 812, briefingTokenBudget: 2000 });
    expect(read!.evidence).toEqual([{ path: 'src/loader.ts', lineStart: 3, lineEnd: 9, commit: 'abc' }]);
    expect(read!.alternativesConsidered).toEqual([{ angle: 'config', score: 0.2 }]);

    const eventId = randomUUID();
    expect((await store.resolutions.setComposerEvent(resolution.id, eventId))!.composerEventId).toBe(eventId);
    expect(await store.resolutions.get('missing')).toBeUndefined();

    const rawPrompt = await refusal(store.resolutions.insert({ workspaceId, promptHash: 'why does the loader fail?' }));
    expect(rawPrompt.details.constraint).toBe('resolutions_prompt_hash_check');
    expect(rawPrompt.message).not.toContain('loader');
    const negative = await refusal(store.resolutions.insert({ workspaceId, promptHash: sha256Hex('x'), briefingTokenUsed: -1 }));
    expect(negative.details.constraint).toBe('resolutions_tokens_check');
  });

  it('appends signal events and lists recent ones by kind', async () => {
    const workspaceId = await workspace();
    const snapshot = {
      session_id: 's-1',
      snapshot_id: 'snap-1',
      timestamp: '2025-03-01T09:00:00.000Z',
      lifecycle_state: 'submitted',
      text_hash: sha256Hex('draft'),
      length_chars: 5,
      capabilities: { level: 'L0', emits: ['submitted'], host_app: 'claude-code', host_kind: 'cli' },
    };
    const t0 = new Date('2025-03-01T09:00:00.000Z');
    const older = await store.signals.append({ kind: 'composer_lifecycle', workspaceId, payload: snapshot, occurredAt: t0 });
    const newer = await store.signals.append({
      kind: 'composer_lifecycle',
      workspaceId,
      payload: { ...snapshot, snapshot_id: 'snap-2' },
      occurredAt: new Date(t0.getTime() + 1000),
    });
    await store.signals.append({ kind: 'file_change', workspaceId, payload: { path: 'src/a.ts' } });

    const recent = await store.signals.listRecent('composer_lifecycle', { workspaceId });
    expect(recent.map((e) => e.id)).toEqual([newer.id, older.id]);
    expect(recent[1]!.payload).toEqual(snapshot);
    expect(recent[1]!.occurredAt.toISOString()).toBe(t0.toISOString());
    expect((await store.signals.listRecent('composer_lifecycle', { workspaceId, limit: 1 })).map((e) => e.id)).toEqual([newer.id]);
    expect(
      (await store.signals.listRecent('composer_lifecycle', { workspaceId, since: new Date(t0.getTime() + 500) })).map((e) => e.id),
    ).toEqual([newer.id]);

    const raw = await refusal(store.signals.append({ kind: 'composer_lifecycle', workspaceId, payload: { ...snapshot, nested: { text: 'hello' } } }));
    expect(raw.code).toBe('store_raw_text_refused');
    expect(raw.message).toContain('payload.nested.text');
    expect(raw.message).not.toContain('hello');
    const badKind = await refusal(store.signals.append({ kind: 'keystroke' as 'commit', workspaceId, payload: {} }));
    expect(badKind.details.constraint).toBe('signal_events_kind_check');
  });

  it('mirrors job states', async () => {
    const id = `job_${randomUUID()}`;
    const createdAt = '2025-03-01T10:00:00.000Z';
    const queued = await store.jobs.upsert({ id, name: 'prepare-cycle', state: 'queued', payload: { workspace: 'w1', depth: 2 }, createdAt });
    expect(queued).toMatchObject({ state: 'queued', startedAt: null, finishedAt: null, error: null });
    await store.jobs.upsert({ id, name: 'prepare-cycle', state: 'running', payload: { workspace: 'w1', depth: 2 }, createdAt, startedAt: '2025-03-01T10:00:01.000Z' });
    const failed = await store.jobs.upsert({
      id,
      name: 'prepare-cycle',
      state: 'failed',
      payload: { workspace: 'w1', depth: 2 },
      error: 'model backend unavailable',
      createdAt: '2030-01-01T00:00:00.000Z',
      startedAt: '2025-03-01T10:00:01.000Z',
      finishedAt: new Date('2025-03-01T10:00:03.500Z'),
    });
    expect(failed.createdAt.toISOString()).toBe(createdAt);
    expect(failed.finishedAt!.toISOString()).toBe('2025-03-01T10:00:03.500Z');

    const read = await store.jobs.get(id);
    expect(read).toMatchObject({ name: 'prepare-cycle', state: 'failed', error: 'model backend unavailable', payload: { workspace: 'w1', depth: 2 } });
    expect(await store.jobs.get('job_missing')).toBeUndefined();

    const scalar = await store.jobs.upsert({ id: `${id}_2`, name: 'n', state: 'completed', payload: 'just-a-string', result: [1, 2], progress: 1, createdAt: new Date() });
    expect(scalar).toMatchObject({ payload: 'just-a-string', result: [1, 2], progress: 1 });

    const failedIds = (await store.jobs.listRecent({ states: ['failed'], limit: 500 })).map((j) => j.id);
    expect(failedIds).toContain(id);
    expect(failedIds).not.toContain(`${id}_2`);
    expect((await store.jobs.listRecent({ limit: 1 })).map((j) => j.id)).toEqual([`${id}_2`]);

    // Several processes write one job's states: a late `queued` or `running` never replaces a later state.
    const late = await store.jobs.upsert({ id, name: 'prepare-cycle', state: 'queued', payload: { workspace: 'w1', depth: 2 }, createdAt });
    expect(late).toMatchObject({ state: 'failed', error: 'model backend unavailable' });
    const racing = `${id}_race`;
    await store.jobs.upsert({ id: racing, name: 'n', state: 'running', payload: null, createdAt, startedAt: createdAt });
    expect(await store.jobs.upsert({ id: racing, name: 'n', state: 'queued', payload: null, createdAt })).toMatchObject({ state: 'running' });
    expect(await store.jobs.upsert({ id: racing, name: 'n', state: 'completed', payload: null, createdAt, result: 1 })).toMatchObject({ state: 'completed', result: 1 });

    const badState = await refusal(store.jobs.upsert({ id: `${id}_3`, name: 'n', state: 'paused' as 'queued', payload: null, createdAt }));
    expect(badState.details.constraint).toBe('jobs_state_check');
    const badTime = await refusal(store.jobs.upsert({ id: `${id}_4`, name: 'n', state: 'queued', payload: null, createdAt: 'yesterday' }));
    expect(badTime.code).toBe('store_invalid_value');
  });

  it('exposes a typed drizzle db for queries the repositories do not cover', async () => {
    const workspaceId = await workspace();
    await store.workProducts.insert({ workspaceId, kind: 'research_brief', title: 'r' });
    const [row] = await store.db
      .select({ n: sql<number>`count(*)::int` })
      .from(workProducts)
      .where(sql`${workProducts.workspaceId} = ${workspaceId}`);
    expect(row!.n).toBe(1);
  });

  it('closes idempotently and then reports unhealthy', async () => {
    await Promise.all([store.close(), store.close()]);
    await store.close();
    const health = await store.health();
    expect(health.ok).toBe(false);
    expect(health.detail).toContain('closed');
  });
});
