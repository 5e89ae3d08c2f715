/**
 * Upgrades from every earlier schema: for each committed migration N before the last, a store is
 * created with migrations 0..N only (as a release of that time left it), filled with one
 * representative row per table that exists then, and opened again with the current code, which
 * applies the rest. Every row must still be there and read through today's repositories, and
 * today's writes must work on the upgraded schema. Embedded PGlite and PostgreSQL alike.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { sql } from 'drizzle-orm';
import { MIGRATIONS_FOLDER, openStore, type OpenStoreOptions, type Store } from '@sous/store';
import { postgresUrl, uniqueName } from '../../../test/support/services';
import { makeTempDir, rmTempDir } from '../../../test/support/tmp';
import { dropSchema, requireVmModules } from './helpers';

interface Journal {
  entries: Array<{ idx: number; tag: string }>;
}
const journal = JSON.parse(fs.readFileSync(path.join(MIGRATIONS_FOLDER, 'meta', '_journal.json'), 'utf8')) as Journal;
/** Every schema a user of an earlier release may have: after migration 0, 1, … up to the one before the last. */
const earlier = journal.entries.slice(0, -1).map((e) => e.idx);

const WS = 'ws-upgrade';
const HASH = 'a'.repeat(64);
/**
 * One row per table, in the columns the table had when it was created, so each applies to any
 * schema where its table exists. A later migration that cannot carry such a row fails here.
 */
const SEEDS: Array<{ table: string; insert: string }> = [
  { table: 'workspaces', insert: `INSERT INTO workspaces (id, root_path, name) VALUES ('${WS}', '/repo/upgrade', 'upgrade')` },
  { table: 'work_products', insert: `INSERT INTO work_products (id, workspace_id, kind, state, title, summary) VALUES ('wp-old', '${WS}', 'docs_drift', 'ready', 'README names removed code', 'parseConfig is gone')` },
  { table: 'evidence', insert: `INSERT INTO evidence (id, work_product_id, position, path, line_start, line_end, note) VALUES ('ev-old', 'wp-old', 0, 'README.md', 3, 4, 'names parseConfig')` },
  { table: 'feedback', insert: `INSERT INTO feedback (id, work_product_id, value) VALUES ('fb-old', 'wp-old', 'useful')` },
  { table: 'goals', insert: `INSERT INTO goals (id, workspace_id, title, related_files) VALUES ('goal-old', '${WS}', 'Ship the release', '["package.json"]'::jsonb)` },
  { table: 'predictions', insert: `INSERT INTO predictions (id, workspace_id, source, goal_id, title, state) VALUES ('pred-old', '${WS}', 'goal', 'goal-old', 'Write the changelog', 'ready')` },
  { table: 'resolutions', insert: `INSERT INTO resolutions (id, workspace_id, prompt_hash, briefing) VALUES ('res-old', '${WS}', '${HASH}', 'see CHANGELOG.md')` },
  { table: 'signal_events', insert: `INSERT INTO signal_events (id, workspace_id, kind, payload) VALUES ('sig-old', '${WS}', 'commit', '{"head":"abc"}'::jsonb)` },
  { table: 'jobs', insert: `INSERT INTO jobs (id, name, state, created_at) VALUES ('job-old', 'prepare', 'completed', now())` },
  { table: 'index_state', insert: `INSERT INTO index_state (workspace_id, state, generation, signals, skipped, files_indexed) VALUES ('${WS}', 'ready', 3, '{}'::jsonb, '{}'::jsonb, 1)` },
  { table: 'index_blobs', insert: `INSERT INTO index_blobs (workspace_id, key, text, symbols) VALUES ('${WS}', 'blob-1', 'export const a = 1;', '[]'::jsonb)` },
  { table: 'index_files', insert: `INSERT INTO index_files (workspace_id, path, blob_key, language, bytes, generation) VALUES ('${WS}', 'src/a.ts', 'blob-1', 'typescript', 19, 3)` },
  { table: 'chunk_embeddings', insert: `INSERT INTO chunk_embeddings (workspace_id, model, path, chunk, content_key, start_line, end_line, dims, embedding) VALUES ('${WS}', 'm', 'src/a.ts', 0, 'blob-1', 1, 1, 2, '{0.5,0.25}')` },
];

/** A migrations folder holding migrations 0..last only, with the journal cut to match. */
function migrationsUpTo(last: number): string {
  const dir = makeTempDir(`sous-migrations-${last}-`);
  const kept = journal.entries.filter((e) => e.idx <= last);
  fs.mkdirSync(path.join(dir, 'meta'));
  fs.writeFileSync(path.join(dir, 'meta', '_journal.json'), JSON.stringify({ ...journal, entries: kept }));
  for (const e of kept) fs.copyFileSync(path.join(MIGRATIONS_FOLDER, `${e.tag}.sql`), path.join(dir, `${e.tag}.sql`));
  return dir;
}

async function rows<T>(store: Store, query: string): Promise<T[]> {
  const result = (await store.db.execute(sql.raw(query))) as unknown as { rows: T[] };
  return result.rows;
}

async function tableExists(store: Store, table: string): Promise<boolean> {
  const [row] = await rows<{ found: string | null }>(store, `SELECT to_regclass('${table}')::text AS found`);
  return row?.found != null;
}

/** Seeds every table that exists at this schema; returns the tables seeded. */
async function seed(store: Store): Promise<string[]> {
  const seeded: string[] = [];
  for (const { table, insert } of SEEDS) {
    if (!(await tableExists(store, table))) continue;
    await store.db.execute(sql.raw(insert));
    seeded.push(table);
  }
  return seeded;
}

/** What the current code must see in a store upgraded from a schema that had `seeded` tables. */
async function expectSurvived(store: Store, seeded: string[]): Promise<void> {
  for (const table of seeded) {
    const [row] = await rows<{ n: number }>(store, `SELECT count(*)::int AS n FROM ${table}`);
    expect({ table, rows: row?.n }).toEqual({ table, rows: 1 });
  }
  expect((await store.workspaces.get(WS))?.rootPath).toBe('/repo/upgrade');
  const card = await store.workProducts.get('wp-old');
  expect(card).toMatchObject({ title: 'README names removed code', state: 'ready', kind: 'docs_drift', detector: '' });
  expect(card?.evidence.map((e) => [e.path, e.lineStart, e.lineEnd])).toEqual([['README.md', 3, 4]]);
  expect((await store.goals.get('goal-old'))?.relatedFiles).toEqual(['package.json']);
  expect((await store.predictions.get('pred-old'))?.goalId).toBe('goal-old');
  if (seeded.includes('index_state')) expect((await store.repositoryIndex.stateSummary(WS))?.state).toBe('ready');
  // Today's writes work on the upgraded schema, beside the old rows.
  const fresh = await store.workProducts.insert({ workspaceId: WS, kind: 'docs_drift', title: 'written after the upgrade', detector: 'docs_drift', claimKey: 'upgrade:1', score: 0.5, evidence: [{ path: 'docs/a.md', lineStart: 1 }] });
  expect((await store.workProducts.findByClaim(WS, 'upgrade:1'))?.id).toBe(fresh.id);
}

/** One way to reach a store: embedded in a data directory, or a PostgreSQL schema of its own. */
interface Target {
  name: string;
  options(): Promise<OpenStoreOptions>;
  cleanup(): Promise<void>;
}

function pgliteTarget(): Target {
  const dir = makeTempDir('sous-upgrade-');
  return {
    name: 'pglite',
    async options() {
      requireVmModules();
      return { dataDir: path.join(dir, 'data') };
    },
    async cleanup() {
      rmTempDir(dir);
    },
  };
}

function postgresTarget(): Target {
  const schema = uniqueName('upgrade');
  return {
    name: 'postgres',
    async options() {
      return { databaseUrl: await postgresUrl(), schema };
    },
    async cleanup() {
      await dropSchema(await postgresUrl(), schema);
    },
  };
}

describe.each([
  ['pglite', pgliteTarget],
  ['postgres', postgresTarget],
])('store upgrades from every earlier schema (%s)', (_name, makeTarget) => {
  it.each(earlier)('from the schema after migration %i, keeping every row', async (last) => {
    const target = makeTarget();
    const partial = migrationsUpTo(last);
    try {
      const options = await target.options();
      const old = await openStore({ ...options, migrationsFolder: partial });
      let seeded: string[];
      try {
        seeded = await seed(old);
      } finally {
        await old.close();
      }
      expect(seeded).toEqual(expect.arrayContaining(['workspaces', 'work_products', 'evidence', 'goals', 'predictions']));

      const current = await openStore(options);
      try {
        await expectSurvived(current, seeded);
      } finally {
        await current.close();
      }
    } finally {
      rmTempDir(partial);
      await target.cleanup();
    }
  }, 120_000);
});
