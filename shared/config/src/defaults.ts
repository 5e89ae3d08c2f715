import { CREDENTIAL_PATTERNS, DEFAULT_CONTEXT_PORT, DEFAULT_HOST } from '@sous/protocol';
import type { SousConfig } from './types';

/*
 * Every default of `.sous/config.toml`, in one place. Where the spec (2.8) leaves a default open the
 * choice is documented in docs/configuration.md.
 */

/** The local runtime Sous talks to by default (an OpenAI-compatible server on loopback). */
export const DEFAULT_BACKEND_NAME = 'ollama';
export const DEFAULT_BACKEND_BASE_URL = 'http://127.0.0.1:11434/v1';
/** Small enough for a laptop CPU, good enough at code. */
export const DEFAULT_BACKEND_MODEL = 'qwen2.5-coder:1.5b';
export const DEFAULT_MCP_TRANSPORT = 'stdio';
export const DEFAULT_MCP_HTTP_HOST = DEFAULT_HOST;
export const DEFAULT_MCP_HTTP_PORT = DEFAULT_CONTEXT_PORT;
/** Repo-local skill roots (spec: three, one being `skills`). */
export const DEFAULT_SKILL_ROOTS: readonly string[] = ['skills', '.claude/skills', '.github/skills'];
export const DEFAULT_MAX_FEEDBACK_EVENTS_PER_CYCLE = 200;
export const DEFAULT_ALLOWED_PATHS: readonly string[] = ['src/**', 'docs/**'];
/**
 * Files Sous never reads. The spec's five come first; the rest are the other common homes of
 * credentials (docs/configuration.md#privacy says why each is there):
 * - `.env.*` variants (`.env.local`, `.env.production`) and direnv's `.envrc`, but not the committed
 *   templates `.env.example`, `.env.sample`, `.env.template`: they name the variables a project
 *   needs, useful context, and any value in them is still redacted;
 * - SSH private keys by their usual names (`id_rsa`, `id_ed25519`, …); the `.pub` halves are public;
 * - keystores (`*.p12`, `*.pfx`, `*.jks`, `*.keystore`, PuTTY's `*.ppk`);
 * - files that hold registry or login tokens (`.npmrc`, `.pypirc`, `.netrc`, `.git-credentials`,
 *   `.pgpass`, `.htpasswd`) and Terraform state, which stores resource secrets in plain text.
 */
export const DEFAULT_EXCLUDED_PATTERNS: readonly string[] = [
  '*.env', '*.key', '*.pem', 'credentials*', 'secrets*',
  '.env.!(example|sample|template)', '.envrc',
  'id_{rsa,dsa,ecdsa,ed25519}', 'id_{ecdsa,ed25519}_sk',
  '*.p12', '*.pfx', '*.jks', '*.keystore', '*.ppk',
  '.npmrc', '.pypirc', '.netrc', '_netrc', '.git-credentials', '.pgpass', '.htpasswd',
  '*.tfstate', '*.tfstate.backup',
];
/**
 * The credential formats of @sous/protocol (credentials.ts): the spec's `sk-` pattern first, then
 * AWS, PEM private keys, GitHub, Slack, Google, Stripe, JWTs, passwords in URLs and credential-named
 * assignments. Each redacts only the secret part of what it matches.
 */
export const DEFAULT_REDACT_PATTERNS: readonly string[] = [...CREDENTIAL_PATTERNS];
/**
 * The defaults of earlier releases, which `sous init` wrote into every config file: a file that still
 * holds one of them exactly is read as holding today's default (config/src/legacy.ts), so upgrading
 * Sous widens the protection of workspaces that never chose their own.
 */
export const LEGACY_EXCLUDED_PATTERNS: readonly (readonly string[])[] = [['*.env', '*.key', '*.pem', 'credentials*', 'secrets*']];
export const LEGACY_REDACT_PATTERNS: readonly (readonly string[])[] = [['(?<![A-Za-z0-9_-])sk-[A-Za-z0-9_-]{20,}'], ['sk-[A-Za-z0-9_-]{20,}']];
export const DEFAULT_COMPUTE_DEVICE = 'auto';
export const DEFAULT_CPU_FRACTION = 0.25;
export const DEFAULT_GPU_MEMORY_FRACTION = 0.4;
export const DEFAULT_IDLE_CPU_THRESHOLD = 0.6;
export const DEFAULT_IDLE_GPU_THRESHOLD = 0.7;
export const DEFAULT_EMBEDDING_DEVICE = 'cpu';
export const DEFAULT_MAX_CYCLE_SECONDS = 300;
export const DEFAULT_MAX_SESSION_MINUTES = 30;
export const DEFAULT_COMPUTE_PRESET = 'standard';
export const DEFAULT_MAX_EXPLORATION_DEPTH = 3;
export const DEFAULT_FRONTIER_MAX_SIZE = 500;
export const DEFAULT_MIN_PRIORITY = 0.1;
/** The spec leaves the feed's size open ("the feed is small"): ten cards fit one screen and one read. */
export const DEFAULT_MAX_READY_CARDS = 10;
/**
 * Detectors off by default: those whose hand-judged false-positive rate on real repositories is 10 %
 * or more (Tricorder's rule; docs/benchmarks.md#detector-false-positives). A user turns one back on
 * by setting the list without it.
 */
export const DEFAULT_DETECTORS_OFF: readonly string[] = [
  // Hand-judged on real repositories' states (scripts/bench/drift/fp-judgements.json, 2026-11-26):
  'review.debug_statement', // 6 of 6 false (prints in docstring examples, deliberate logging)
  'review.todo_added', // 3 of 6 (renamed or moved FIXMEs read as added)
  'review.secret_added', // 2 of 3 (fixture passwords)
  'review.missing_test_change', // 10 of 12 (docstring-only or type-only changes, spurious pairings)
  'bug.hotspot_change', // 7 of 7 (builds on the signals above)
  // Patches (virtual diffs) are on: with names and flags held, only moves get them, and moves'
  // patches were wrong 2 times in 29 on fresh sets 4-14 (fp-judgements-7..18.json; go-swagger's
  // `docs/README.md` became the site's `_index.md` where the sentence wants its build guide).
];

/**
 * Detectors whose cards are made but never shown: they stay candidates (`?diagnostic=true`, `GET
 * /work-products?state=candidate`, `sous prepare --diagnostic`), get no patch, and never take a place
 * in the feed. For findings that point at real stale docs as often as not: too wrong to show
 * (Tricorder's 10 %), too useful to throw away (most of the drift set's stale tokens are of these kinds).
 */
export const DEFAULT_DETECTORS_HELD: readonly string[] = [
  // Flags and variables: 9 of 12 ready cards false on fresh set 3 (fp-judgements-6.json; clap-derive
  // fields, variables read by a dependency or made from option names, shell variables of the doc's
  // own example, git's flags), 28 of 44 over sets 10-14 (fp-judgements-10..17.json).
  'docs_drift.removed_flag',
  'docs_drift.removed_env',
  // Names: 8 of 19 on fresh set 4, 11 of 12 on set 5, then 55 of 123 over sets 7-14 with the rules
  // each set prompted (names of dependencies the project once wrapped, history notes, the doc
  // example's own variables); Python paths 6 of 10 and config keys 11 of 13 over sets 7-14.
  'docs_drift.removed_name',
  'docs_drift.removed_module_path',
  'docs_drift.removed_config_key',
  // Stale callers (and the drafts that follow them): 2 of the 3 cards ever judged were another type's
  // method of the same name (wasm-bindgen, syft; fresh set 19 and a sample of 74 repositories'
  // histories, docs/benchmarks.md). Both shapes are fixed, but nothing measured since says < 10 %.
  'review.stale_callers',
];
export const DEFAULT_LLM_GATE = 'non_trivial';
export const DEFAULT_EXPLORATION_BACKEND = 'auto';
/** A small sentence-embedding model most local runtimes can pull. */
export const DEFAULT_EMBEDDING_MODEL = 'all-minilm';
/** Semantic retrieval runs whenever a local backend can embed; it is never required. */
export const DEFAULT_SEMANTIC_MODE = 'auto';
/** Long enough to read a confirmation prompt, short enough that a stale adoption does not linger. */
export const DEFAULT_ADOPTION_PENDING_CONFIRM_SECONDS = 30;
/** Spec 2.9: tier `capable` defaults to `local_balanced`. */
export const DEFAULT_POLICY_BUNDLE = 'local_balanced';
/** How long the proxy waits for an upstream's response headers, or for its next chunk (a local model's first token can be slow). */
export const DEFAULT_UPSTREAM_TIMEOUT_SECONDS = 120;
/** Default work style: Sous prepares for coding agents first. */
export const DEFAULT_WORK_STYLE = 'coding';

/** The default configuration. Frozen: copy it with `defaultConfig()` before changing anything. */
export const DEFAULT_CONFIG: Readonly<SousConfig> = deepFreeze({
  backend: {
    name: DEFAULT_BACKEND_NAME,
    base_url: DEFAULT_BACKEND_BASE_URL,
    model: DEFAULT_BACKEND_MODEL,
    api_key_env: '',
    prefer_local: true,
  },
  backends: {},
  mcp: { transport: DEFAULT_MCP_TRANSPORT, http_host: DEFAULT_MCP_HTTP_HOST, http_port: DEFAULT_MCP_HTTP_PORT, tool_names: 'underscore' },
  intent: {
    enabled: true,
    include_global_skills: false,
    skill_roots: [...DEFAULT_SKILL_ROOTS],
    skills_loop: { enabled: true, max_feedback_events_per_cycle: DEFAULT_MAX_FEEDBACK_EVENTS_PER_CYCLE },
  },
  gateway: { passthrough: { enabled: false }, routes: {}, upstream_timeout_seconds: DEFAULT_UPSTREAM_TIMEOUT_SECONDS },
  proxy: { allow_repo_override: false },
  privacy: {
    allowed_paths: [...DEFAULT_ALLOWED_PATHS],
    excluded_patterns: [...DEFAULT_EXCLUDED_PATTERNS],
    redact_patterns: [...DEFAULT_REDACT_PATTERNS],
  },
  compute: {
    device: DEFAULT_COMPUTE_DEVICE,
    cpu_fraction: DEFAULT_CPU_FRACTION,
    gpu_memory_fraction: DEFAULT_GPU_MEMORY_FRACTION,
    idle_only: true,
    idle_cpu_threshold: DEFAULT_IDLE_CPU_THRESHOLD,
    idle_gpu_threshold: DEFAULT_IDLE_GPU_THRESHOLD,
    embedding_device: DEFAULT_EMBEDDING_DEVICE,
    max_cycle_seconds: DEFAULT_MAX_CYCLE_SECONDS,
    max_session_minutes: DEFAULT_MAX_SESSION_MINUTES,
    preset: DEFAULT_COMPUTE_PRESET,
  },
  exploration: {
    max_exploration_depth: DEFAULT_MAX_EXPLORATION_DEPTH,
    frontier_max_size: DEFAULT_FRONTIER_MAX_SIZE,
    min_priority: DEFAULT_MIN_PRIORITY,
    max_ready_cards: DEFAULT_MAX_READY_CARDS,
    detectors_off: [...DEFAULT_DETECTORS_OFF],
    detectors_held: [...DEFAULT_DETECTORS_HELD],
    // Empty: no model's confirmations have been measured on real repositories yet (docs/prepared-work.md).
    confirm_held: [],
    llm_gate: DEFAULT_LLM_GATE,
    endpoint: '',
    model: '',
    backend: DEFAULT_EXPLORATION_BACKEND,
    api_key: '',
    embedding_model: DEFAULT_EMBEDDING_MODEL,
    semantic: DEFAULT_SEMANTIC_MODE,
  },
  refinement: { enabled: false, adoption_pending_confirm_seconds: DEFAULT_ADOPTION_PENDING_CONFIRM_SECONDS },
  policy: { bundle: DEFAULT_POLICY_BUNDLE, work_style: DEFAULT_WORK_STYLE },
  daemon: { allowed_hosts: [], allowed_origins: [] },
} satisfies SousConfig);

/** A fresh, mutable copy of the default configuration. */
export function defaultConfig(): SousConfig {
  return structuredClone(DEFAULT_CONFIG) as SousConfig;
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object') {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}
