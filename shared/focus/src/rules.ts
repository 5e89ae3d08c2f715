import {
  ambiguous,
  allPaused,
  behindSelected,
  choiceBlocked,
  dormant,
  manualOnly,
  missingRoot,
  noClientRunning,
  noRecentActivity,
  noWiredWorkspace,
  nothingUsable,
  pausedAll,
  pausedByUser,
  selected as selectedReason,
  type BlockedBy,
  type FocusReason,
  type SelectionBasis,
} from './reasons';
import type { FocusMode, FocusState } from './state';

/**
 * Auto Focus: which one workspace (if any) Sous may prepare work for, and why the others wait
 * (spec section 1 "Auto Focus" points 1–7, 2.6, 3.4, 7.5). A pure function of the user's choices
 * (state.ts) and what the daemon observed; it does no I/O and never throws.
 *
 * Classes:
 * - **selected**: the one proactive workspace. Sous may read, index, reason and prepare work there.
 * - **standby**: usable, but waiting: no client runs, manual-only mode, an ambiguous choice, the
 *   user's choice is blocked, or another workspace is selected and this one was active too.
 * - **dormant**: not selected, and quiet: neither Sous MCP/proxy activity nor file changes within
 *   `recentMs`, so it was no candidate. When a reason holds every workspace back (no client,
 *   manual-only, a blocked choice: rows 4–6, 8, 9), quiet workspaces are standby with that reason
 *   instead, so the user sees what to do.
 * - **unknown**: wired, but its root is in `missingRoots` (the daemon found it missing or unreadable).
 * - **paused**: the user paused it (or paused all). Nothing is read, indexed, reasoned or prepared.
 *
 * Decision order (first match wins; "usable" = neither paused nor unknown; "recent" = within
 * `recentMs` of `now`; "a client is present" = a supported client runs, or any workspace had Sous
 * MCP/proxy activity recently, which proves a client is talking to Sous):
 *
 * | # | Condition                                              | Selected          | Others usable  |
 * |---|--------------------------------------------------------|-------------------|----------------|
 * | 1 | no wired workspace                                     | none              | (rule 1 or 2)  |
 * | 2 | no usable workspace                                    | none              | paused/unknown |
 * | 3 | a work-here mark, on a usable workspace                | that one          | standby/dormant|
 * | 4 | a work-here mark, on a paused or missing workspace     | none              | standby        |
 * | 5 | a pin (no work-here), workspace paused or missing      | none              | standby        |
 * | 6 | a pin, usable, no client present                       | none              | standby        |
 * | 7 | a pin, usable, client present                          | the pinned one    | standby/dormant|
 * | 8 | manual-only mode (no work-here, no pin)                | none              | standby        |
 * | 9 | no client present (rule 1)                             | none              | standby        |
 * |10 | exactly one usable workspace (rule 3)                  | that one          | —              |
 * |11 | exactly one usable with recent Sous MCP/proxy activity | that one          | standby/dormant|
 * |12 | two or more with recent Sous MCP/proxy activity        | none (rule 5)     | standby/dormant|
 * |13 | exactly one usable with recent file changes            | that one          | standby/dormant|
 * |14 | two or more with recent file changes                   | none (rule 5)     | standby/dormant|
 * |15 | no recent activity anywhere                            | none              | dormant        |
 *
 * "standby/dormant": a usable workspace that was recently active (and so a candidate) stands by; one
 * with no recent activity is dormant. Work-here beats a pin because it is always the newer choice
 * (pin clears work-here marks). Neither resumes a paused workspace, and a blocked choice never falls
 * back to another workspace: Sous does not guess against what the user said.
 *
 * Permissions: `may_prepare` is true only for the selected workspace (rule 7: at most one).
 * `may_read` is true for every wired workspace that is not paused (rule 6), so standby, dormant and
 * unknown workspaces still get the cheap index maintenance rule 1 allows; it is false for paused
 * workspaces and for ids that are not wired at all.
 */

/** "Recently" for MCP/proxy activity and file changes: 5 minutes. */
export const DEFAULT_RECENT_MS = 5 * 60_000;

/** How a workspace stands in one decision. */
export type FocusClass = 'selected' | 'standby' | 'dormant' | 'unknown' | 'paused';

/** A supported AI client that is running (from client detection). */
export interface RunningClient {
  id: string;
  name: string;
}

/** Everything Auto Focus decides from. */
export interface FocusInput {
  state: FocusState;
  /** Running supported AI clients. */
  clients: readonly RunningClient[];
  /** Workspace id → ISO time of the last Sous MCP/proxy request for it. */
  integrations: Readonly<Record<string, string>>;
  /** Workspace id → ISO time of the last file change seen in it. */
  recentChanges: Readonly<Record<string, string>>;
  now: Date;
  /** What counts as recent; default `DEFAULT_RECENT_MS`. */
  recentMs?: number;
  /** Roots found missing or unreadable; their workspaces are `unknown`. Default: none. */
  missingRoots?: ReadonlySet<string>;
  /** Names of the clients detection checked, for the "no client" reason. Default: none listed. */
  checkedClients?: readonly string[];
}

/** One workspace in a decision, with its reason pair. */
export interface WorkspaceFocus {
  id: string;
  root: string;
  class: FocusClass;
  /** `Selected: …`, `Standby: …`, `Dormant: …`, `Unknown: …` or `Paused: …`. */
  reason: string;
  /** `Action: …`. */
  action: string;
}

/** The outcome of `decideFocus`. */
export interface FocusDecision {
  /** The one workspace Sous may prepare for, or null. */
  selected: string | null;
  mode: FocusMode;
  /** Every wired workspace, in state order. */
  workspaces: WorkspaceFocus[];
  /** One line for a status bar: the selected reason, or the main reason nothing is selected. */
  status: string;
  /** Skipped and deferred reasons as reason/action line pairs, main reason first, no duplicates. */
  reasons: string[];
  /** True only for the selected workspace. */
  may_prepare(workspaceId: string): boolean;
  /** True for wired workspaces that are not paused. */
  may_read(workspaceId: string): boolean;
}

/** What the decision steps produce before the rows are written. */
interface Outcome {
  selected: { id: string; basis: SelectionBasis } | null;
  /** Why nothing is selected (null when something is). */
  main: FocusReason | null;
  /** Usable workspaces that stand by; the other unselected usable ones are dormant. */
  standby: ReadonlySet<string>;
}

/** Decides Auto Focus for one moment. See the table above. */
export function decideFocus(input: FocusInput): FocusDecision {
  const recentMs = input.recentMs ?? DEFAULT_RECENT_MS;
  const missing = input.missingRoots ?? new Set<string>();
  const { state } = input;
  const rows = new Map<string, WorkspaceFocus>();
  const usable: string[] = [];

  for (const [id, ws] of Object.entries(state.workspaces)) {
    if (state.pausedAll || ws.paused) rows.set(id, row(id, ws.root, 'paused', state.pausedAll ? pausedAll() : pausedByUser(ws.root)));
    else if (missing.has(ws.root)) rows.set(id, row(id, ws.root, 'unknown', missingRoot(ws.root)));
    else usable.push(id);
  }

  const isRecent = (iso: string | undefined): boolean => recent(iso, input.now, recentMs);
  const outcome = choose(input, usable, rows, isRecent, recentMs);

  const rootOf = (id: string): string => state.workspaces[id]?.root ?? id;
  for (const id of usable) {
    const root = rootOf(id);
    if (outcome.selected?.id === id) {
      rows.set(id, row(id, root, 'selected', selectedReason(root, outcome.selected.basis, recentMs)));
    } else if (outcome.standby.has(id)) {
      const why = outcome.selected ? behindSelected(root, rootOf(outcome.selected.id)) : (outcome.main ?? nothingUsable());
      rows.set(id, row(id, root, 'standby', why));
    } else {
      rows.set(id, row(id, root, 'dormant', dormant(root, recentMs)));
    }
  }

  // Keep state order, whatever order the rows were written in.
  const workspaces = Object.keys(state.workspaces).flatMap((id) => rows.get(id) ?? []);
  const selectedId = outcome.selected?.id ?? null;
  const selectedRow = workspaces.find((w) => w.id === selectedId);
  return {
    selected: selectedId,
    mode: state.mode,
    workspaces,
    status: selectedRow?.reason ?? outcome.main?.reason ?? nothingUsable().reason,
    reasons: reasonLines(outcome.main, workspaces),
    may_prepare: (id) => selectedId !== null && id === selectedId,
    may_read: (id) => {
      const w = rows.get(id);
      return w !== undefined && w.class !== 'paused';
    },
  };
}

/** Rows 1–15 of the table: who is selected, or the main reason nobody is. */
function choose(
  input: FocusInput,
  usable: readonly string[],
  rows: ReadonlyMap<string, WorkspaceFocus>,
  isRecent: (iso: string | undefined) => boolean,
  recentMs: number,
): Outcome {
  const { state } = input;
  const entries = Object.entries(state.workspaces);
  const clientPresent = input.clients.length > 0 || Object.values(input.integrations).some(isRecent);
  const noClient = noClientRunning(input.checkedClients ?? []);
  const none = (main: FocusReason, standby: ReadonlySet<string> = new Set(usable)): Outcome => ({ selected: null, main, standby });
  const pick = (id: string, basis: SelectionBasis, active: readonly string[] = []): Outcome => ({
    selected: { id, basis },
    main: null,
    standby: new Set(active.filter((other) => other !== id)),
  });

  if (entries.length === 0) return none(clientPresent ? noWiredWorkspace(input.clients.map((c) => c.name)) : noClient);
  if (usable.length === 0) {
    if (state.pausedAll) return none(pausedAll());
    return none(entries.every(([id]) => rows.get(id)?.class === 'paused') ? allPaused() : nothingUsable());
  }

  const active = usable.filter((id) => isRecent(input.integrations[id]) || isRecent(input.recentChanges[id]));
  const blockedBy = (id: string): BlockedBy => (rows.get(id)?.class === 'paused' ? 'paused' : 'missing');

  // The user's own choice first: the newest work-here mark, else the pin.
  const workHere = newestWorkHere(state);
  if (workHere !== undefined) {
    const root = state.workspaces[workHere]?.root ?? workHere;
    return usable.includes(workHere) ? pick(workHere, 'work-here', active) : none(choiceBlocked(root, 'work-here', blockedBy(workHere)));
  }
  const pinned = entries.find(([, ws]) => ws.pinned);
  if (pinned) {
    const [id, ws] = pinned;
    if (!usable.includes(id)) return none(choiceBlocked(ws.root, 'pin', blockedBy(id)));
    return clientPresent ? pick(id, 'pin', active) : none(noClient);
  }

  if (state.mode === 'manual-only') return none(manualOnly());
  if (!clientPresent) return none(noClient);
  if (usable.length === 1 && usable[0] !== undefined) return pick(usable[0], 'only');

  const rootsOf = (ids: readonly string[]) => ids.map((id) => state.workspaces[id]?.root ?? id);
  const viaIntegration = usable.filter((id) => isRecent(input.integrations[id]));
  if (viaIntegration.length === 1 && viaIntegration[0] !== undefined) return pick(viaIntegration[0], 'integration', active);
  if (viaIntegration.length > 1) return none(ambiguous(rootsOf(viaIntegration), 'integration', recentMs), new Set(viaIntegration));

  const viaChanges = usable.filter((id) => isRecent(input.recentChanges[id]));
  if (viaChanges.length === 1 && viaChanges[0] !== undefined) return pick(viaChanges[0], 'changes', active);
  if (viaChanges.length > 1) return none(ambiguous(rootsOf(viaChanges), 'changes', recentMs), new Set(viaChanges));

  return none(noRecentActivity(usable.length, recentMs), new Set());
}

/** The workspace with the newest work-here mark (state.ts keeps at most one; this stays safe if not). */
function newestWorkHere(state: FocusState): string | undefined {
  let best: { id: string; at: number } | undefined;
  for (const [id, ws] of Object.entries(state.workspaces)) {
    if (ws.workHereAt === undefined) continue;
    const at = Date.parse(ws.workHereAt);
    const when = Number.isFinite(at) ? at : 0;
    if (best === undefined || when > best.at) best = { id, at: when };
  }
  return best?.id;
}

/**
 * Within `recentMs` of `now`. A timestamp a little in the future (clock skew between processes)
 * counts; one further ahead than `recentMs`, or one that does not parse, does not.
 */
function recent(iso: string | undefined, now: Date, recentMs: number): boolean {
  if (iso === undefined) return false;
  const at = Date.parse(iso);
  if (!Number.isFinite(at)) return false;
  return Math.abs(now.getTime() - at) <= recentMs;
}

function row(id: string, root: string, cls: FocusClass, why: FocusReason): WorkspaceFocus {
  return { id, root, class: cls, reason: why.reason, action: why.action };
}

/** Main reason first, then each unselected workspace's pair once. */
function reasonLines(main: FocusReason | null, workspaces: readonly WorkspaceFocus[]): string[] {
  const lines: string[] = [];
  const seen = new Set<string>();
  const add = (reason: string, action: string): void => {
    const key = `${reason}\n${action}`;
    if (seen.has(key)) return;
    seen.add(key);
    lines.push(reason, action);
  };
  if (main) add(main.reason, main.action);
  for (const w of workspaces) if (w.class !== 'selected') add(w.reason, w.action);
  return lines;
}
