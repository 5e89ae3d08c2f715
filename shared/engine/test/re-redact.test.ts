/**
 * Prepared work stored under earlier redact patterns is redacted again under today's, on both store
 * kinds: cards (text, details, evidence notes), resolutions and predictions, queried directly after.
 * A virtual diff whose patch changed goes stale; a second pass under the same patterns reads nothing.
 */
import { sql } from 'drizzle-orm';
import { defaultConfig } from '@sous/config';
import { compileRedactPatterns } from '@sous/protocol';
import type { Store } from '@sous/store';
import { REDACTED_PATCH_REASON, reRedactStoredWork } from '../src';
import { pgliteFactory, postgresFactory, type StoreFactory } from '../../store/test/helpers';

/** Format-valid fake values, built at run time so this file holds nothing a scanner would flag. */
const AWS = ['AKIA', 'Q7RT', 'ZX4W', 'PL9M', 'NB2V'].join('');
const SLACK = ['xoxb', '-', '2468013579', '-', 'QwErTyUiOpAs'].join('');
const DB_URL = ['postgres://app:', 'Tr0ub4dor', '-', 'x9', '@db.internal:5432/app'].join('');
const DB_PASSWORD = 'Tr0ub4dor-x9';

const factories: StoreFactory[] = [pgliteFactory(), postgresFactory()];

describe.each(factories)('stored prepared work is redacted again on $name', (factory) => {
  let store: Store;
  beforeAll(async () => {
    store = await factory.open();
  }, 60_000);
  afterAll(async () => {
    await store.close();
    await factory.cleanup();
  });

  /** Every text column of the prepared-work tables for the workspace, as one string. */
  async function dump(workspaceId: string): Promise<string> {
    const rows = async (query: ReturnType<typeof sql>) => JSON.stringify(((await store.db.execute(query)) as unknown as { rows: unknown[] }).rows);
    return [
      await rows(sql`SELECT * FROM work_products WHERE workspace_id = ${workspaceId}`),
      await rows(sql`SELECT e.* FROM evidence e JOIN work_products w ON w.id = e.work_product_id WHERE w.workspace_id = ${workspaceId}`),
      await rows(sql`SELECT * FROM resolutions WHERE workspace_id = ${workspaceId}`),
      await rows(sql`SELECT * FROM predictions WHERE workspace_id = ${workspaceId}`),
    ].join('\n');
  }

  test('cards, resolutions and predictions written under the old patterns hold no secret after one pass', async () => {
    const workspaceId = (await store.workspaces.upsertByRoot({ rootPath: `/tmp/re-redact-${factory.name}` })).id;
    // As a release that redacted only sk- keys wrote them.
    const note = await store.workProducts.insert({
      workspaceId,
      kind: 'review_note',
      state: 'ready',
      title: `Key ${AWS} in src/aws.ts`,
      body: `The line reads \`const id = "${AWS}"\` and posts to Slack with ${SLACK}.`,
      details: { quoted: [`url = "${DB_URL}"`] },
      evidence: [{ path: 'src/aws.ts', lineStart: 2, lineEnd: 2, note: `assigns ${AWS}` }],
    });
    const diff = await store.workProducts.insert({
      workspaceId,
      kind: 'virtual_diff',
      state: 'ready',
      title: 'Read the database URL from the environment',
      body: 'Moves the URL out of the source.',
      details: { patch: `--- a/src/db.ts\n+++ b/src/db.ts\n@@ -1 +1 @@\n-export const url = "${DB_URL}";\n+export const url = process.env.DATABASE_URL;\n` },
    });
    const clean = await store.workProducts.insert({ workspaceId, kind: 'docs_drift', state: 'ready', title: 'docs/guide.md names parseConfig', body: 'It was renamed.' });
    await store.resolutions.insert({ workspaceId, promptHash: 'a'.repeat(64), briefing: `Rotate ${SLACK}.`, draft: `password = "${DB_PASSWORD}"` });
    await store.predictions.insert({ workspaceId, source: 'goal', title: `Rotate ${AWS}`, details: { why: [SLACK] } });
    const before = await dump(workspaceId);
    for (const secret of [AWS, SLACK, DB_PASSWORD]) expect(before).toContain(secret);

    const patterns = compileRedactPatterns(defaultConfig().privacy.redact_patterns);
    const result = await reRedactStoredWork(store, workspaceId, patterns);
    expect(result).toMatchObject({ ran: true, resolutions: 1, predictions: 1 });
    expect(result.workProducts.map((c) => c.id).sort()).toEqual([note.id, diff.id].sort());

    const after = await dump(workspaceId);
    for (const secret of [AWS, SLACK, DB_PASSWORD]) expect(after).not.toContain(secret);
    const card = await store.workProducts.get(note.id);
    expect(card?.title).toBe('Key AKIA[redacted] in src/aws.ts');
    expect(card?.state).toBe('ready');
    expect(card?.evidence[0]?.note).toBe('assigns AKIA[redacted]');
    expect(card?.details).toEqual({ quoted: ['url = "postgres://app:[redacted]@db.internal:5432/app"'] });
    // A patch holding [redacted] would not apply: the card goes stale until a cycle regenerates it.
    expect(await store.workProducts.get(diff.id)).toMatchObject({ state: 'stale', stateReason: REDACTED_PATCH_REASON });
    expect(await store.workProducts.get(clean.id)).toMatchObject({ state: 'ready', title: clean.title, updatedAt: clean.updatedAt });

    // Once per set of patterns: the next start reads nothing.
    expect((await reRedactStoredWork(store, workspaceId, patterns)).ran).toBe(false);
    // A new pattern runs it again.
    const more = compileRedactPatterns([...defaultConfig().privacy.redact_patterns, 'parseConfig']);
    const again = await reRedactStoredWork(store, workspaceId, more);
    expect(again.workProducts.map((c) => c.id)).toEqual([clean.id]);
    expect((await store.workProducts.get(clean.id))?.title).toBe('docs/guide.md names [redacted]');
  }, 60_000);
});
