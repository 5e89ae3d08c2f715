import { formatEvent, wantsColour } from '../src/watch-format';

describe('sous watch lines', () => {
  const landed = { type: 'card.landed', id: 'c1', kind: 'docs_drift', title: 'docs/guide.md mentions parseConfig', at: '2026-11-26T07:30:01.000Z' };

  test('plain lines carry the time, a sign and the words, and no escape codes', () => {
    expect(formatEvent('card.landed', landed)).toBe('07:30:01 + docs_drift: docs/guide.md mentions parseConfig (c1)');
    expect(formatEvent('card.dismissed', { id: 'c1', at: landed.at })).toBe('07:30:01 - dismissed c1');
    expect(formatEvent('hello', { workspace: '/repo' })).toBe('watching /repo (Ctrl-C to stop)');
    expect(formatEvent('cycle.finished', { duration_ms: 12, candidates: 3, landed: 1, stale: 0, at: landed.at })).not.toContain('\x1b');
  });

  test('Deep-Run sessions show their start, each step and their end', () => {
    const at = '2026-11-27T09:04:00.000Z';
    expect(formatEvent('deep_run.started', { session: 's1', preset: 'balanced', deadline: '2026-11-27T09:30:00.000Z', at })).toBe('09:04:00 » deep-run s1 started (balanced), stops by 2026-11-27T09:30:00.000Z');
    expect(formatEvent('deep_run.step', { session: 's1', step: 2, calls: 5, spend_usd: 0.01234, produced: 1, at })).toBe('09:04:00   deep-run step 2: 5 model calls, $0.0123, 1 cards');
    expect(formatEvent('deep_run.ended', { session: 's1', state: 'finished', reason: 'cost_cap', at })).toBe('09:04:00 « deep-run s1 finished (cost_cap)');
  });

  test('colours only when asked; a title cannot smuggle control characters to the terminal', () => {
    expect(formatEvent('card.landed', landed, true)).toContain('\x1b[32m+ docs_drift');
    expect(formatEvent('card.landed', { ...landed, title: 'evil\x1b[2Jtitle' })).toBe('07:30:01 + docs_drift: evil [2Jtitle (c1)');
  });

  test('colour needs a terminal and no NO_COLOR', () => {
    expect(wantsColour({ isTTY: true }, {})).toBe(true);
    expect(wantsColour({ isTTY: false }, {})).toBe(false);
    expect(wantsColour({}, {})).toBe(false);
    expect(wantsColour({ isTTY: true }, { NO_COLOR: '1' })).toBe(false);
  });
});
