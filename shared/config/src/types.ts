/** Allowed values of the enum-typed keys. The key table validates against these lists. */
export const MCP_TRANSPORTS = ['stdio', 'sse', 'http'] as const;
/** How MCP tool names are listed: `underscore` (every client accepts them) or `dotted` (the spec's `sous.x.y`). */
export const MCP_TOOL_NAME_STYLES = ['underscore', 'dotted'] as const;
export const COMPUTE_DEVICES = ['auto', 'cpu', 'cuda', 'rocm', 'metal'] as const;
export const EMBEDDING_DEVICES = ['cpu', 'auto', 'gpu'] as const;
/** `background` is for CPU-only machines: idle cycles only (spec 2.8). */
export const COMPUTE_PRESETS = ['background', 'standard', 'performance'] as const;
export const LLM_GATES = ['non_trivial', 'always', 'never'] as const;
export const EXPLORATION_BACKENDS = ['auto', 'local', 'remote'] as const;
/** The optional semantic stage of retrieval: `auto` when a local backend embeds, `off` never (docs/retrieval-semantic.md). */
export const SEMANTIC_MODES = ['auto', 'off'] as const;
/** The seven policy bundles of spec 2.9, in the spec's order. */
export const POLICY_BUNDLE_IDS = [
  'local_lightweight',
  'local_balanced',
  'local_heavy',
  'hybrid_balanced',
  'hybrid_quality',
  'cost_saver',
  'deep_research',
] as const;
/** What the user mostly does in this workspace; weights composer signals (spec 6.4: writers and researchers most). */
export const WORK_STYLES = ['coding', 'writing', 'research', 'general', 'support'] as const;

export type McpTransport = (typeof MCP_TRANSPORTS)[number];
export type McpToolNameStyle = (typeof MCP_TOOL_NAME_STYLES)[number];
export type ComputeDevice = (typeof COMPUTE_DEVICES)[number];
export type EmbeddingDevice = (typeof EMBEDDING_DEVICES)[number];
export type ComputePreset = (typeof COMPUTE_PRESETS)[number];
export type LlmGate = (typeof LLM_GATES)[number];
export type ExplorationBackend = (typeof EXPLORATION_BACKENDS)[number];
export type SemanticMode = (typeof SEMANTIC_MODES)[number];
export type PolicyBundleId = (typeof POLICY_BUNDLE_IDS)[number];
export type WorkStyle = (typeof WORK_STYLES)[number];

/** A named backend profile (`[backends.<profile>]`), selected per request by `X-Sous-Backend`. */
export interface BackendProfile {
  base_url: string;
  model: string;
  /** Name of the environment variable holding the key; never the key itself. */
  api_key_env: string;
}

/** The effective configuration: every key present, typed, validated. */
export interface SousConfig {
  backend: { name: string; base_url: string; model: string; api_key_env: string; prefer_local: boolean };
  backends: Record<string, BackendProfile>;
  mcp: { transport: McpTransport; http_host: string; http_port: number; tool_names: McpToolNameStyle };
  intent: {
    enabled: boolean;
    include_global_skills: boolean;
    skill_roots: string[];
    skills_loop: { enabled: boolean; max_feedback_events_per_cycle: number };
  };
  /** `upstream_timeout_seconds`: Sous addition, how long the proxy waits for an upstream's headers or its next chunk. */
  gateway: { passthrough: { enabled: boolean }; routes: Record<string, string>; upstream_timeout_seconds: number };
  proxy: { allow_repo_override: boolean };
  privacy: { allowed_paths: string[]; excluded_patterns: string[]; redact_patterns: string[] };
  compute: {
    device: ComputeDevice;
    cpu_fraction: number;
    gpu_memory_fraction: number;
    idle_only: boolean;
    idle_cpu_threshold: number;
    idle_gpu_threshold: number;
    embedding_device: EmbeddingDevice;
    max_cycle_seconds: number;
    max_session_minutes: number;
    preset: ComputePreset;
  };
  exploration: {
    max_exploration_depth: number;
    frontier_max_size: number;
    min_priority: number;
    /** Sous addition: most ready cards in the feed at once (spec 1 rule 7: the feed is small); the rest wait as candidates. */
    max_ready_cards: number;
    /** Detector ids (`review.missing_test_change`) or families (`review`) whose cards are never made. */
    detectors_off: string[];
    /** Detector ids or families whose cards are made but kept as candidates: never in the feed, no patch. */
    detectors_held: string[];
    /**
     * Sous addition: held detector ids or families whose findings the exploration model may check one
     * by one; a finding it confirms is shown as any other (unmeasured here: off by default).
     */
    confirm_held: string[];
    llm_gate: LlmGate;
    endpoint: string;
    model: string;
    backend: ExplorationBackend;
    /** Empty or `env:NAME`; never a key value (spec 5.3). */
    api_key: string;
    embedding_model: string;
    /** Sous addition: chunk embeddings fused into retrieval when a local backend embeds (`auto`), or never (`off`). */
    semantic: SemanticMode;
  };
  refinement: { enabled: boolean; adoption_pending_confirm_seconds: number };
  /** Sous addition: the active policy bundle (spec 2.9). */
  /** Sous addition: the work style (spec 6.4), which sets the composer-signal multiplier. */
  policy: { bundle: PolicyBundleId; work_style: WorkStyle };
  /** Sous addition: what the daemon's HTTP interface accepts besides loopback. */
  daemon: { allowed_hosts: string[]; allowed_origins: string[] };
}
