/**
 * Goal tools (spec 4.6 `goals.*`; docs/goals.md): the workspace's long-horizon intents, declared by
 * the user, with the reconciliation state Sous maintains as the repository changes. The daemon
 * validates again and stores them; these tools only pass the arguments on and summarise the answer.
 */
import Joi from 'joi';
import { defineTool, toolResult, type ToolDefinition } from '../registry';
import { GOAL_STATUSES, seg } from './wire';

/** A goal as the daemon sends it (services/daemon/src/routes/goals.ts). */
interface WireGoal {
  id: string;
  title: string;
  status: string;
  related_files: string[];
  reconciliation_state: string;
  reconciliation_reasons: string[];
}

const goalId = Joi.string().trim().min(1).max(200).required().description('the goal id, from goals.list or goals.declare');
const status = Joi.string().valid(...GOAL_STATUSES);

/** One line per goal: status, state, title, id, and why when Sous demoted or promoted it. */
function line(g: WireGoal): string {
  const why = g.reconciliation_reasons.length ? ` (${g.reconciliation_reasons.join('; ')})` : '';
  return `- [${g.status}, ${g.reconciliation_state}] ${g.title} — ${g.id}${why}`;
}

const list = defineTool<{ status?: string[] }>({
  id: 'goals.list',
  title: 'Workspace goals',
  description: 'The goals the user declared for this repository, with their status and whether the repository still matches them (reconciliation_state current, stale or confirmed, with reasons). Call it before planning longer work.',
  input: Joi.object({ status: Joi.array().items(status).single().description('only goals with these statuses') }),
  readOnly: true,
  async run(args, ctx) {
    const query = args.status?.length ? `?${args.status.map((s) => `status=${encodeURIComponent(s)}`).join('&')}` : '';
    const body = await ctx.daemon.get<{ goals: WireGoal[] }>(`/goals${query}`);
    const summary = body.goals.length ? `${body.goals.length} goal(s):\n${body.goals.map(line).join('\n')}` : `No goals; the user can declare one with ${ctx.toolName('goals.declare')}.`;
    return toolResult(summary, { goals: body.goals });
  },
});

const declare = defineTool<{ title: string; description?: string; status?: string; related_files?: string[] }>({
  id: 'goals.declare',
  title: 'Declare a goal',
  description: 'Records a long-horizon goal the user stated for this repository, with the files it concerns; it persists across restarts and Sous prepares around its files first while it is active. Only declare what the user asked for.',
  input: Joi.object({
    title: Joi.string().min(1).max(200).pattern(/\S/).required().description('one line naming the goal'),
    description: Joi.string().allow('').max(4000).description('more detail'),
    status: status.description('default active'),
    related_files: Joi.array().items(Joi.string().min(1).max(1024)).max(200).description('repository-relative paths the goal concerns'),
  }),
  readOnly: false,
  async run(args, ctx) {
    const { goal } = await ctx.daemon.post<{ goal: WireGoal }>('/goals', args);
    return toolResult(`Goal declared:\n${line(goal)}`, { goal });
  },
});

const updateStatus = defineTool<{ id: string; status: string }>({
  id: 'goals.update_status',
  title: 'Change a goal status',
  description: 'Sets a goal to active, paused, abandoned or achieved (any status may follow any other). Setting active again records the repository as it is now as the goal’s evidence, which clears a stale state.',
  input: Joi.object({ id: goalId, status: status.required().description('active, paused, abandoned or achieved') }),
  readOnly: false,
  async run(args, ctx) {
    const { goal } = await ctx.daemon.post<{ goal: WireGoal }>(`/goals/${seg(args.id)}/status`, { status: args.status });
    return toolResult(`Goal is now ${goal.status}:\n${line(goal)}`, { goal });
  },
});

const remove = defineTool<{ id: string }>({
  id: 'goals.delete',
  title: 'Delete a goal',
  description: 'Deletes a goal for good (to keep it on record, set its status to abandoned or achieved instead). Only on the user’s request.',
  input: Joi.object({ id: goalId }),
  readOnly: false,
  async run(args, ctx) {
    const body = await ctx.daemon.post<{ deleted: string }>(`/goals/${seg(args.id)}/delete`, {});
    return toolResult(`Goal ${body.deleted} deleted.`, body);
  },
});

export const goalTools: ToolDefinition[] = [list, declare, updateStatus, remove];
