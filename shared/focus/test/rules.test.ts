import { DEFAULT_RECENT_MS, decideFocus, type FocusDecision, type FocusInput } from '../src/rules';
import { applyAction, emptyFocusState, registerWorkspace, type FocusAction, type FocusState } from '../src/state';

// Auto Focus rules (spec section 1, points 1–7; 2.6; 3.4; 7.5), one story per rule. Pure logic:
// workspaces are ids and root strings, time is a fixed clock, so no repositories are needed.

const NOW = new Date('2025-06-01T12:00:00.000Z');
const CLAUDE = { id: 'claude-code', name: 'Claude Code' };

/** An ISO time `ms` before NOW. */
const ago = (ms: number): string => new Date(NOW.getTime() - ms).toISOString();
const MINUTE = 60_000;

/** A state with the given workspaces wired (id → /work/<id>). */
function wired(...ids: string[]): FocusState {
  return ids.reduce((state, id) => registerWorkspace(state, id, `/work/${id}`), emptyFocusState());
}

/** Applies actions in order, failing the test on a refused one. */
function act(state: FocusState, ...actions: FocusAction[]): FocusState {
  return actions.reduce((s, action) => {
    const result = applyAction(s, action, NOW);
    if (!result.ok) throw new Error(`action refused: ${result.error.message}`);
    return result.state;
  }, state);
}

function decide(state: FocusState, over: Partial<FocusInput> = {}): FocusDecision {
  return decideFocus({ state, clients: [CLAUDE], integrations: {}, recentChanges: {}, now: NOW, ...over });
}

function classOf(decision: FocusDecision, id: string): string | undefined {
  return decision.workspaces.find((w) => w.id === id)?.class;
}

/** Every reason list is reason/action pairs with the documented prefixes. */
function expectShaped(decision: FocusDecision): void {
  expect(decision.reasons.length % 2).toBe(0);
  decision.reasons.forEach((line, i) => {
    if (i % 2 === 0) expect(line).toMatch(/^(Standby|Paused|Dormant|Unknown): \S/);
    else expect(line).toMatch(/^Action: \S/);
  });
  for (const w of decision.workspaces) {
    expect(w.reason).toMatch(/^(Selected|Standby|Paused|Dormant|Unknown): \S/);
    expect(w.action).toMatch(/^Action: \S/);
  }
}

describe('Auto Focus rules', () => {
  test('rule 1: no supported client running → nothing selected, standby with the reason', () => {
    const decision = decide(wired('a'), { clients: [], checkedClients: ['Claude Code', 'Cursor'] });
    expect(decision.selected).toBeNull();
    expect(classOf(decision, 'a')).toBe('standby');
    expect(decision.status).toBe('Standby: no supported AI client is running (checked Claude Code, Cursor).');
    expect(decision.reasons[1]).toMatch(/^Action: start your AI client, or run sous focus work-here <dir>/);
    expect(decision.may_prepare('a')).toBe(false);
    expect(decision.may_read('a')).toBe(true); // cheap maintenance stays allowed
    expectShaped(decision);
  });

  test('rule 1: recent Sous MCP activity counts as a client even when detection found none', () => {
    const decision = decide(wired('a', 'b'), { clients: [], integrations: { b: ago(MINUTE) } });
    expect(decision.selected).toBe('b');
  });

  test('rule 2: client running but no wired workspace → standby', () => {
    const decision = decide(emptyFocusState());
    expect(decision.selected).toBeNull();
    expect(decision.workspaces).toEqual([]);
    expect(decision.status).toBe('Standby: Claude Code is running, but no workspace is wired to Sous yet.');
    expect(decision.reasons).toEqual([decision.status, 'Action: run sous init --path <dir> in the project you work on.']);
  });

  test('rule 3: one wired workspace and a client → selected, may prepare', () => {
    const decision = decide(wired('a'));
    expect(decision.selected).toBe('a');
    expect(classOf(decision, 'a')).toBe('selected');
    expect(decision.may_prepare('a')).toBe(true);
    expect(decision.may_read('a')).toBe(true);
    expect(decision.status).toBe('Selected: /work/a is the only workspace Sous may use.');
    expect(decision.reasons).toEqual([]);
  });

  test('rule 4: two workspaces, one with recent Sous MCP/proxy activity → that one', () => {
    const decision = decide(wired('a', 'b'), {
      integrations: { b: ago(2 * MINUTE) },
      recentChanges: { a: ago(MINUTE) },
    });
    expect(decision.selected).toBe('b');
    expect(decision.status).toBe('Selected: your AI client used Sous in /work/b in the last 5 minutes.');
    expect(classOf(decision, 'a')).toBe('standby'); // active too, but only one workspace at a time (rule 7)
    expect(decision.may_prepare('a')).toBe(false);
    expectShaped(decision);
  });

  test('rule 4: only one workspace with recent file changes → selected; the quiet one is dormant', () => {
    const decision = decide(wired('a', 'b'), { recentChanges: { a: ago(MINUTE), b: ago(DEFAULT_RECENT_MS + MINUTE) } });
    expect(decision.selected).toBe('a');
    expect(classOf(decision, 'b')).toBe('dormant');
    expect(decision.may_read('b')).toBe(true);
    expect(decision.may_prepare('b')).toBe(false);
    expectShaped(decision);
  });

  test('rule 5: two workspaces both with recent changes and no integration → standby, nobody selected', () => {
    const decision = decide(wired('a', 'b', 'c'), { recentChanges: { a: ago(MINUTE), b: ago(3 * MINUTE) } });
    expect(decision.selected).toBeNull();
    expect(classOf(decision, 'a')).toBe('standby');
    expect(classOf(decision, 'b')).toBe('standby');
    expect(classOf(decision, 'c')).toBe('dormant');
    expect(decision.status).toBe(
      'Standby: 2 workspaces are active and none is clearly the one you are working in ' +
        '(/work/a and /work/b both had file changes in the last 5 minutes).',
    );
    expect(decision.reasons[1]).toBe('Action: run sous focus work-here <dir> in the one you are working in, or pin it with sous focus pin <dir>.');
    for (const id of ['a', 'b', 'c']) expect(decision.may_prepare(id)).toBe(false);
    expectShaped(decision);
  });

  test('rule 5: two workspaces with recent Sous activity → standby, never a guess', () => {
    const decision = decide(wired('a', 'b'), { integrations: { a: ago(MINUTE), b: ago(MINUTE) }, recentChanges: { a: ago(MINUTE) } });
    expect(decision.selected).toBeNull();
    expect(decision.status).toMatch(/^Standby: 2 workspaces are active .*your AI client used Sous in \/work\/a and \/work\/b/);
  });

  test('several workspaces and no recent activity anywhere → all dormant, standby status', () => {
    const decision = decide(wired('a', 'b'));
    expect(decision.selected).toBeNull();
    expect(decision.workspaces.map((w) => w.class)).toEqual(['dormant', 'dormant']);
    expect(decision.status).toMatch(/^Standby: 2 workspaces are wired and none had AI client activity/);
    expectShaped(decision);
  });

  test('rule 6: a paused workspace → class paused, no reads, no preparation, even with recent activity', () => {
    const state = act(wired('a', 'b'), { kind: 'pause', id: 'a' });
    const decision = decide(state, { integrations: { a: ago(MINUTE) } });
    expect(classOf(decision, 'a')).toBe('paused');
    expect(decision.may_read('a')).toBe(false);
    expect(decision.may_prepare('a')).toBe(false);
    expect(decision.selected).toBe('b'); // the only usable workspace left
    const paused = decision.workspaces.find((w) => w.id === 'a');
    expect(paused?.reason).toBe('Paused: you paused /work/a. Sous does not read, index or prepare anything there.');
    expect(paused?.action).toBe('Action: run sous focus resume /work/a when you want Sous back.');
    expectShaped(decision);
  });

  test('pause-all → every workspace paused, also ones wired afterwards', () => {
    let state = act(wired('a', 'b'), { kind: 'pin', id: 'a' }, { kind: 'pause-all' });
    state = registerWorkspace(state, 'c', '/work/c');
    const decision = decide(state, { integrations: { a: ago(MINUTE) } });
    expect(decision.selected).toBeNull();
    expect(decision.workspaces.map((w) => w.class)).toEqual(['paused', 'paused', 'paused']);
    expect(decision.status).toBe('Paused: you paused all workspaces. Sous does not read, index or prepare anything.');
    for (const id of ['a', 'b', 'c']) expect(decision.may_read(id)).toBe(false);
    expectShaped(decision);
  });

  test('resume after pause-all resumes only that workspace; the rules pick from there', () => {
    const state = act(wired('a', 'b'), { kind: 'pause-all' }, { kind: 'resume', id: 'b' });
    expect(state.pausedAll).toBeUndefined();
    const decision = decide(state);
    expect(classOf(decision, 'a')).toBe('paused');
    expect(decision.selected).toBe('b');
  });

  test('manual-only without work-here → none selected, standby with the manual-only reason', () => {
    const state = act(wired('a'), { kind: 'set-mode', mode: 'manual-only' });
    const decision = decide(state, { integrations: { a: ago(MINUTE) } });
    expect(decision.selected).toBeNull();
    expect(decision.mode).toBe('manual-only');
    expect(classOf(decision, 'a')).toBe('standby');
    expect(decision.status).toMatch(/^Standby: focus is in manual-only mode/);
    expect(decision.reasons[1]).toMatch(/^Action: run sous focus work-here <dir>/);
    expect(decide(act(state, { kind: 'work-here', id: 'a' })).selected).toBe('a');
    expect(decide(act(state, { kind: 'pin', id: 'a' })).selected).toBe('a'); // a pin is a user choice too
  });

  test('work-here beats the rules: ambiguity, activity elsewhere and a missing client', () => {
    const state = act(wired('a', 'b', 'c'), { kind: 'work-here', id: 'c' });
    expect(state.workspaces.c?.workHereAt).toBe(NOW.toISOString());
    const busyElsewhere = decide(state, { integrations: { a: ago(MINUTE) }, recentChanges: { a: ago(MINUTE), b: ago(MINUTE) } });
    expect(busyElsewhere.selected).toBe('c');
    expect(busyElsewhere.status).toBe('Selected: you chose /work/c with work-here.');
    expect(decide(state, { clients: [] }).selected).toBe('c');
    // A later work-here moves the choice; only one mark is kept.
    const moved = act(state, { kind: 'work-here', id: 'b' });
    expect(moved.workspaces.c?.workHereAt).toBeUndefined();
    expect(decide(moved, { integrations: { a: ago(MINUTE) } }).selected).toBe('b');
  });

  test('work-here on a paused workspace does not resume it and Sous does not pick another', () => {
    const state = act(wired('a', 'b'), { kind: 'pause', id: 'a' }, { kind: 'work-here', id: 'a' });
    const decision = decide(state, { recentChanges: { b: ago(MINUTE) } });
    expect(decision.selected).toBeNull();
    expect(classOf(decision, 'a')).toBe('paused');
    expect(classOf(decision, 'b')).toBe('standby');
    expect(decision.status).toBe('Standby: you chose /work/a with work-here, and it is paused.');
    expectShaped(decision);
  });

  test('a pin survives a restart (state through JSON) and beats Auto Focus', () => {
    const pinned = act(wired('a', 'b'), { kind: 'pin', id: 'a' });
    const restarted = JSON.parse(JSON.stringify(pinned)) as FocusState;
    expect(restarted).toEqual(pinned);
    const decision = decide(restarted, { integrations: { b: ago(MINUTE) } });
    expect(decision.selected).toBe('a');
    expect(decision.status).toBe('Selected: /work/a is pinned.');
    expect(classOf(decision, 'b')).toBe('standby');
    // A pin chooses the workspace but does not run Sous without a client (rule 1).
    expect(decide(restarted, { clients: [] }).selected).toBeNull();
  });

  test('pinning another workspace unpins the first; work-here over a pin lasts until unpin', () => {
    const state = act(wired('a', 'b', 'c'), { kind: 'pin', id: 'a' }, { kind: 'pin', id: 'b' });
    expect(state.workspaces.a?.pinned).toBe(false);
    expect(state.workspaces.b?.pinned).toBe(true);
    expect(decide(state).selected).toBe('b');
    const override = act(state, { kind: 'work-here', id: 'c' });
    expect(decide(override).selected).toBe('c');
    expect(decide(act(override, { kind: 'unpin', id: 'c' })).selected).toBe('b');
    expect(decide(act(override, { kind: 'pin', id: 'a' })).selected).toBe('a'); // a pin clears work-here
  });

  test('unpin → back to the rules', () => {
    const state = act(wired('a', 'b'), { kind: 'pin', id: 'a' }, { kind: 'unpin', id: 'a' });
    expect(decide(state, { recentChanges: { b: ago(MINUTE) } }).selected).toBe('b');
  });

  test('resume → leaves paused; the next state is Auto Focus selection, including a kept pin', () => {
    const paused = act(wired('a', 'b'), { kind: 'pin', id: 'a' }, { kind: 'pause', id: 'a' });
    expect(decide(paused).status).toBe('Standby: you pinned /work/a, and it is paused.');
    const resumed = act(paused, { kind: 'resume', id: 'a' });
    expect(decide(resumed).selected).toBe('a');
    const unpinnedThenResumed = act(paused, { kind: 'unpin', id: 'a' }, { kind: 'resume', id: 'a' });
    const decision = decide(unpinnedThenResumed, { recentChanges: { a: ago(MINUTE), b: ago(MINUTE) } });
    expect(decision.selected).toBeNull(); // ambiguous again: the rules decide, not the old choice
    expect(classOf(decision, 'a')).toBe('standby');
  });

  test('a workspace whose root is missing is unknown and never selected', () => {
    const decision = decide(wired('a', 'b'), { missingRoots: new Set(['/work/a']), integrations: { a: ago(MINUTE) } });
    expect(classOf(decision, 'a')).toBe('unknown');
    expect(decision.selected).toBe('b');
    expect(decision.reasons).toContain('Unknown: /work/a is missing or cannot be read.');
    expectShaped(decision);
  });

  test('an action on an unknown workspace id is an error result, and the state is untouched', () => {
    const state = wired('a');
    const before = JSON.stringify(state);
    for (const kind of ['work-here', 'pin', 'unpin', 'pause', 'resume'] as const) {
      const result = applyAction(state, { kind, id: 'nope' }, NOW);
      expect(result).toEqual({ ok: false, error: { code: 'unknown_workspace', id: 'nope', message: expect.stringContaining('"nope"') } });
    }
    expect(JSON.stringify(state)).toBe(before);
  });

  test('actions never change the state they are given', () => {
    const state = wired('a', 'b');
    const before = JSON.stringify(state);
    act(state, { kind: 'pin', id: 'a' }, { kind: 'work-here', id: 'b' }, { kind: 'pause-all' }, { kind: 'set-mode', mode: 'manual-only' });
    expect(JSON.stringify(state)).toBe(before);
  });

  test('odd timestamps are not recent and do not throw', () => {
    const decision = decide(wired('a', 'b'), {
      integrations: { a: 'not a date', b: new Date(NOW.getTime() + 24 * 60 * MINUTE).toISOString() },
      recentChanges: { a: '' },
    });
    expect(decision.selected).toBeNull();
    expect(decision.workspaces.map((w) => w.class)).toEqual(['dormant', 'dormant']);
  });
});
