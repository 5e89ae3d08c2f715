/**
 * Every text Auto Focus shows, in one place (spec 2.6, 7.5). Each is a pair: a first line that names
 * the state and says why (`Standby: …`, `Paused: …`, `Dormant: …`, `Unknown: …`, `Selected: …`), and an
 * `Action: …` line with the one thing the user can do about it. Written for someone who has never read
 * the spec: plain words, the folder path where there is one, a command they can paste.
 *
 * Quiet states are never errors: these texts go into the focus status on every surface, not into an
 * error body.
 */

/** One reason line and the suggested action that follows it. */
export interface FocusReason {
  reason: string;
  action: string;
}

/** Why the selected workspace was chosen (see the table in rules.ts). */
export type SelectionBasis = 'work-here' | 'pin' | 'only' | 'integration' | 'changes';

/** Which activity made several workspaces look equally likely. */
export type ActivityBasis = 'integration' | 'changes';

/** What stands in the way of the workspace the user chose. */
export type BlockedBy = 'paused' | 'missing';

/** Rule 1: no supported AI client runs (and none talked to Sous recently). */
export function noClientRunning(checked: readonly string[]): FocusReason {
  const list = checked.length > 0 ? ` (checked ${checked.join(', ')})` : '';
  return {
    reason: `Standby: no supported AI client is running${list}.`,
    action: 'Action: start your AI client, or run sous focus work-here <dir> to have Sous prepare for that folder anyway.',
  };
}

/** Rule 2: a client runs, but Sous has no workspace to prepare for. */
export function noWiredWorkspace(running: readonly string[]): FocusReason {
  const who = running.length > 0 ? `${joinNames(running)} ${running.length === 1 ? 'is' : 'are'} running` : 'Your AI client is running';
  return {
    reason: `Standby: ${who}, but no workspace is wired to Sous yet.`,
    action: 'Action: run sous init --path <dir> in the project you work on.',
  };
}

/** Manual-only mode and the user has not chosen a workspace. */
export function manualOnly(): FocusReason {
  return {
    reason: 'Standby: focus is in manual-only mode, so Sous prepares only for a workspace you choose.',
    action: 'Action: run sous focus work-here <dir>, or switch back with sous focus mode auto.',
  };
}

/** Rule 5: several workspaces look equally likely, so Sous does not guess. */
export function ambiguous(roots: readonly string[], basis: ActivityBasis, recentMs: number): FocusReason {
  const both = roots.length === 2 ? 'both ' : 'all ';
  const what =
    basis === 'integration'
      ? `your AI client used Sous in ${joinNames(roots)} in the last ${durationText(recentMs)}`
      : `${joinNames(roots)} ${both}had file changes in the last ${durationText(recentMs)}`;
  return {
    reason: `Standby: ${roots.length} workspaces are active and none is clearly the one you are working in (${what}).`,
    action: 'Action: run sous focus work-here <dir> in the one you are working in, or pin it with sous focus pin <dir>.',
  };
}

/** Several workspaces are wired and none shows any activity: nothing to choose from. */
export function noRecentActivity(count: number, recentMs: number): FocusReason {
  return {
    reason: `Standby: ${count} workspaces are wired and none had AI client activity or file changes in the last ${durationText(recentMs)}.`,
    action: 'Action: none needed; Sous picks a workspace once you work in one. To choose now, run sous focus work-here <dir>.',
  };
}

/** Every wired workspace is paused or missing, so there is nothing Sous may prepare for. */
export function nothingUsable(): FocusReason {
  return {
    reason: 'Standby: every wired workspace is paused or missing, so there is nothing to prepare for.',
    action: 'Action: run sous focus resume <dir> for the workspace you want Sous back in.',
  };
}

/** The user paused every workspace one by one. */
export function allPaused(): FocusReason {
  return {
    reason: 'Paused: every workspace is paused. Sous does not read, index or prepare anything.',
    action: 'Action: run sous focus resume <dir> for the workspace you want Sous back in.',
  };
}

/** Rule 6, for one workspace the user paused. */
export function pausedByUser(root: string): FocusReason {
  return {
    reason: `Paused: you paused ${root}. Sous does not read, index or prepare anything there.`,
    action: `Action: run sous focus resume ${root} when you want Sous back.`,
  };
}

/** Pause-all holds. */
export function pausedAll(): FocusReason {
  return {
    reason: 'Paused: you paused all workspaces. Sous does not read, index or prepare anything.',
    action: 'Action: run sous focus resume <dir> for the workspace you want Sous back in.',
  };
}

/** A wired workspace whose folder is gone or unreadable. */
export function missingRoot(root: string): FocusReason {
  return {
    reason: `Unknown: ${root} is missing or cannot be read.`,
    action: 'Action: restore the folder, or run sous init --path <dir> where the project lives now.',
  };
}

/** Rule 7: another workspace is the one proactive workspace. */
export function behindSelected(root: string, selectedRoot: string): FocusReason {
  return {
    reason: `Standby: Sous prepares for one workspace at a time and is preparing for ${selectedRoot}.`,
    action: `Action: run sous focus work-here ${root} to switch.`,
  };
}

/** Not selected and quiet: no client activity and no file changes lately. */
export function dormant(root: string, recentMs: number): FocusReason {
  return {
    reason: `Dormant: no AI client activity and no file changes in ${root} in the last ${durationText(recentMs)}.`,
    action: 'Action: none needed; Auto Focus looks at it again when you work there.',
  };
}

/** The user chose a workspace (work-here or pin) that cannot be used right now; Sous does not pick another. */
export function choiceBlocked(root: string, how: 'work-here' | 'pin', by: BlockedBy): FocusReason {
  const chose = how === 'pin' ? `you pinned ${root}` : `you chose ${root} with work-here`;
  if (by === 'paused') {
    return {
      reason: `Standby: ${chose}, and it is paused.`,
      action: `Action: run sous focus resume ${root}, or sous focus unpin ${root} to let Auto Focus choose.`,
    };
  }
  return {
    reason: `Standby: ${chose}, but that folder is missing or cannot be read.`,
    action: `Action: restore ${root}, or run sous focus unpin ${root} to let Auto Focus choose.`,
  };
}

/** Why the selected workspace was chosen, and how to stop it. */
export function selected(root: string, basis: SelectionBasis, recentMs: number): FocusReason {
  const why: Record<SelectionBasis, string> = {
    'work-here': `you chose ${root} with work-here.`,
    pin: `${root} is pinned.`,
    only: `${root} is the only workspace Sous may use.`,
    integration: `your AI client used Sous in ${root} in the last ${durationText(recentMs)}.`,
    changes: `${root} is the only workspace with file changes in the last ${durationText(recentMs)}.`,
  };
  return {
    reason: `Selected: ${why[basis]}`,
    action: `Action: none needed; run sous focus pause ${root} to stop Sous preparing here.`,
  };
}

/** For "in the last …": "5 minutes", "minute", "90 seconds". */
export function durationText(ms: number): string {
  if (ms >= 60_000 && ms % 60_000 === 0) {
    const minutes = ms / 60_000;
    return minutes === 1 ? 'minute' : `${minutes} minutes`;
  }
  const seconds = Math.max(1, Math.round(ms / 1000));
  return seconds === 1 ? 'second' : `${seconds} seconds`;
}

/** "a", "a and b", "a, b and c". */
function joinNames(names: readonly string[]): string {
  if (names.length <= 1) return names[0] ?? '';
  return `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}`;
}
