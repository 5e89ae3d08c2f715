import { POLICY_BUNDLE_IDS } from '@sous/config';
import { BUNDLE_IDS, POLICY_BUNDLES, UnknownBundleError, getBundle, isBundleId, formatDimension } from '../src';

// The spec 2.9 table, column for column, in its order.
const SPEC_TABLE = `
| local_lightweight | local_only | small | zero | snappy | strict | 0.8 | -0.05 | 0.7 | digest_only | conservative |
| local_balanced | local_preferred | medium | zero | balanced | strict | 1.0 | 0.0 | 1.0 | policy_hybrid | balanced |
| local_heavy | local_only | large | zero | quality | strict | 1.1 | +0.10 | 1.3 | policy_hybrid | aggressive |
| hybrid_balanced | hybrid | medium | low | balanced | standard | 1.0 | +0.05 | 1.0 | policy_hybrid | balanced |
| hybrid_quality | cloud_preferred | large | medium | quality | standard | 1.2 | +0.10 | 1.2 | top_match_auto_include | balanced |
| cost_saver | local_preferred | small | low | balanced | standard | 0.9 | -0.05 | 0.9 | adopted_package_only | conservative |
| deep_research | hybrid | large | medium | quality | standard | 1.1 | +0.15 | 1.5 | policy_hybrid | aggressive |
`;

const rows = SPEC_TABLE.trim()
  .split('\n')
  .map((line) => line.split('|').map((c) => c.trim()).filter(Boolean));

describe('POLICY_BUNDLES', () => {
  test('are exactly the seven of the spec table, in its order, with every dimension', () => {
    expect(POLICY_BUNDLES).toHaveLength(7);
    const fromCode = POLICY_BUNDLES.map((b) => ({
      id: b.id, posture: b.posture, runtime: b.runtime, spend: b.spend, latency: b.latency, privacy: b.privacy,
      drafting: b.drafting, explore: b.explore, persist: b.persist, context_injection: b.context_injection, deep_run: b.deep_run,
    }));
    const fromSpec = rows.map(([id, posture, runtime, spend, latency, privacy, drafting, explore, persist, ci, dr]) => ({
      id, posture, runtime, spend, latency, privacy,
      drafting: Number(drafting), explore: Number(explore), persist: Number(persist), context_injection: ci, deep_run: dr,
    }));
    expect(fromCode).toEqual(fromSpec);
    expect(BUNDLE_IDS).toEqual(rows.map((r) => r[0]));
  });

  test("match the ids @sous/config accepts for policy.bundle", () => {
    expect(BUNDLE_IDS).toEqual([...POLICY_BUNDLE_IDS]);
  });

  test('goal weighting is 1.4 for deep_research and below 1.4 for the other six', () => {
    for (const b of POLICY_BUNDLES) {
      if (b.id === 'deep_research') expect(b.goal_weighting).toBe(1.4);
      else expect(b.goal_weighting).toBeLessThan(1.4);
      expect(b.goal_weighting).toBeGreaterThan(0);
    }
  });

  test('are frozen so no caller can change the baseline', () => {
    const b = getBundle('local_balanced') as { drafting: number };
    expect(() => {
      b.drafting = 9;
    }).toThrow(TypeError);
    expect(getBundle('local_balanced').drafting).toBe(1.0);
  });

  test('getBundle returns a bundle by id and refuses an unknown id with the valid ids', () => {
    expect(getBundle('deep_research').persist).toBe(1.5);
    expect(isBundleId('cost_saver')).toBe(true);
    expect(isBundleId('turbo')).toBe(false);
    expect(() => getBundle('turbo')).toThrow(UnknownBundleError);
    expect(() => getBundle('turbo')).toThrow(
      'unknown policy bundle "turbo": use one of local_lightweight, local_balanced, local_heavy, hybrid_balanced, hybrid_quality, cost_saver, deep_research',
    );
  });

  test('formatDimension shows explore signed, as the spec writes it', () => {
    expect(formatDimension(getBundle('deep_research'), 'explore')).toBe('+0.15');
    expect(formatDimension(getBundle('cost_saver'), 'explore')).toBe('-0.05');
    expect(formatDimension(getBundle('local_balanced'), 'drafting')).toBe('1.0');
    expect(formatDimension(getBundle('hybrid_quality'), 'context_injection')).toBe('top_match_auto_include');
  });
});
