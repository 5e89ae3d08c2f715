/**
 * The dependency direction a newcomer relies on: services depend on shared packages, never the
 * other way; shared packages form no cycle; every import of a sibling is declared in package.json.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

const ROOT = path.join(__dirname, '..');
const SERVICE_NAMES = fs.readdirSync(path.join(ROOT, 'services'));
const SHARED_NAMES = fs.readdirSync(path.join(ROOT, 'shared')).filter((d) => fs.existsSync(path.join(ROOT, 'shared', d, 'package.json')));

function sourceFiles(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? sourceFiles(p) : p.endsWith('.ts') ? [p] : [];
  });
}

function importsOf(file: string): string[] {
  const text = fs.readFileSync(file, 'utf8');
  return [...text.matchAll(/(?:from|import|require\()\s*['"]([^'"]+)['"]/g)].map((m) => m[1] as string);
}

function sousImports(pkgDir: string): Set<string> {
  const out = new Set<string>();
  for (const f of sourceFiles(path.join(pkgDir, 'src'))) {
    for (const spec of importsOf(f)) {
      const m = /^@sous\/([a-z-]+)/.exec(spec);
      if (m) out.add(m[1] as string);
    }
  }
  return out;
}

describe('architecture', () => {
  test.each(SHARED_NAMES)('shared/%s never imports a service', (name) => {
    const dir = path.join(ROOT, 'shared', name);
    for (const file of sourceFiles(path.join(dir, 'src'))) {
      for (const spec of importsOf(file)) {
        expect({ file: path.relative(ROOT, file), spec, service: SERVICE_NAMES.some((s) => spec === `@sous/${s}` || spec.includes('/services/')) }).toMatchObject({ service: false });
      }
    }
  });

  test.each([...SHARED_NAMES.map((n) => `shared/${n}`), ...SERVICE_NAMES.map((n) => `services/${n}`)])('%s declares every @sous package it imports', (rel) => {
    const dir = path.join(ROOT, rel);
    const declared = Object.keys((JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')) as { dependencies?: Record<string, string> }).dependencies ?? {});
    for (const used of sousImports(dir)) expect(declared).toContain(`@sous/${used}`);
  });

  test('shared packages form no import cycle', () => {
    const graph = new Map(SHARED_NAMES.map((n) => [n, [...sousImports(path.join(ROOT, 'shared', n))]]));
    const state = new Map<string, 'visiting' | 'done'>();
    const visit = (n: string, trail: string[]): void => {
      if (state.get(n) === 'done') return;
      if (state.get(n) === 'visiting') throw new Error(`import cycle: ${[...trail, n].join(' -> ')}`);
      state.set(n, 'visiting');
      for (const dep of graph.get(n) ?? []) visit(dep, [...trail, n]);
      state.set(n, 'done');
    };
    expect(() => SHARED_NAMES.forEach((n) => visit(n, []))).not.toThrow();
  });
});
