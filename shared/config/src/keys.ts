import Joi from 'joi';
import * as D from './defaults';
import {
  COMPUTE_DEVICES,
  COMPUTE_PRESETS,
  EMBEDDING_DEVICES,
  EXPLORATION_BACKENDS,
  LLM_GATES,
  MCP_TRANSPORTS,
  MCP_TOOL_NAME_STYLES,
  POLICY_BUNDLE_IDS,
  SEMANTIC_MODES,
  WORK_STYLES,
} from './types';

/**
 * The key table of `.sous/config.toml`: one row per key of spec 2.8 (plus the Sous additions).
 * `sous config keys`, validation, defaults and the rendered file all come from this table.
 */

/** How a CLI string is turned into a value for this key (`parseConfigValue`). */
export type ConfigValueKind = 'string' | 'boolean' | 'integer' | 'number' | 'list' | 'table';

/** A value a config key can hold. */
export type ConfigValue = string | number | boolean | string[] | Record<string, unknown>;

/** One row of the key table. */
export interface ConfigKey {
  /** Dotted name exactly as in spec 2.8; `<profile>` / `<model_prefix>` stand for a user-chosen name. */
  key: string;
  /** Type as shown to users (`number`, `list of globs`, `URL`, …). */
  type: string;
  /** How CLI strings are parsed for this key. */
  kind: ConfigValueKind;
  /** The default; `undefined` for pattern keys, which have no entry until the user adds one. */
  default: ConfigValue | undefined;
  /** One line: what the key does. Rendered as the comment above the key. */
  description: string;
  /** joi schema of one value (validated without type conversion). */
  schema: Joi.Schema;
  /** Completes "<key> must be …" in errors, e.g. `a number between 0 and 1`. */
  expect: string;
  /** The allowed values of an `enum` key. */
  values?: readonly string[];
  /** Never echo a refused value of this key (it may be a pasted key). */
  sensitive?: boolean;
  /** A key Sous adds beyond the spec's table. */
  addition?: boolean;
  /**
   * Set when the key is accepted and validated but nothing in this release acts on it: one line
   * saying why. `sous config keys` marks such keys "reserved" so nobody tunes a dead setting.
   */
  reserved?: string;
}

/** Environment variable names: what `*_env` fields hold instead of a key. */
export const ENV_NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** Backend profile names must be bare TOML keys so the header `X-Sous-Backend` can name them. */
export const PROFILE_NAME_PATTERN = /^[A-Za-z0-9_-]+$/;

interface Shape {
  type: string;
  kind: ConfigValueKind;
  schema: Joi.Schema;
  expect: string;
  values?: readonly string[];
  sensitive?: boolean;
}

const bool = (): Shape => ({ type: 'bool', kind: 'boolean', schema: Joi.boolean(), expect: 'true or false' });

const int = (min: number, max: number): Shape => ({
  type: 'integer',
  kind: 'integer',
  schema: Joi.number().integer().min(min).max(max),
  expect: `an integer between ${min} and ${max}`,
});

const fraction = (): Shape => ({
  type: 'number',
  kind: 'number',
  schema: Joi.number().min(0).max(1),
  expect: 'a number between 0 and 1',
});

const text = (options: { allowEmpty?: boolean } = {}): Shape => ({
  type: 'string',
  kind: 'string',
  schema: options.allowEmpty ? Joi.string().allow('') : Joi.string().trim().min(1),
  expect: options.allowEmpty ? 'a string' : 'a non-empty string',
});

const oneOf = (values: readonly string[]): Shape => ({
  type: 'enum',
  kind: 'string',
  values,
  schema: Joi.string().valid(...values),
  expect: `one of ${values.join(', ')}`,
});

/** http(s) URLs without user:password (credentials belong in an environment variable). */
const url = (options: { allowEmpty?: boolean } = {}): Shape => {
  const schema = Joi.string()
    .uri({ scheme: ['http', 'https'] })
    .custom((value: string, helpers) => (new URL(value).username ? helpers.error('any.invalid') : value));
  return {
    type: 'URL',
    kind: 'string',
    schema: options.allowEmpty ? schema.allow('') : schema,
    expect: `an http(s) URL without credentials${options.allowEmpty ? ', or empty' : ''}`,
  };
};

const hostname = (): Shape => ({
  type: 'string',
  kind: 'string',
  schema: Joi.string().hostname(),
  expect: 'a host name or IP address',
});

const envName = (): Shape => ({
  type: 'string (env var name)',
  kind: 'string',
  schema: Joi.string().allow('').pattern(ENV_NAME_PATTERN),
  expect: 'empty or the name of an environment variable (letters, digits, _), such as OPENAI_API_KEY',
  sensitive: true,
});

const list = (type: string, item: Joi.Schema, itemExpect: string): Shape => ({
  type,
  kind: 'list',
  schema: Joi.array().items(item),
  expect: `a list of ${itemExpect}`,
});

const globs = (): Shape => list('list of globs', Joi.string().trim().min(1), 'non-empty glob strings');

/** Repo-local directories only: skill discovery never leaves the repository (spec invariant 8). */
const repoDirs = (): Shape =>
  list(
    'list of directories',
    Joi.string()
      .trim()
      .min(1)
      .custom((value: string, helpers) =>
        value.startsWith('/') || /^[A-Za-z]:/.test(value) || value.split(/[\\/]/).includes('..')
          ? helpers.error('any.invalid')
          : value,
      ),
    'repository-relative directories (no absolute paths, no ..)',
  );

const regexes = (): Shape =>
  list(
    'list of regexes',
    Joi.string()
      .min(1)
      .custom((value: string, helpers) => {
        try {
          new RegExp(value);
          return value;
        } catch {
          return helpers.error('any.invalid');
        }
      }),
    'valid regular expressions',
  );

const origins = (): Shape =>
  list(
    'list of origins',
    Joi.string()
      .uri({ scheme: ['http', 'https'] })
      .custom((value: string, helpers) => (new URL(value).origin === value ? value : helpers.error('any.invalid'))),
    'origins such as https://sous.example.com (scheme, host, optional port; no path or trailing slash)',
  );

function row(key: string, shape: Shape, defaultValue: ConfigValue | undefined, description: string, addition = false): ConfigKey {
  return { key, ...shape, default: defaultValue, description, ...(addition ? { addition } : {}) };
}

const C = D.DEFAULT_CONFIG;

/** A list of detector ids (`review.todo_added`) or families (`review`): exploration.detectors_off and …_held. */
function detectorIds(expect: string): Shape {
  return list('list of detector ids', Joi.string().trim().pattern(/^[a-z][a-z_]*(?:\.[a-z][a-z_]*)?$/), expect);
}

/**
 * Keys that are validated but read by nothing yet, with the reason. Checked by grepping services/ and
 * shared/ for each key when this list changes; the daemon, CLI and MCP server never consult these.
 */
export const RESERVED_KEYS: Readonly<Record<string, string>> = Object.freeze({
  'backend.prefer_local': 'only backend.* (or one backends.<profile>) is used; there is no local/hosted choice to make yet',
  'compute.device': 'Sous runs no local model itself; the model backend chooses its device',
  'compute.gpu_memory_fraction': 'Sous runs no local model itself and does not cap GPU memory; the model backend does',
  'exploration.backend': 'exploration uses exploration.endpoint when set, else backend.base_url; there is no separate local/remote switch',
  'exploration.api_key': 'exploration uses the key named by backend.api_key_env; this field is validated (env:NAME) but not read',
});

function withReserved(k: ConfigKey): ConfigKey {
  const reason = RESERVED_KEYS[k.key];
  return reason === undefined ? k : { ...k, reserved: reason };
}

/** Every key of `.sous/config.toml`, in file order. */
export const CONFIG_KEYS: readonly ConfigKey[] = Object.freeze(([
  row('backend.name', text(), C.backend.name, 'Name of the model runtime (informational; any OpenAI-compatible server works).'),
  row('backend.base_url', url(), C.backend.base_url, 'OpenAI-compatible endpoint of the model backend.'),
  row('backend.model', text(), C.backend.model, 'Model used for preparation.'),
  row('backend.api_key_env', envName(), C.backend.api_key_env, 'Name of the environment variable holding the backend key; empty for none. Never the key itself.'),
  row('backend.prefer_local', bool(), C.backend.prefer_local, 'Prefer a local runtime when both local and hosted backends are configured.'),
  {
    key: 'backends.<profile>',
    type: 'table',
    kind: 'table',
    schema: Joi.object({
      base_url: url().schema.required(),
      model: text().schema.required(),
      api_key_env: envName().schema,
    }),
    expect: 'a table with base_url, model and optional api_key_env',
    default: undefined,
    description: 'Optional named backend profiles (base_url, model, api_key_env), chosen per request with X-Sous-Backend.',
  },
  row('mcp.transport', oneOf(MCP_TRANSPORTS), C.mcp.transport, 'Transport of sous mcp without --transport: stdio, sse or http.'),
  row('mcp.http_host', hostname(), C.mcp.http_host, 'Host sous mcp binds for sse/http without --host (loopback; another address also needs --allow-remote).'),
  row('mcp.http_port', int(1, 65535), C.mcp.http_port, 'Port sous mcp listens on for sse/http without --port.'),
  row('mcp.tool_names', oneOf(MCP_TOOL_NAME_STYLES), C.mcp.tool_names, 'How MCP tool names are listed: underscore (sous_status; every client accepts it) or dotted (sous.status, as the spec writes them). Both forms are accepted on call.', true),
  row('intent.enabled', bool(), C.intent.enabled, 'Use skills: discover them, name them in briefings, weigh them by feedback (docs/skills.md).'),
  row('intent.include_global_skills', bool(), C.intent.include_global_skills, 'Also scan the global skill roots in your home (~/.claude/skills, ~/.codex/skills); their skills are external and never leave this machine.'),
  row('intent.skill_roots', repoDirs(), [...C.intent.skill_roots], 'Repository-local directories searched for skills (folders holding a SKILL.md).'),
  row('intent.skills_loop.enabled', bool(), C.intent.skills_loop.enabled, 'Weigh skills by feedback on the cards and briefings that used them.'),
  row('intent.skills_loop.max_feedback_events_per_cycle', int(1, 100_000), C.intent.skills_loop.max_feedback_events_per_cycle, 'Most feedback events the skills loop reads per preparation cycle; the rest wait for the next.'),
  row('gateway.passthrough.enabled', bool(), C.gateway.passthrough.enabled, 'Let the proxy pass requests through to the upstream unchanged.'),
  {
    ...row('gateway.routes.<model_prefix>', url(), undefined, 'Routes a model-name prefix to an upstream URL (none by default).'),
    kind: 'string',
  },
  row('gateway.upstream_timeout_seconds', int(1, 3_600), C.gateway.upstream_timeout_seconds, 'Seconds the proxy waits for an upstream to answer, or to send its next chunk, before answering 504 (docs/proxy.md).', true),
  row('proxy.allow_repo_override', bool(), C.proxy.allow_repo_override, 'Allow a per-request repository override in the proxy (X-Sous-Repo header; docs/proxy.md).'),
  row('privacy.allowed_paths', globs(), [...C.privacy.allowed_paths], 'Globs of files Sous may read.'),
  row('privacy.excluded_patterns', globs(), [...C.privacy.excluded_patterns], 'Globs of files Sous never reads, even inside allowed_paths.'),
  row('privacy.redact_patterns', regexes(), [...C.privacy.redact_patterns], 'Regexes of key-like strings: redacted from output and refused as config values.'),
  row('compute.device', oneOf(COMPUTE_DEVICES), C.compute.device, 'Compute device for local models.'),
  row('compute.cpu_fraction', fraction(), C.compute.cpu_fraction, 'Largest share of CPU preparation may use.'),
  row('compute.gpu_memory_fraction', fraction(), C.compute.gpu_memory_fraction, 'Largest share of GPU memory preparation may use.'),
  row('compute.idle_only', bool(), C.compute.idle_only, 'Prepare only while the machine is idle.'),
  row('compute.idle_cpu_threshold', fraction(), C.compute.idle_cpu_threshold, 'CPU load below which the machine counts as idle.'),
  row('compute.idle_gpu_threshold', fraction(), C.compute.idle_gpu_threshold, 'GPU load below which the machine counts as idle.'),
  row('compute.embedding_device', oneOf(EMBEDDING_DEVICES), C.compute.embedding_device, 'Device for embeddings.'),
  row('compute.max_cycle_seconds', int(1, 86_400), C.compute.max_cycle_seconds, 'Longest preparation cycle, in seconds.'),
  row('compute.max_session_minutes', int(1, 1_440), C.compute.max_session_minutes, 'Longest preparation session, in minutes.'),
  row('compute.preset', oneOf(COMPUTE_PRESETS), C.compute.preset, 'Compute preset; background is for CPU-only machines (idle cycles only).'),
  row('exploration.max_exploration_depth', int(0, 32), C.exploration.max_exploration_depth, 'Deepest exploration from a seed.'),
  row('exploration.frontier_max_size', int(1, 100_000), C.exploration.frontier_max_size, 'Most entries kept on the exploration frontier.'),
  row('exploration.min_priority', fraction(), C.exploration.min_priority, 'Frontier entries below this priority are dropped.'),
  row('exploration.max_ready_cards', int(0, 500), C.exploration.max_ready_cards, 'Most ready cards in the Prepared Work feed at once; the strongest win, the rest stay candidates (?diagnostic=true).', true),
  row(
    'exploration.detectors_off',
    detectorIds('detector ids (review.missing_test_change) or families (review)'),
    [...C.exploration.detectors_off],
    'Detectors whose cards are never made; the default lists those whose measured false-positive rate is 10 % or more.',
    true,
  ),
  row(
    'exploration.detectors_held',
    detectorIds('detector ids (docs_drift.removed_name) or families (docs_drift)'),
    [...C.exploration.detectors_held],
    'Detectors whose cards are made but stay candidates (?diagnostic=true, sous prepare --diagnostic): never in the feed, no patch. The default lists docs drift\'s names, flags, variables, Python paths and config keys, wrong too often to show.',
    true,
  ),
  row(
    'exploration.confirm_held',
    detectorIds('held detector ids (docs_drift.removed_name) or families (docs_drift)'),
    [...C.exploration.confirm_held],
    'Held detectors whose findings the exploration model checks one by one (a few per cycle, in idle time); a finding it confirms is shown in the feed, marked so. Empty by default: unmeasured.',
    true,
  ),
  row('exploration.llm_gate', oneOf(LLM_GATES), C.exploration.llm_gate, 'When exploration may call the model.'),
  row('exploration.endpoint', url({ allowEmpty: true }), C.exploration.endpoint, 'Optional dedicated exploration endpoint; empty uses backend.base_url.'),
  row('exploration.model', text({ allowEmpty: true }), C.exploration.model, 'Optional dedicated exploration model; empty uses backend.model.'),
  row('exploration.backend', oneOf(EXPLORATION_BACKENDS), C.exploration.backend, 'Where exploration runs.'),
  {
    ...row('exploration.api_key', text({ allowEmpty: true }), C.exploration.api_key, 'Empty, or env:NAME naming the environment variable that holds the exploration key.'),
    type: 'string (env:NAME)',
    schema: Joi.string().allow('').pattern(/^env:[A-Za-z_][A-Za-z0-9_]*$/),
    expect: 'empty or env:NAME naming an environment variable (Sous never stores key values in config)',
    sensitive: true,
  },
  row('exploration.embedding_model', text(), C.exploration.embedding_model, 'Sentence-embedding model used for cache matching and semantic retrieval.'),
  row('exploration.semantic', oneOf(SEMANTIC_MODES), C.exploration.semantic, 'Semantic retrieval: auto embeds chunks in idle time when a local backend serves exploration.embedding_model and fuses them into context answers; off never calls it.', true),
  row('refinement.enabled', bool(), C.refinement.enabled, 'Adoptions wait a confirmation window before they take effect (docs/predictions.md).'),
  row('refinement.adoption_pending_confirm_seconds', int(1, 3_600), C.refinement.adoption_pending_confirm_seconds, 'With refinement on: seconds an adoption stays pending; a cleared draft inside it withdraws the adoption.'),
  row('policy.bundle', oneOf(POLICY_BUNDLE_IDS), C.policy.bundle, 'Active policy bundle (set by sous setup apply).', true),
  row('policy.work_style', oneOf(WORK_STYLES), C.policy.work_style, 'What you mostly do here; composer signals of writing and research weigh more (docs/composer-signals.md).', true),
  row('daemon.allowed_hosts', list('list of host names', Joi.string().hostname(), 'host names'), [...C.daemon.allowed_hosts], 'Host header values the daemon accepts besides its loopback address.', true),
  row('daemon.allowed_origins', origins(), [...C.daemon.allowed_origins], 'Origins allowed to make state-changing requests.', true),
] as ConfigKey[]).map(withReserved));

/** The fields of a `[backends.<profile>]` table, validated like top-level keys. */
export const PROFILE_FIELDS: readonly ConfigKey[] = Object.freeze([
  row('base_url', url(), undefined, 'Endpoint of this profile.'),
  row('model', text(), undefined, 'Model of this profile.'),
  row('api_key_env', envName(), '', 'Environment variable holding this profile\'s key.'),
]);

/** The profile fields a `[backends.<profile>]` table must set. */
export const REQUIRED_PROFILE_FIELDS: readonly string[] = ['base_url', 'model'];

const BY_KEY = new Map(CONFIG_KEYS.map((k) => [k.key, k]));

/** The key table row of a dotted key (pattern rows by their `<…>` name), or undefined. */
export function findConfigKey(key: string): ConfigKey | undefined {
  return BY_KEY.get(key);
}

/** Keys with a fixed name (every key except the `<…>` pattern rows). */
export const FIXED_KEYS: readonly string[] = CONFIG_KEYS.filter((k) => !k.key.includes('<')).map((k) => k.key);

/** Every section (table) name: `backend`, `intent`, `intent.skills_loop`, `gateway.routes`, … */
export const SECTION_NAMES: ReadonlySet<string> = new Set(
  CONFIG_KEYS.flatMap((k) => {
    const parts = k.key.split('.');
    const out: string[] = [];
    for (let i = 1; i < parts.length; i++) {
      const section = parts.slice(0, i).join('.');
      if (!section.includes('<')) out.push(section);
    }
    return out;
  }),
);
