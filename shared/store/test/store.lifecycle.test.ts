/**
 * Opening, migrating, locking and closing: concurrency on PostgreSQL, the data-directory lock of
 * PGlite (in this process and across real child processes) and the errors users see.
 */
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { Client } from 'pg';
import { LOCK_FILE_NAME, MIGRATIONS_FOLDER, StoreError, openStore } from '@sous/store';
import { postgresUrl, uniqueName } from '../../../test/support/services';
import { makeTempDir, rmTempDir } from '../../../test/support/tmp';
import { dropSchema, rejection, requireVmModules } from './helpers';
import { buildStore, deadPid, spawnStore } from './processes';

const journal = JSON.parse(fs.readFileSync(path.join(MIGRATIONS_FOLDER, 'meta', '_journal.json'), 'utf8')) as { entries: unknown[] };

async function storeError(promise: Promise<unknown>): Promise<StoreError> {
  const err = await rejection(promise);
  expect(err).toBeInstanceOf(StoreError);
  return err as StoreError;
}

beforeAll(() => {
  buildStore();
}, 120_000);

describe('PostgreSQL', () => {
  let url: string;
  const schemas: string[] = [];

  beforeAll(async () => {
    url = await postgresUrl();
  });

  afterAll(async () => {
    for (const schema of schemas) await dropSchema(url, schema);
  });

  function freshSchema(): string {
    const schema = uniqueName('store');
    schemas.push(schema);
    return schema;
  }

  async function query<T>(text: string): Promise<T[]> {
    const client = new Client({ connectionString: url });
    await client.connect();
    try {
      return (await client.query(text)).rows as T[];
    } finally {
      await client.end();
    }
  }

  async function appliedMigrations(schema: string): Promise<number> {
    const [row] = await query<{ n: number }>(`SELECT count(*)::int AS n FROM "${schema}"."__drizzle_migrations"`);
    return row!.n;
  }

  it('opens three stores at once on one schema, applying each migration once', async () => {
    const schema = freshSchema();
    const stores = await Promise.all([1, 2, 3].map(() => openStore({ databaseUrl: url, schema })));
    try {
      expect(await appliedMigrations(schema)).toBe(journal.entries.length);
      const ws = await stores[0]!.workspaces.upsertByRoot({ rootPath: '/tmp/sous-lifecycle/a' });
      expect((await stores[2]!.workspaces.get(ws.id))?.rootPath).toBe('/tmp/sous-lifecycle/a');
    } finally {
      await Promise.all(stores.map((s) => s.close()));
    }
    const tables = await query<{ table_name: string }>(
      `SELECT table_name FROM information_schema.tables WHERE table_schema = '${schema}' ORDER BY table_name`,
    );
    expect(tables.map((t) => t.table_name)).toEqual(
      expect.arrayContaining(['workspaces', 'work_products', 'evidence', 'feedback', 'goals', 'predictions', 'resolutions', 'signal_events', 'jobs']),
    );
  });

  it('lets two processes migrate one schema at the same time', async () => {
    const schema = freshSchema();
    const children = [spawnStore({ databaseUrl: url, schema }), spawnStore({ databaseUrl: url, schema })];
    const events = await Promise.all(children.map((c) => c.next(['closed', 'error'])));
    expect(events.map((e) => [e.event, e.message])).toEqual([
      ['closed', undefined],
      ['closed', undefined],
    ]);
    expect(await Promise.all(children.map((c) => c.exited))).toEqual([0, 0]);
    expect(await appliedMigrations(schema)).toBe(journal.entries.length);
  });

  it('reopens an up-to-date schema without applying anything again', async () => {
    const schema = freshSchema();
    await (await openStore({ databaseUrl: url, schema })).close();
    const store = await openStore({ databaseUrl: url, schema });
    await store.close();
    expect(await appliedMigrations(schema)).toBe(journal.entries.length);
  });

  it('says what to check when the server does not answer, without the password', async () => {
    const port = await unusedPort();
    const err = await storeError(openStore({ databaseUrl: `postgres://sous:hunter2@127.0.0.1:${port}/sous`, connectTimeoutMs: 2000 }));
    expect(err.code).toBe('store_unreachable');
    expect(err.message).toBe(
      `cannot reach PostgreSQL at postgres://sous:***@127.0.0.1:${port}/sous (ECONNREFUSED): check DATABASE_URL and that the server is running`,
    );
  });

  it('says when the database does not exist', async () => {
    const u = new URL(url);
    u.pathname = `/${uniqueName('nodb')}`;
    const err = await storeError(openStore({ databaseUrl: u.toString() }));
    expect(err.code).toBe('store_rejected');
    expect(err.message).toContain('create it or fix DATABASE_URL');
  });

  it('refuses bad options with one readable line', async () => {
    expect((await storeError(openStore({ databaseUrl: url, schema: 'Robert"); DROP' }))).code).toBe('store_invalid_option');
    expect((await storeError(openStore({ databaseUrl: 'mysql://x@localhost/db' }))).message).toContain("scheme 'mysql:'");
    expect((await storeError(openStore({ databaseUrl: 'not a url' }))).code).toBe('store_invalid_option');
    expect((await storeError(openStore({}))).message).toContain('set DATABASE_URL');
    expect((await storeError(openStore({ databaseUrl: url, poolSize: 0 }))).message).toContain('poolSize');
  });

  it('applies nothing of a migration run that fails', async () => {
    const schema = freshSchema();
    const dir = makeTempDir('sous-migrations-');
    try {
      fs.cpSync(MIGRATIONS_FOLDER, dir, { recursive: true });
      const meta = JSON.parse(fs.readFileSync(path.join(dir, 'meta', '_journal.json'), 'utf8'));
      const last = meta.entries[meta.entries.length - 1];
      meta.entries.push({ ...last, idx: last.idx + 1, when: last.when + 1, tag: '9999_broken' });
      fs.writeFileSync(path.join(dir, 'meta', '_journal.json'), JSON.stringify(meta));
      fs.writeFileSync(path.join(dir, '9999_broken.sql'), 'CREATE TABLE "half" ("id" text);\n--> statement-breakpoint\nSELECT * FROM "no_such_table";');

      const err = await storeError(openStore({ databaseUrl: url, schema, migrationsFolder: dir }));
      expect(err.code).toBe('store_migration_failed');
      expect(err.message).toContain('no_such_table');
      const tables = await query<{ n: number }>(`SELECT count(*)::int AS n FROM information_schema.tables WHERE table_schema = '${schema}'`);
      expect(tables[0]!.n).toBe(1); // only drizzle's history table, empty
      expect(await appliedMigrations(schema)).toBe(0);
    } finally {
      rmTempDir(dir);
    }
  });
});

describe('PGlite data directory', () => {
  let tmp: string;
  let dataDir: string;
  let lockPath: string;

  beforeAll(async () => {
    requireVmModules();
    tmp = makeTempDir('sous-store-life-');
    dataDir = path.join(tmp, 'data');
    lockPath = path.join(dataDir, LOCK_FILE_NAME);
    await (await openStore({ dataDir })).close(); // initdb once for the file (seconds)
  }, 120_000);

  afterAll(() => {
    rmTempDir(tmp);
  });

  it('keeps data across close and reopen and removes its lock on close', async () => {
    const first = await openStore({ dataDir });
    expect(first.kind).toBe('pglite');
    expect(fs.readFileSync(lockPath, 'utf8').trim()).toBe(String(process.pid));
    const ws = await first.workspaces.upsertByRoot({ rootPath: '/tmp/sous-lifecycle/kept' });
    await first.close();
    expect(fs.existsSync(lockPath)).toBe(false);

    const second = await openStore({ dataDir });
    try {
      expect((await second.workspaces.get(ws.id))?.rootPath).toBe('/tmp/sous-lifecycle/kept');
      expect((await second.health()).ok).toBe(true);
    } finally {
      await second.close();
    }
  });

  it('refuses a second open in this process, naming this pid', async () => {
    const store = await openStore({ dataDir });
    try {
      const err = await storeError(openStore({ dataDir }));
      expect(err.code).toBe('store_locked');
      expect(err.message).toBe(
        `the data directory ${dataDir} is in use by process ${process.pid}: stop that process (sous down) or use another directory`,
      );
      expect((await store.health()).ok).toBe(true);
    } finally {
      await store.close();
    }
  });

  it('refuses another process while this one holds the directory', async () => {
    const store = await openStore({ dataDir });
    try {
      const child = spawnStore({ dataDir });
      const event = await child.next(['error', 'opened']);
      expect(event).toMatchObject({ event: 'error', code: 'store_locked' });
      expect(event.message).toContain(`in use by process ${process.pid}`);
      expect(await child.exited).toBe(1);
    } finally {
      await store.close();
    }
  });

  it('is refused while another process holds the directory, and opens once it has closed', async () => {
    const child = spawnStore({ dataDir }, true);
    try {
      await child.next(['opened']);
      const err = await storeError(openStore({ dataDir }));
      expect(err.code).toBe('store_locked');
      expect(err.details.pid).toBe(child.pid);
      expect(err.message).toContain(`in use by process ${child.pid}`);
    } finally {
      child.process.stdin!.end('close\n');
    }
    await child.next(['closed']);
    expect(await child.exited).toBe(0);
    const store = await openStore({ dataDir });
    await store.close();
  });

  it('takes over the lock of a process that was killed', async () => {
    const child = spawnStore({ dataDir }, true);
    await child.next(['opened']);
    child.process.kill('SIGKILL');
    await child.exited;
    expect(fs.readFileSync(lockPath, 'utf8').trim()).toBe(String(child.pid));

    const store = await openStore({ dataDir });
    try {
      expect(fs.readFileSync(lockPath, 'utf8').trim()).toBe(String(process.pid));
      expect((await store.health()).ok).toBe(true);
    } finally {
      await store.close();
    }
  });

  it('takes over a stale lock file naming a dead pid or holding garbage', async () => {
    for (const content of [`${await deadPid()}\n`, 'not a pid', '']) {
      fs.writeFileSync(lockPath, content);
      const store = await openStore({ dataDir });
      expect(fs.readFileSync(lockPath, 'utf8').trim()).toBe(String(process.pid));
      await store.close();
      expect(fs.existsSync(lockPath)).toBe(false);
    }
    expect(fs.readdirSync(dataDir).filter((f) => f.startsWith(LOCK_FILE_NAME))).toEqual([]);
  });
});

/** A loopback port nothing listens on right now. */
function unusedPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

