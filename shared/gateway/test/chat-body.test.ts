/**
 * The proxy lets plain chat bodies through with a hand check before joi: it must accept exactly what
 * the joi schema accepts, and the spliced outgoing body must be the text JSON.stringify would write.
 */
import { bodyWithBriefing, chatBodyOf, chatBodySchema, type ChatBody } from '../src/chat-body';
import { withBriefing } from '../src/injection';

/** A small seeded generator (the same bodies every run). */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => ((s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32);
}

const VALUES: unknown[] = [undefined, null, true, false, 0, 1, -1, 1.5, 2 ** 53, '', 'x', 'gpt-4o', 'a'.repeat(257), [], {}, [{}], { role: 'user' }];

function randomBody(r: () => number): unknown {
  const pick = <T>(list: readonly T[]): T => list[Math.floor(r() * list.length)] as T;
  if (r() < 0.05) return pick(VALUES);
  const body: Record<string, unknown> = {};
  if (r() < 0.9) body.model = r() < 0.8 ? 'gpt-4o' : pick(VALUES);
  if (r() < 0.9) {
    body.messages = r() < 0.8
      ? Array.from({ length: Math.floor(r() * 4) }, () => (r() < 0.85 ? { role: pick(['system', 'user', 'assistant', 'tool', '', 'r'.repeat(65)]), content: pick(['hi', null, [{ type: 'text', text: 'x' }]]) } : pick(VALUES)))
      : pick(VALUES);
  }
  for (const key of ['stream', 'max_tokens', 'max_completion_tokens', 'temperature']) if (r() < 0.3) body[key] = pick(VALUES);
  return body;
}

test('the hand check accepts exactly the bodies the joi schema accepts (5,000 seeded bodies)', () => {
  const r = rng(17);
  let accepted = 0;
  for (let i = 0; i < 5000; i++) {
    const body = randomBody(r);
    const joiAccepts = chatBodySchema.validate(body, { abortEarly: true, convert: false }).error === undefined;
    let ours = true;
    try {
      chatBodyOf(body);
    } catch {
      ours = false;
    }
    expect([i, ours]).toEqual([i, joiAccepts]);
    if (ours) accepted++;
  }
  // Both kinds were exercised.
  expect(accepted).toBeGreaterThan(200);
  expect(accepted).toBeLessThan(4500);
});

test('the spliced body is the text JSON.stringify writes for the conversation with the briefing', () => {
  const r = rng(5);
  for (let i = 0; i < 500; i++) {
    const body = randomBody(r);
    let chat: ChatBody;
    try {
      chat = chatBodyOf(body);
    } catch {
      continue;
    }
    const briefing = `Sous briefing ${i}: "quoted" \\ and \u2028 text`;
    expect(bodyWithBriefing(chat, JSON.stringify(chat.messages), briefing)).toBe(JSON.stringify({ ...chat, messages: withBriefing(chat.messages, briefing) }));
  }
});
