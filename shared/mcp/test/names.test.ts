/**
 * Tool names every client accepts: by default each listed name obeys ^[a-zA-Z0-9_-]{1,64}$ (also
 * inside a client's `mcp__sous__` namespace); the dotted style lists the spec's names; both forms and
 * the bare id resolve on call; the registry refuses names that would break the rule or collide; the
 * listed schemas are plain object schemas (no top-level combinators, which some clients refuse); the
 * wire vocabulary the tools list matches the packages that own it.
 */
import Joi from 'joi';
import { WORK_PRODUCT_KINDS, WORK_PRODUCT_STATES, FEEDBACK_VALUES as STORE_FEEDBACK, GOAL_STATUSES as STORE_GOAL_STATUSES, DEEP_RUN_PRESETS as STORE_DEEP_RUN_PRESETS } from '@sous/store';
import { JOB_STATES as QUEUE_JOB_STATES } from '@sous/jobs';
import { FOCUS_MODES as FOCUS_PACKAGE_MODES } from '@sous/focus';
import { CLIENT_NAMESPACE, NAME_RULE, idProblem, listedName, resolveToolName } from '../src/names';
import { ToolRegistry, defineTool, toolResult } from '../src/registry';
import { sousToolRegistry } from '../src/server';
import { CARD_KINDS, CARD_STATES, DEEP_RUN_PRESETS, FEEDBACK_VALUES, FOCUS_MODES, GOAL_STATUSES, JOB_STATES } from '../src/tools/wire';

const registry = sousToolRegistry();

/** Spec 4.6 tools this release serves (each must be listed; more may be). */
const SPEC_TOOLS = [
  'prepared_work.dashboard',
  'work_products.list',
  'work_products.inspect',
  'work_products.export',
  'work_products.dismiss',
  'work_products.feedback',
  'status',
  'search',
  'expand',
  'inspect',
  'warm',
  'debug.trace',
  'focus.status',
  'focus.work_here',
  'focus.pin_current_workspace',
  'focus.pause_current_workspace',
  'focus.resume_current_workspace',
  'focus.set_mode',
  'resources.status',
  'jobs.status',
  'jobs.cancel',
  'setup.questions',
  'setup.recommend',
  'setup.apply',
  'setup.status',
  'policy.show',
  'artefacts.list',
  'artefacts.inspect',
  'artefacts.status',
  'artefacts.influence',
  'sources.status',
  'goals.list',
  'goals.declare',
  'goals.update_status',
  'goals.delete',
  'deep_run.start',
  'deep_run.stop',
  'deep_run.inspect',
  'deep_run.list',
  'deep_run.defaults',
];

describe('tool names', () => {
  test('every listed name obeys the strictest client rule by default, also namespaced as mcp__sous__<name>', () => {
    const tools = registry.list('underscore');
    expect(tools.length).toBeGreaterThanOrEqual(SPEC_TOOLS.length);
    for (const tool of tools) {
      expect(tool.name).toMatch(NAME_RULE);
      expect(tool.name.startsWith('sous_')).toBe(true);
      expect((CLIENT_NAMESPACE + tool.name).length).toBeLessThanOrEqual(64);
    }
    expect(tools.map((t) => t.name)).toContain('sous_prepared_work_dashboard');
    expect(new Set(tools.map((t) => t.name)).size).toBe(tools.length);
  });

  test('the dotted style lists the spec names (svc.* read as sous.*)', () => {
    const names = registry.list('dotted').map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(SPEC_TOOLS.map((id) => `sous.${id}`)));
    expect(names).toContain('sous.prepared_work.dashboard');
    expect(names).toContain('sous.focus.pin_current_workspace');
  });

  test('the underscore form, the dotted form and the bare id all resolve to the id; other names do not', () => {
    const ids = registry.ids();
    for (const id of SPEC_TOOLS) {
      expect(resolveToolName(listedName(id, 'underscore'), ids)).toBe(id);
      expect(resolveToolName(listedName(id, 'dotted'), ids)).toBe(id);
      expect(resolveToolName(id, ids)).toBe(id);
    }
    expect(listedName('prepared_work.dashboard', 'underscore')).toBe('sous_prepared_work_dashboard');
    expect(listedName('prepared_work.dashboard', 'dotted')).toBe('sous.prepared_work.dashboard');
    expect(resolveToolName('sous_prepared.work_dashboard', ids)).toBeUndefined();
    expect(resolveToolName('sous_nope', ids)).toBeUndefined();
    expect(resolveToolName('', ids)).toBeUndefined();
  });

  test('ids that would break the rule, overflow 64 characters with the namespace, or collide are refused', () => {
    expect(idProblem('status')).toBeUndefined();
    expect(idProblem('Bad.Id')).toMatch(/lower-case/);
    expect(idProblem('a..b')).toMatch(/lower-case/);
    expect(idProblem(`x.${'a'.repeat(60)}`)).toMatch(/client name rule/);
    expect(idProblem(`x.${'a'.repeat(50)}`)).toMatch(/^mcp__sous__sous_x_a+ is 68 characters; clients allow 64$/);
    const tool = (id: string) => defineTool({ id, title: id, description: id, input: Joi.object({}), readOnly: true, run: async () => toolResult('ok', {}) });
    expect(() => new ToolRegistry().add(tool('Bad'))).toThrow(/lower-case/);
    expect(() => new ToolRegistry().add(tool('a.b_c'), tool('a_b.c'))).toThrow(/both be listed as sous_a_b_c/);
    expect(() => new ToolRegistry().add(tool('a'), tool('a'))).toThrow(/twice/);
  });

  test('listed tools carry a description, a title, read-only hints and a plain object input schema', () => {
    for (const tool of registry.list('underscore')) {
      expect(tool.description!.length).toBeGreaterThan(40);
      expect(tool.description!.length).toBeLessThan(500);
      expect(tool.annotations).toMatchObject({ title: expect.any(String), readOnlyHint: expect.any(Boolean) });
      expect(tool.inputSchema.type).toBe('object');
      for (const combinator of ['oneOf', 'anyOf', 'allOf', 'not']) expect(tool.inputSchema).not.toHaveProperty(combinator);
    }
    const byName = Object.fromEntries(registry.list('underscore').map((t) => [t.name, t]));
    expect(byName['sous_search']!.inputSchema).toMatchObject({ required: ['query'], properties: { top_n: { type: 'integer', maximum: 50 } } });
    expect(byName['sous_prepared_work_dashboard']!.annotations!.readOnlyHint).toBe(true);
    expect(byName['sous_work_products_dismiss']!.annotations!.readOnlyHint).toBe(false);
  });

  test('the values the tools list match the packages that own them', () => {
    expect([...CARD_KINDS]).toEqual([...WORK_PRODUCT_KINDS]);
    expect([...CARD_STATES]).toEqual([...WORK_PRODUCT_STATES]);
    expect([...FEEDBACK_VALUES]).toEqual([...STORE_FEEDBACK]);
    expect([...JOB_STATES].sort()).toEqual([...QUEUE_JOB_STATES].sort());
    expect([...FOCUS_MODES]).toEqual([...FOCUS_PACKAGE_MODES]);
    expect([...GOAL_STATUSES]).toEqual([...STORE_GOAL_STATUSES]);
    expect([...DEEP_RUN_PRESETS]).toEqual([...STORE_DEEP_RUN_PRESETS]);
  });
});
