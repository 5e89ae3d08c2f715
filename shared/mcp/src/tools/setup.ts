/**
 * Setup and policy tools (spec 4.6 `setup.*`, `policy.show`; docs/setup.md). They read the daemon's
 * snapshots: the active bundle from `GET /status`, the hardware from `GET /resources` (probed once by
 * the daemon, so no probe runs in the agent's path). The bundle table and the recommendation rules
 * come from @sous/setup, the same code `sous setup` runs. `setup.apply` writes through the daemon
 * (`POST /setup/apply`, the same applySetup as `sous setup apply`), which hot-reloads the file.
 */
import Joi from 'joi';
import { BUNDLE_DIMENSIONS, BUNDLE_IDS, getBundle, isBundleId, recommendBundle, type HardwareSnapshot, type PolicyBundle, type Recommendation } from '@sous/setup';
import { NO_ARGS, defineTool, toolResult, type ToolContext, type ToolDefinition } from '../registry';
import type { DaemonStatus } from './operations';

/** `GET /resources` → `hardware`: the daemon's probe, reshaped (services/daemon/src/routes/resources.ts). */
interface WireHardware {
  tier: string;
  ram_gb: number;
  cpu: { class: HardwareSnapshot['cpu_class']; brand: string | null; physical_cores: number | null };
  gpu: { kind: HardwareSnapshot['gpu_kind']; vendor: string | null; model: string | null; vram_gb: number | null };
  battery_present: boolean;
  thermal_constrained: boolean;
  runtimes: HardwareSnapshot['runtimes'];
  probed_at: string;
  probe_errors?: string[];
}

interface Resources {
  hardware: WireHardware;
  backend: { name: string; base_url: string; model: string; reachable: boolean | null; model_present: boolean | null; models: string[] };
}

/** The probe snapshot back from its wire shape; the fields the tier rules do not read are unknown. */
function snapshotOf(h: WireHardware): HardwareSnapshot {
  return {
    probed_at: h.probed_at,
    os_probe_ok: h.tier !== 'unknown',
    platform: null,
    ram_gb: h.ram_gb,
    cpu_class: h.cpu.class,
    cpu_brand: h.cpu.brand,
    cpu_physical_cores: h.cpu.physical_cores,
    cpu_speed_ghz: null,
    gpu_kind: h.gpu.kind,
    gpu_vendor: h.gpu.vendor,
    gpu_model: h.gpu.model,
    gpu_vram_gb: h.gpu.vram_gb,
    battery_present: h.battery_present,
    thermal_constrained: h.thermal_constrained,
    thermal_max_c: null,
    runtimes: h.runtimes,
    probe_errors: h.probe_errors ?? [],
  };
}

/** The bundle's dimensions, in display order. */
function dimensions(bundle: Readonly<PolicyBundle>): Record<string, string | number> {
  return Object.fromEntries(BUNDLE_DIMENSIONS.map((key) => [key, bundle[key]]));
}

function bundleLine(bundle: Readonly<PolicyBundle>): string {
  return `${bundle.id}: posture ${bundle.posture}, runtime ${bundle.runtime}, spend ${bundle.spend}, latency ${bundle.latency}, privacy ${bundle.privacy}, context injection ${bundle.context_injection}, deep-run ${bundle.deep_run}`;
}

/** The active bundle (an id the daemon does not know yet is shown as is, without dimensions). */
function active(s: DaemonStatus): { id: string; bundle?: Readonly<PolicyBundle> } {
  const id = s.policy.bundle;
  return isBundleId(id) ? { id, bundle: getBundle(id) } : { id };
}

async function snapshots(ctx: ToolContext): Promise<{ status: DaemonStatus; resources: Resources; recommendation: Recommendation }> {
  const [status, resources] = await Promise.all([ctx.daemon.get<DaemonStatus>('/status'), ctx.daemon.get<Resources>('/resources')]);
  return { status, resources, recommendation: recommendBundle(snapshotOf(resources.hardware)) };
}

const applyCommand = (root: string, bundle: string): string => `sous setup apply ${bundle} --path ${root}`;


const status = defineTool<Record<string, never>>({
  id: 'setup.status',
  title: 'Setup status',
  description: 'Whether Sous is set up well for this repository: the active policy bundle against the recommended one, the hardware tier, the model backend and the index. Call it when the user asks how Sous is configured.',
  input: NO_ARGS,
  readOnly: true,
  async run(_args, ctx) {
    const { status: s, resources: r, recommendation: rec } = await snapshots(ctx);
    const current = active(s);
    const data = {
      bundle: current.id,
      recommended_bundle: rec.bundle_id,
      matches_recommendation: current.id === rec.bundle_id,
      tier: rec.tier,
      config: s.config,
      backend: { ...r.backend, mode: s.preparation.model.mode, reason: s.preparation.model.reason },
      index: { state: s.index.state, files_indexed: s.index.files_indexed },
    };
    const summary = [
      `Policy bundle ${current.id} on a ${rec.tier} machine (recommended: ${rec.bundle_id}).`,
      `Model: ${s.preparation.model.mode} (${s.preparation.model.reason}). Index ${s.index.state}, ${s.index.files_indexed} files.`,
      ...(s.config.last_error ? [`The last config edit was refused: ${s.config.last_error}`] : []),
    ].join('\n');
    return toolResult(summary, data);
  },
});

const recommend = defineTool<Record<string, never>>({
  id: 'setup.recommend',
  title: 'Recommend a policy bundle',
  description: 'The hardware tier, the recommended policy bundle, the score of all seven and the reasoning trail, from the hardware the daemon probed. Call it when the user asks which bundle fits this machine.',
  input: NO_ARGS,
  readOnly: true,
  async run(_args, ctx) {
    const { status: s, recommendation: rec } = await snapshots(ctx);
    const current = active(s).id;
    const next = current === rec.bundle_id ? `It is active.` : `Active: ${current}. To switch: ${ctx.toolName('setup.apply')} with {"bundle": "${rec.bundle_id}"}, or ${applyCommand(ctx.workspace, rec.bundle_id)}.`;
    return toolResult(`Tier ${rec.tier}: recommended bundle ${rec.bundle_id}. ${next}\n${rec.trail.slice(-2).join('\n')}`, { ...rec, active_bundle: current });
  },
});

interface Question {
  id: string;
  question: string;
  settled: boolean;
  why: string;
  choices?: readonly string[];
  recommended?: string;
  how: string;
}

/** The decisions setup leaves to the user, from the daemon's view of this machine and repository. */
function questionsFor(ctx: ToolContext, s: DaemonStatus, r: Resources, rec: Recommendation): Question[] {
  const current = active(s).id;
  const out: Question[] = [
    {
      id: 'policy_bundle',
      question: current === rec.bundle_id ? `Keep the policy bundle ${current}?` : `Switch the policy bundle from ${current} to the recommended ${rec.bundle_id}?`,
      settled: current === rec.bundle_id,
      why: rec.trail[rec.trail.length - 1] ?? `tier ${rec.tier}`,
      choices: BUNDLE_IDS,
      recommended: rec.bundle_id,
      how: `${ctx.toolName('setup.apply')} with {"bundle": "<id>"}, or ${applyCommand(ctx.workspace, '<id>')}`,
    },
  ];
  const backend = r.backend;
  if (backend.reachable !== true) {
    const runtime = r.hardware.runtimes[0];
    out.push(
      runtime
        ? {
            id: 'model_backend',
            question: `Use the local runtime ${runtime.name} (${runtime.base_url}) for model-written briefs?`,
            settled: false,
            why: `the configured backend ${backend.name} (${backend.base_url}) does not answer; cards stay heuristic`,
            choices: runtime.models,
            ...(runtime.models[0] ? { recommended: runtime.models[0] } : {}),
            how: `sous config set backend.base_url ${runtime.base_url} and sous config set backend.model <model>`,
          }
        : {
            id: 'model_backend',
            question: 'Start a local model runtime (e.g. Ollama), or keep heuristic cards only?',
            settled: false,
            why: `no model runtime answers on this machine; the configured backend ${backend.name} (${backend.base_url}) does not answer`,
            how: `start the runtime with model ${backend.model}, or set backend.base_url / backend.model with sous config set`,
          },
    );
  } else if (backend.model_present === false) {
    out.push({
      id: 'model',
      question: `The backend answers but has no ${backend.model}: pull it, or pick one it has?`,
      settled: false,
      why: `${backend.name} lists ${backend.models.length} other model(s)`,
      choices: backend.models,
      how: 'sous config set backend.model <model>',
    });
  }
  const globs = s.index.scope?.suggested_globs ?? [];
  if (globs.length > 0) {
    out.push({
      id: 'privacy_scope',
      question: `Let Sous read ${globs.join(', ')} too (code outside the privacy scope)?`,
      settled: false,
      why: `${s.index.scope?.out_of_scope_code ?? 'some'} code file(s) are outside privacy.allowed_paths, so cards never cover them`,
      choices: ['include', 'keep out'],
      how: `add them to privacy.allowed_paths; \`sous status --path ${ctx.workspace}\` prints the exact sous config set command`,
    });
  }
  if (s.focus && !s.focus.may_prepare) {
    out.push({
      id: 'focus',
      question: 'Should Sous prepare in this repository in the background now?',
      settled: false,
      why: s.focus.reason,
      choices: ['work here', 'leave Auto Focus to choose'],
      how: `${ctx.toolName('focus.work_here')}, or: ${s.focus.action}`,
    });
  }
  return out;
}

const questions = defineTool<Record<string, never>>({
  id: 'setup.questions',
  title: 'Open setup questions',
  description: 'The decisions setup leaves to the user (policy bundle, model backend, privacy scope, Auto Focus), each with why it matters, the choices, the recommended one and how to answer. Ask the user these; do not decide for them.',
  input: NO_ARGS,
  readOnly: true,
  async run(_args, ctx) {
    const { status: s, resources: r, recommendation: rec } = await snapshots(ctx);
    const list = questionsFor(ctx, s, r, rec);
    const open = list.filter((q) => !q.settled);
    const summary = open.length === 0 ? 'No open setup questions.' : `${open.length} open setup question(s):\n${open.map((q) => `- ${q.question} (${q.why})`).join('\n')}`;
    return toolResult(summary, { questions: list });
  },
});

/** `POST /setup/apply`'s answer (services/daemon/src/routes/setup.ts). */
interface Applied {
  bundle_id: string;
  previous_bundle_id: string;
  tier: string | null;
  settings: Array<{ key: string; from: unknown; to: unknown }>;
  changed: Array<{ key: string; from: unknown; to: unknown }>;
  reloaded: boolean;
}

const apply = defineTool<{ bundle: string }>({
  id: 'setup.apply',
  title: 'Apply a policy bundle',
  description: 'Makes a policy bundle active: writes policy.bundle and the hardware tier\'s settings (e.g. compute.max_cycle_seconds) to .sous/config.toml through the daemon, with the same validation as `sous setup apply`, and the daemon hot-reloads it. Call it only after the user chose a bundle.',
  input: Joi.object({ bundle: Joi.string().valid(...BUNDLE_IDS).required().description('one of the seven bundle ids') }),
  readOnly: false,
  async run(args, ctx) {
    // The tier the daemon probed (GET /resources), so the written settings match what setup.recommend showed.
    const resources = await ctx.daemon.get<Resources>('/resources');
    const tier = recommendBundle(snapshotOf(resources.hardware)).tier;
    const r = await ctx.daemon.post<Applied>('/setup/apply', { bundle: args.bundle, tier });
    const changes = r.changed.map((c) => `${c.key} ${JSON.stringify(c.from)} → ${JSON.stringify(c.to)}`);
    const summary = [
      r.previous_bundle_id === r.bundle_id ? `Policy bundle ${r.bundle_id} was already active.` : `Policy bundle ${r.bundle_id} applied (was ${r.previous_bundle_id}).`,
      changes.length === 0 ? `Nothing changed in the config (tier ${tier}).` : `Changed (tier ${tier}): ${changes.join('; ')}.`,
      r.reloaded ? 'The daemon reloaded it.' : `Written, but the daemon has not reloaded it yet; check with ${ctx.toolName('setup.status')}.`,
    ].join(' ');
    return toolResult(summary, { ...r, bundle_dimensions: dimensions(getBundle(args.bundle)) });
  },
});

const policy = defineTool<Record<string, never>>({
  id: 'policy.show',
  title: 'Current policy',
  description: 'The active policy bundle and its posture (local or cloud), runtime, spend, latency, privacy and context-injection settings, plus whether the model takes part now. Call it before suggesting work that would send code off the machine.',
  input: NO_ARGS,
  readOnly: true,
  async run(_args, ctx) {
    const s = await ctx.daemon.get<DaemonStatus>('/status');
    const current = active(s);
    const model = s.preparation.model;
    if (!current.bundle) return toolResult(`Policy bundle ${current.id} (unknown to this Sous version). Model: ${model.mode}.`, { bundle: current.id, model });
    return toolResult(`Policy bundle ${bundleLine(current.bundle)}.\nModel: ${model.mode} (${model.reason}).`, { bundle: current.id, posture: current.bundle.posture, dimensions: dimensions(current.bundle), model });
  },
});

export const setupTools: ToolDefinition[] = [questions, recommend, apply, status, policy];
