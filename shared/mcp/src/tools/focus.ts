/**
 * Auto Focus tools (spec 4.6 `focus.*`; docs/focus.md): where Sous may work in the background and why
 * it is (not) working here. The daemons decide; these tools read the decision or send the user's
 * action for the current workspace (the one this server is scoped to), and answer with the new one.
 */
import Joi from 'joi';
import { NO_ARGS, defineTool, toolResult, type ToolContext, type ToolDefinition, type ToolResult } from '../registry';
import { FOCUS_MODES, seg } from './wire';

interface FocusState {
  workspace: string;
  this_workspace: { id: string; root: string; class: string; reason: string; action: string; may_read: boolean; may_prepare: boolean };
  selected: string | null;
  mode: string;
}

/** The decision in the two lines every Sous surface shows, plus mode and selection. */
function describe(focus: FocusState, done?: string): string {
  const own = focus.this_workspace;
  const label = own.class.charAt(0).toUpperCase() + own.class.slice(1);
  const lines = [
    ...(done ? [done] : []),
    `${label}: ${own.reason}`,
    `Action: ${own.action}`,
    `Mode ${focus.mode}; ${own.may_prepare ? 'Sous prepares here in the background' : 'no background preparation here now'}.`,
  ];
  return lines.join('\n');
}

function answer(focus: FocusState, done?: string): ToolResult {
  return toolResult(describe(focus, done), { ...focus });
}

/** Sends one workspace action for the workspace this server serves. */
async function act(ctx: ToolContext, action: 'work-here' | 'pin' | 'unpin' | 'pause' | 'resume', done: string): Promise<ToolResult> {
  const { workspace } = await ctx.daemon.get<FocusState>('/focus');
  return answer(await ctx.daemon.post<FocusState>(`/focus/workspaces/${seg(workspace)}/${action}`, {}), done);
}


const status = defineTool<Record<string, never>>({
  id: 'focus.status',
  title: 'Auto Focus status',
  description: 'Whether Sous works on this repository in the background now, and if not why and what would change it. Call it when the dashboard stays empty or preparation seems idle.',
  input: NO_ARGS,
  readOnly: true,
  async run(_args, ctx) {
    return answer(await ctx.daemon.get<FocusState>('/focus'));
  },
});

const workHere = defineTool<Record<string, never>>({
  id: 'focus.work_here',
  title: 'Work here',
  description: 'Makes this repository the one Sous prepares for now (beats Auto Focus and a pin elsewhere, until another work-here or pin). Call it when the user says to focus on this repository.',
  input: NO_ARGS,
  readOnly: false,
  run: (_args, ctx) => act(ctx, 'work-here', 'This workspace is marked work-here.'),
});

const pin = defineTool<{ unpin: boolean }>({
  id: 'focus.pin_current_workspace',
  title: 'Pin this workspace',
  description: 'Pins this repository as the one Sous prepares for whenever an AI client runs, across restarts; `unpin: true` releases the pin and lets Auto Focus choose again.',
  input: Joi.object({ unpin: Joi.boolean().default(false).description('release the pin instead') }),
  readOnly: false,
  run: (args, ctx) => (args.unpin ? act(ctx, 'unpin', 'This workspace is unpinned.') : act(ctx, 'pin', 'This workspace is pinned.')),
});

const pause = defineTool<Record<string, never>>({
  id: 'focus.pause_current_workspace',
  title: 'Pause this workspace',
  description: 'Stops Sous from reading or preparing anything in this repository until resumed (the index answers from what it holds). Call it when the user asks Sous to stay out of this repository.',
  input: NO_ARGS,
  readOnly: false,
  run: (_args, ctx) => act(ctx, 'pause', 'This workspace is paused.'),
});

const resume = defineTool<Record<string, never>>({
  id: 'focus.resume_current_workspace',
  title: 'Resume this workspace',
  description: 'Ends a pause of this repository: Sous catches up with what changed and Auto Focus decides again whether it prepares here.',
  input: NO_ARGS,
  readOnly: false,
  run: (_args, ctx) => act(ctx, 'resume', 'This workspace is resumed.'),
});

const setMode = defineTool<{ mode: string }>({
  id: 'focus.set_mode',
  title: 'Set the Auto Focus mode',
  description: 'auto lets Sous choose the workspace where clients are active; manual-only prepares only where the user said work-here or pinned. Applies to every workspace of this user.',
  input: Joi.object({ mode: Joi.string().valid(...FOCUS_MODES).required().description('auto or manual-only') }),
  readOnly: false,
  async run(args, ctx) {
    return answer(await ctx.daemon.post<FocusState>('/focus/mode', { mode: args.mode }), `Auto Focus mode is ${args.mode}.`);
  },
});

export const focusTools: ToolDefinition[] = [status, workHere, pin, pause, resume, setMode];
