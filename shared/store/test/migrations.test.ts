/**
 * The committed migrations: schema-neutral SQL, and in step with src/schema (drizzle-kit would
 * generate nothing new from them).
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { MIGRATIONS_FOLDER } from '@sous/store';
import { makeTempDir, rmTempDir } from '../../../test/support/tmp';

const ROOT = path.join(__dirname, '..', '..', '..');
const sqlFiles = fs.readdirSync(MIGRATIONS_FOLDER).filter((f) => f.endsWith('.sql'));

describe('committed migrations', () => {
  it('has one SQL file per journal entry', () => {
    const journal = JSON.parse(fs.readFileSync(path.join(MIGRATIONS_FOLDER, 'meta', '_journal.json'), 'utf8')) as {
      entries: Array<{ tag: string }>;
    };
    expect(sqlFiles.sort()).toEqual(journal.entries.map((e) => `${e.tag}.sql`).sort());
  });

  it('never names the public schema, so every store schema gets its own tables', () => {
    for (const file of sqlFiles) {
      const text = fs.readFileSync(path.join(MIGRATIONS_FOLDER, file), 'utf8');
      expect({ file, qualified: /"public"\./.test(text) }).toEqual({ file, qualified: false });
    }
  });

  it('matches src/schema: drizzle-kit generates nothing new', () => {
    const out = makeTempDir('sous-drift-');
    try {
      fs.cpSync(MIGRATIONS_FOLDER, out, { recursive: true });
      const bin = path.join(ROOT, 'node_modules', 'drizzle-kit', 'bin.cjs');
      // drizzle-kit prefixes --out with "./", so it must be relative to the working directory.
      const stdout = execFileSync(
        process.execPath,
        [bin, 'generate', '--dialect', 'postgresql', '--schema', 'shared/store/src/schema/index.ts', '--out', path.relative(ROOT, out)],
        { cwd: ROOT, encoding: 'utf8', stdio: 'pipe' },
      );
      expect(stdout).toContain('No schema changes');
      expect(fs.readdirSync(out).filter((f) => f.endsWith('.sql')).sort()).toEqual([...sqlFiles].sort());
    } finally {
      rmTempDir(out);
    }
  }, 60_000);
});
