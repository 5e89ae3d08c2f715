/**
 * The persisted user choices behind Auto Focus, and the pure transitions the user actions apply to
 * them (spec 3.4). Nothing here reads the disk or the clock on its own: the daemon loads the state,
 * calls `applyAction`, stores the result and hands it to `decideFocus` (rules.ts).
 *
 * What each action means (the spec leaves work-here, pin and unpin open; this is our definition):
 *
 * | Action           | Effect on the state                                                         |
 * |------------------|-----------------------------------------------------------------------------|
 * | work-here <id>   | marks <id> as "where I work now" (workHereAt = now) and clears that mark on |
 * |                  | every other workspace. It beats Auto Focus and a pin on another workspace   |
 * |                  | until the next work-here, a pin, or an unpin of <id>. It does not resume a  |
 * |                  | paused workspace: only resume leaves paused.                                |
 * | pin <id>         | pins <id> and unpins any other (at most one pin). A pin is the newest choice|
 * |                  | so it clears every work-here mark. It survives restarts until unpin.        |
 * | unpin <id>       | releases every hold on <id>: its pin and its work-here mark. Selection      |
 * |                  | falls back to a pin elsewhere (if any) or to Auto Focus.                    |
 * | pause <id>       | paused = true. Pin and work-here marks stay, so resume brings them back.    |
 * | resume <id>      | paused = false; also ends pause-all (the other workspaces stay paused,      |
 * |                  | each by its own flag). What comes next is Auto Focus's call (rules.ts).     |
 * | pause-all        | every workspace paused and `pausedAll` set, so workspaces registered later  |
 * |                  | start paused too.                                                           |
 * | set-mode <mode>  | `auto` lets Auto Focus choose; `manual-only` selects only a workspace the   |
 * |                  | user chose (work-here, or a pin).                                           |
 *
 * An unknown workspace id is a result, not a throw: `{ ok: false, error: { code: 'unknown_workspace' } }`,
 * which the HTTP layer maps to 404. Raw input (ids, mode strings) is validated by the caller.
 */

/** `auto`: Auto Focus may choose a workspace. `manual-only`: only the user's own choice counts. */
export type FocusMode = 'auto' | 'manual-only';

/** The modes, for callers that validate raw input. */
export const FOCUS_MODES: readonly FocusMode[] = ['auto', 'manual-only'];

/** What the user decided about one wired workspace. */
export interface WorkspaceChoice {
  /** Absolute path of the workspace root, as it was wired. */
  root: string;
  /** Set by pause (or pause-all), cleared only by resume. */
  paused: boolean;
  /** At most one workspace is pinned. */
  pinned: boolean;
  /** ISO 8601 time of the work-here that still holds, if any (at most one workspace has it). */
  workHereAt?: string;
}

/** The persisted focus state; plain JSON, so it survives a restart through JSON.stringify/parse. */
export interface FocusState {
  mode: FocusMode;
  /** Keyed by workspace id (the id the HTTP routes and MCP tools use). */
  workspaces: Record<string, WorkspaceChoice>;
  /** Set by pause-all; ended by resume of any workspace. */
  pausedAll?: boolean;
}

/** A user action (spec 3.4 / 4.2). */
export type FocusAction =
  | { kind: 'work-here'; id: string }
  | { kind: 'pin'; id: string }
  | { kind: 'unpin'; id: string }
  | { kind: 'pause'; id: string }
  | { kind: 'resume'; id: string }
  | { kind: 'pause-all' }
  | { kind: 'set-mode'; mode: FocusMode };

/** Why an action was refused. Only one kind so far: the id names no wired workspace. */
export interface FocusActionError {
  code: 'unknown_workspace';
  id: string;
  /** One sentence for the user. */
  message: string;
}

/** What `applyAction` returns: the new state, or why nothing changed. */
export type FocusActionResult = { ok: true; state: FocusState } | { ok: false; error: FocusActionError };

/** A fresh state: no workspaces, Auto Focus on. */
export function emptyFocusState(mode: FocusMode = 'auto'): FocusState {
  return { mode, workspaces: {} };
}

/**
 * Adds a wired workspace (or updates its root if the id exists, keeping the user's choices).
 * A workspace added while pause-all holds starts paused, so pause-all covers it too.
 */
export function registerWorkspace(state: FocusState, id: string, root: string): FocusState {
  const next = cloneState(state);
  const existing = next.workspaces[id];
  next.workspaces[id] = existing ? { ...existing, root } : { root, paused: next.pausedAll === true, pinned: false };
  return next;
}

/**
 * Applies one user action to a copy of `state` (the input is never changed). `now` stamps work-here;
 * pass it in tests for a fixed time.
 */
export function applyAction(state: FocusState, action: FocusAction, now: Date = new Date()): FocusActionResult {
  const next = cloneState(state);
  switch (action.kind) {
    case 'set-mode':
      next.mode = action.mode;
      return { ok: true, state: next };
    case 'pause-all':
      for (const ws of Object.values(next.workspaces)) ws.paused = true;
      next.pausedAll = true;
      return { ok: true, state: next };
    default:
      break;
  }

  const target = next.workspaces[action.id];
  if (!target) return { ok: false, error: unknownWorkspace(action.id) };

  switch (action.kind) {
    case 'work-here':
      for (const ws of Object.values(next.workspaces)) delete ws.workHereAt;
      target.workHereAt = now.toISOString();
      break;
    case 'pin':
      for (const ws of Object.values(next.workspaces)) {
        ws.pinned = false;
        delete ws.workHereAt;
      }
      target.pinned = true;
      break;
    case 'unpin':
      target.pinned = false;
      delete target.workHereAt;
      break;
    case 'pause':
      target.paused = true;
      break;
    case 'resume':
      // Ending pause-all must not resume the others: write their flags out before dropping it.
      if (next.pausedAll) for (const ws of Object.values(next.workspaces)) ws.paused = true;
      delete next.pausedAll;
      target.paused = false;
      break;
  }
  return { ok: true, state: next };
}

function unknownWorkspace(id: string): FocusActionError {
  return {
    code: 'unknown_workspace',
    id,
    message: `No wired workspace has the id ${JSON.stringify(id)}; run sous focus status to list them.`,
  };
}

function cloneState(state: FocusState): FocusState {
  const workspaces: Record<string, WorkspaceChoice> = {};
  for (const [id, ws] of Object.entries(state.workspaces)) workspaces[id] = { ...ws };
  const next: FocusState = { mode: state.mode, workspaces };
  if (state.pausedAll) next.pausedAll = true;
  return next;
}
