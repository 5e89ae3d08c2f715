import { contextWindow, injectionBudget, policyAccepts, promptOf, renderBriefing, withBriefing, type PreparedMatch } from '@sous/gateway';

const match = (over: Partial<PreparedMatch['entry']> = {}, similarity = 1): PreparedMatch => ({
  similarity,
  entry: {
    id: 'prediction:p1',
    anticipatedPrompt: 'continue: Split the parser grammar',
    items: [1, 2, 3, 4, 5].map((n) => ({ path: `src/f${n}.ts`, score: 1 / n, rationale: [`defines thing${n}`], lines: { start: n, end: n + 9 } })),
    cards: [{ id: 'c1', kind: 'docs_drift', title: 'README names a removed function' }],
    adopted: false,
    weight: 1,
    ...over,
  },
});

describe('context-injection policies', () => {
  test('digest_only gives evidence locations only', () => {
    const b = renderBriefing('digest_only', match(), 1000);
    expect(b?.text.split('\n').slice(1)).toEqual(['- src/f1.ts:1-10', '- src/f2.ts:2-11', '- src/f3.ts:3-12', '- src/f4.ts:4-13', '- src/f5.ts:5-14']);
  });

  test('policy_hybrid gives the anticipated prompt, three items in full, the rest as digest, then cards', () => {
    const lines = renderBriefing('policy_hybrid', match(), 1000)?.text.split('\n').slice(1);
    expect(lines).toEqual([
      'Prepared for: continue: Split the parser grammar',
      '- src/f1.ts:1-10 — defines thing1',
      '- src/f2.ts:2-11 — defines thing2',
      '- src/f3.ts:3-12 — defines thing3',
      '- src/f4.ts:4-13',
      '- src/f5.ts:5-14',
      '- Ready card c1 (docs_drift): README names a removed function',
    ]);
  });

  test('top_match_auto_include takes a closer-than-0.6 match and says how close', () => {
    const near = match({}, 0.45);
    expect(policyAccepts('policy_hybrid', near)).toBe(false);
    expect(policyAccepts('top_match_auto_include', near)).toBe(true);
    const text = renderBriefing('top_match_auto_include', near, 1000)?.text ?? '';
    expect(text).toContain('Closest prepared work (similarity 0.45):');
    expect(text).toContain('- src/f5.ts:5-14 — defines thing5');
  });

  test('adopted_package_only injects only an adopted prediction', () => {
    expect(policyAccepts('adopted_package_only', match())).toBe(false);
    expect(policyAccepts('adopted_package_only', match({ adopted: true }))).toBe(true);
    expect(renderBriefing('adopted_package_only', match({ adopted: true }), 1000)?.text).toContain('Adopted: Prepared for: continue: Split the parser grammar');
  });

  test('a briefing stops at the line that would pass the budget, and is nothing when no line fits', () => {
    const small = renderBriefing('policy_hybrid', match(), 60);
    expect(small?.tokens).toBeLessThanOrEqual(60);
    expect(small?.text.split('\n').length).toBeLessThan(8);
    expect(renderBriefing('policy_hybrid', match(), 20)).toBeUndefined();
  });
});

describe('budget and context window', () => {
  test('windows by model prefix, provider prefix ignored, unknown models get the default', () => {
    expect(contextWindow('gpt-4o-mini')).toBe(128_000);
    expect(contextWindow('gpt-4')).toBe(8_192);
    expect(contextWindow('openai/gpt-4.1-mini')).toBe(1_000_000);
    expect(contextWindow('qwen2.5-coder:1.5b')).toBe(32_768);
    expect(contextWindow('my-own-model')).toBe(8_192);
  });

  test('5% of the window, capped at 4000 tokens and at what the window has left', () => {
    expect(injectionBudget('my-own-model', 400, 0)).toBe(409);
    expect(injectionBudget('claude-sonnet', 400, 0)).toBe(4000);
    expect(injectionBudget('my-own-model', 4 * 8000, 0)).toBe(192);
    expect(injectionBudget('my-own-model', 4 * 8160, 0)).toBe(0);
    expect(injectionBudget('my-own-model', 400, 8100)).toBe(0);
  });
});

describe('messages', () => {
  test('the prompt is the last user message, text parts joined', () => {
    expect(promptOf([{ role: 'user', content: 'first' }, { role: 'assistant', content: 'x' }, { role: 'user', content: [{ type: 'text', text: 'a' }, { type: 'image_url', image_url: { url: 'u' } }, { type: 'text', text: 'b' }] }])).toBe('a\nb');
    expect(promptOf([{ role: 'system', content: 'only system' }])).toBe('');
  });

  test('the briefing goes after the leading system messages; every message stays as it was', () => {
    const messages = [{ role: 'system', content: 's' }, { role: 'developer', content: 'd' }, { role: 'user', content: 'u', name: 'n' }, { role: 'system', content: 'late' }];
    const out = withBriefing(messages, 'B');
    expect(out).toEqual([messages[0], messages[1], { role: 'system', content: 'B' }, messages[2], messages[3]]);
    expect(out[3]).toBe(messages[2]);
  });
});
