/** The parts of the daemon's answers the cockpit reads (docs/http-api.md has the full shapes). */

export interface WorkspaceFocus {
  id: string;
  root: string;
  class: string;
  reason: string;
  action: string;
}

export interface Status {
  status: 'ok' | 'degraded';
  reasons?: Array<{ dependency: string; reason: string; since: string | null }>;
  version: string;
  pid: number;
  uptime_seconds: number;
  started_at: string;
  host: string;
  port: number;
  workspace: { id: string; root: string; state_dir: string };
  config: { path: string; loaded_at: string; last_error?: string };
  store: { kind: string; ok: boolean; latency_ms: number | null; detail?: string };
  queue: { kind: string; ok: boolean; detail?: string };
  policy: { bundle: string };
  backend: { name: string; base_url: string; model: string; reachable: boolean | null; model_present: boolean | null; checked_at: string | null; error?: string };
  watch: { mode: string; reason?: string };
  index: {
    state: string;
    scope?: Record<string, unknown>;
    coverage?: Record<string, unknown>;
    semantic?: Record<string, unknown>;
    [k: string]: unknown;
  };
  preparation: {
    last_cycle: { id: string; trigger: string; finished_at: string; duration_ms: number; frontier: number; candidates: number; ready: number; landed: number } | null;
    deferred: string | null;
    model: { mode: string; reason: string };
  };
  focus: WorkspaceFocus & { may_read: boolean; may_prepare: boolean; selected: string | null; mode: string };
}

export interface Focus {
  workspace: string;
  this_workspace: WorkspaceFocus & { may_read: boolean; may_prepare: boolean; pinned?: boolean };
  selected: string | null;
  mode: string;
  status: string;
  reasons: string[];
  workspaces: WorkspaceFocus[];
  clients: { running: Array<{ id?: string; name?: string }> | string[]; checked_at: string | null; method: string; error?: string };
  problem?: string;
}

export interface Evidence {
  path: string;
  line_start: number | null;
  line_end: number | null;
  commit: string | null;
  note: string;
}

export interface Card {
  id: string;
  kind: string;
  title: string;
  summary: string;
  why_now: string;
  action: string;
  evidence: Evidence[];
  actions: string[];
  prepared_at: string;
}

export interface Inspected extends Card {
  body: string;
  rationale: string;
  warnings: string[];
  preview: string;
}

export interface ExportPayload {
  id: string;
  format: 'markdown' | 'patch';
  filename: string;
  content: string;
}

export interface Job {
  id: string;
  name: string;
  state: string;
  createdAt?: string;
  startedAt?: string;
  finishedAt?: string;
  result?: unknown;
  error?: string | null;
  [k: string]: unknown;
}

export interface ConfigKeyInfo {
  key: string;
  type: string;
  default: unknown;
  description: string;
  values?: string[];
  reserved: boolean;
}

export interface ConfigAnswer {
  path: string;
  loaded_at: string;
  last_error?: string;
  config: Record<string, unknown>;
  keys: ConfigKeyInfo[];
}
