/**
 * Local model runtime detection: one short GET per usual loopback port. Read-only; a port that does not
 * answer in time simply means the runtime is absent (not a probe error).
 */
import type { DetectedRuntime } from './snapshot';

/** A runtime to look for on loopback. */
export interface RuntimeProbe {
  /** Runtime id reported in the snapshot. */
  name: string;
  port: number;
  /** Path to GET, e.g. `/v1/models` or Ollama's own `/api/tags`. */
  path: string;
  /** Host to probe; default `127.0.0.1`. */
  host?: string;
  /**
   * For runtimes that share a port (llama.cpp and LocalAI both use 8080): true when the answer is
   * this runtime's. Probes sharing a URL are tried in list order; one without `matches` accepts any answer.
   */
  matches?: (body: unknown) => boolean;
}

/** Default timeout of one runtime request, in ms. */
export const DEFAULT_RUNTIME_TIMEOUT_MS = 1000;

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** llama.cpp's server tags its models `owned_by: "llamacpp"` and adds a top-level `models` list. */
function looksLikeLlamaCpp(body: unknown): boolean {
  if (!isRecord(body)) return false;
  if (Array.isArray(body.models)) return true;
  return Array.isArray(body.data) && body.data.some((m) => isRecord(m) && m.owned_by === 'llamacpp');
}

/** The usual loopback ports of the local runtimes Sous knows (spec 2.10). */
export const DEFAULT_RUNTIME_PROBES: readonly RuntimeProbe[] = [
  { name: 'ollama', port: 11434, path: '/api/tags' },
  { name: 'lm_studio', port: 1234, path: '/v1/models' },
  { name: 'llama_cpp', port: 8080, path: '/v1/models', matches: looksLikeLlamaCpp },
  { name: 'localai', port: 8080, path: '/v1/models' },
  { name: 'vllm', port: 8000, path: '/v1/models' },
  { name: 'jan', port: 1337, path: '/v1/models' },
];

/** Model ids from an OpenAI `/v1/models` body (`data[].id`) or Ollama's `/api/tags` (`models[].name`). */
export function modelIdsFromBody(body: unknown): string[] {
  if (!isRecord(body)) return [];
  const ids: string[] = [];
  const collect = (list: unknown, key: string) => {
    if (!Array.isArray(list)) return;
    for (const m of list) if (isRecord(m) && typeof m[key] === 'string') ids.push(m[key] as string);
  };
  collect(body.data, 'id');
  if (ids.length === 0) {
    collect(body.models, 'name');
    if (ids.length === 0) collect(body.models, 'model');
  }
  return [...new Set(ids)];
}

type Answer = { ok: true; body: unknown } | { ok: false };

async function getOnce(url: string, timeoutMs: number): Promise<Answer> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(timeoutMs), headers: { accept: 'application/json' } });
    if (!res.ok) {
      await res.body?.cancel();
      return { ok: false };
    }
    const text = await res.text();
    let body: unknown = null;
    try {
      body = JSON.parse(text);
    } catch {
      // answered but not JSON: still a runtime, just without a model list
    }
    return { ok: true, body };
  } catch {
    return { ok: false };
  }
}

/**
 * Runtimes answering on loopback. Each distinct URL is requested once, all in parallel, each with
 * `timeoutMs` (default 1000 ms; a closed port answers at once, the timeout only bounds a hung one), so the whole detection takes about one timeout at most.
 */
export async function detectRuntimes(
  probes: readonly RuntimeProbe[] = DEFAULT_RUNTIME_PROBES,
  timeoutMs: number = DEFAULT_RUNTIME_TIMEOUT_MS,
): Promise<DetectedRuntime[]> {
  const byUrl = new Map<string, { host: string; port: number; probes: RuntimeProbe[] }>();
  for (const p of probes) {
    const host = p.host ?? '127.0.0.1';
    const url = `http://${host}:${p.port}${p.path}`;
    const entry = byUrl.get(url) ?? { host, port: p.port, probes: [] };
    entry.probes.push(p);
    byUrl.set(url, entry);
  }
  const found = await Promise.all(
    [...byUrl.entries()].map(async ([url, entry]): Promise<DetectedRuntime | null> => {
      const answer = await getOnce(url, timeoutMs);
      if (!answer.ok) return null;
      const probe = entry.probes.find((p) => !p.matches || p.matches(answer.body));
      if (!probe) return null;
      return { name: probe.name, base_url: `http://${entry.host}:${entry.port}/v1`, models: modelIdsFromBody(answer.body) };
    }),
  );
  return found.filter((r): r is DetectedRuntime => r !== null);
}
