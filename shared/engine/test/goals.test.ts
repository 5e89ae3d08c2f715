/** Goal reconciliation rules (pure): what demotes, what promotes, and which paths are accepted. */
import { canonicalRelatedPath, reconcile } from '../src';

describe('reconcile', () => {
  test('matching evidence is current; a deleted or changed file is stale, with one reason per file', () => {
    expect(reconcile({ 'a.ts': 'h1', 'b.ts': null }, { 'a.ts': 'h1', 'b.ts': null })).toEqual({ state: 'current', reasons: [] });
    expect(reconcile({ 'a.ts': 'h1', 'b.ts': 'h2' }, { 'a.ts': null, 'b.ts': 'h3' })).toEqual({ state: 'stale', reasons: ['a.ts was deleted', 'b.ts changed since declared'] });
  });

  test('a missing file that appears confirms the goal, unless another file went stale', () => {
    expect(reconcile({ 'new.ts': null }, { 'new.ts': 'h' })).toEqual({ state: 'confirmed', reasons: ['new.ts now exists'] });
    expect(reconcile({ 'new.ts': null, 'a.ts': 'h1' }, { 'new.ts': 'h', 'a.ts': null })).toEqual({ state: 'stale', reasons: ['a.ts was deleted'] });
  });

  test('the same evidence and files give the same answer every time (no clock)', () => {
    const evidence = { 'a.ts': 'h1' };
    expect(reconcile(evidence, { 'a.ts': 'h2' })).toEqual(reconcile(evidence, { 'a.ts': 'h2' }));
  });
});

describe('canonicalRelatedPath', () => {
  test('relative paths are normalised; absolute, escaping and backslash paths are refused', () => {
    expect(canonicalRelatedPath('./src//x.py')).toBe('src/x.py');
    for (const bad of ['/etc/passwd', '../x', 'src/../../x', 'C:/x', 'src\\x', '.', '']) expect(canonicalRelatedPath(bad)).toBeUndefined();
  });
});
