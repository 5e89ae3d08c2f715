/**
 * The "reserved" marker of `sous config keys` must stay honest: a reserved key is one nothing outside
 * @sous/config reads. This scans the TypeScript sources of every service and shared package (the
 * config package itself excluded: it defines, validates and renders every key) for the key's last two
 * segments as written in code (`refinement.enabled`, `skills_loop.enabled`). When someone wires a
 * reserved key, this fails until RESERVED_KEYS (shared/config/src/keys.ts) drops it.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { CONFIG_KEYS, RESERVED_KEYS } from '@sous/config';

const REPO = path.resolve(__dirname, '..');

function sources(dir: string, out: string[] = []): string[] {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name === 'dist' || entry.name === 'test') continue;
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) sources(full, out);
    else if (/\.tsx?$/.test(entry.name)) out.push(full);
  }
  return out;
}

const FILES = ['services', 'shared']
  .flatMap((top) => sources(path.join(REPO, top)))
  .filter((f) => !f.startsWith(path.join(REPO, 'shared', 'config') + path.sep))
  .map((f) => ({ file: path.relative(REPO, f), text: fs.readFileSync(f, 'utf8') }));

/** `refinement.enabled` → /\brefinement\.enabled\b/ (also matches `config.refinement.enabled`). */
function accessPattern(key: string): RegExp {
  const tail = key.replace(/\.<[^>]+>$/, '').split('.').slice(-2).join('\\.');
  return new RegExp(`\\b${tail}\\b`);
}

describe('reserved config keys', () => {
  it('every reserved key is a key of the table', () => {
    const keys = new Set(CONFIG_KEYS.map((k) => k.key));
    for (const key of Object.keys(RESERVED_KEYS)) expect({ key, known: keys.has(key) }).toEqual({ key, known: true });
  });

  it('no service or shared package outside @sous/config reads a reserved key', () => {
    expect(FILES.length).toBeGreaterThan(50);
    const readers = Object.keys(RESERVED_KEYS).flatMap((key) => {
      const re = accessPattern(key);
      return FILES.filter((f) => re.test(f.text)).map((f) => `${key} in ${f.file}`);
    });
    expect(readers).toEqual([]);
  });

  it('the scan finds keys that are read (it is not blind)', () => {
    const read = ['compute.max_cycle_seconds', 'exploration.llm_gate', 'policy.work_style', 'compute.cpu_fraction'];
    for (const key of read) expect({ key, read: FILES.some((f) => accessPattern(key).test(f.text)) }).toEqual({ key, read: true });
  });
});
