/**
 * The prediction rules (docs/predictions.md): weights start by source, each invalidation halves them,
 * change is detected by per-path content hashes only, and an arc names the area most edits touched.
 */
import { BASE_WEIGHT, arcArea, changedPaths, demote } from '../src/predictions/rules';

test('declared intent starts above an inferred arc; each invalidation halves the weight', () => {
  expect(BASE_WEIGHT.goal).toBeGreaterThan(BASE_WEIGHT.arc);
  expect(demote(BASE_WEIGHT.goal)).toBe(0.5);
  expect(demote(demote(BASE_WEIGHT.arc))).toBe(0.15);
});

test('change is a differing content hash: edited, deleted or created; the same content is no change', () => {
  const evidence = { 'a.ts': 'h1', 'b.ts': 'h2', 'c.ts': null, 'd.ts': 'h4' };
  expect(changedPaths(evidence, { 'a.ts': 'h1', 'b.ts': 'h2x', 'c.ts': 'h3', 'd.ts': null })).toEqual(['b.ts', 'c.ts', 'd.ts']);
  expect(changedPaths(evidence, { ...evidence })).toEqual([]);
});

test('an arc names the directory most of the edits are in, the root as "."', () => {
  expect(arcArea(['src/a.ts', 'lib/x.ts', 'src/b.ts'])).toBe('src');
  expect(arcArea(['README.md'])).toBe('.');
  expect(arcArea(['lib/x.ts', 'src/a.ts'])).toBe('lib');
  expect(arcArea([])).toBeUndefined();
});
