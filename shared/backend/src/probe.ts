import OpenAI from 'openai';

/** Where the model backend is and which model Sous is configured to use (config `backend.*`). */
export interface BackendTarget {
  name: string;
  baseUrl: string;
  model: string;
  /** Name of the environment variable holding the key; empty for local runtimes. */
  apiKeyEnv: string;
}

/** Result of asking a backend for its model list. Never carries the key. */
export interface BackendProbe {
  name: string;
  base_url: string;
  model: string;
  reachable: boolean;
  /** true/false when the model list was read; null when the backend could not be asked. */
  model_present: boolean | null;
  /** Model ids the runtime reported (first 50). */
  models: string[];
  checked_at: string;
  latency_ms: number;
  error?: string;
}

/**
 * Asks an OpenAI-compatible backend for `/models` with a short timeout and no retries. Never
 * throws: an unreachable backend, a missing key or a refusal is reported in `error`.
 */
export async function probeBackend(target: BackendTarget, options: { timeoutMs?: number; env?: NodeJS.ProcessEnv } = {}): Promise<BackendProbe> {
  const env = options.env ?? process.env;
  const started = Date.now();
  const base = { name: target.name, base_url: target.baseUrl, model: target.model, checked_at: new Date().toISOString() };
  const apiKey = target.apiKeyEnv ? env[target.apiKeyEnv] : undefined;
  if (target.apiKeyEnv && !apiKey) {
    return { ...base, reachable: false, model_present: null, models: [], latency_ms: 0, error: `environment variable ${target.apiKeyEnv} (backend.api_key_env) is not set` };
  }
  const client = new OpenAI({ baseURL: target.baseUrl, apiKey: apiKey || 'sous-local', timeout: options.timeoutMs ?? 2000, maxRetries: 0 });
  try {
    const models: string[] = [];
    for await (const m of client.models.list()) {
      models.push(m.id);
      if (models.length >= 500) break;
    }
    return { ...base, reachable: true, model_present: modelListed(target.model, models), models: models.slice(0, 50), latency_ms: Date.now() - started };
  } catch (err) {
    return { ...base, reachable: false, model_present: null, models: [], latency_ms: Date.now() - started, error: describe(err, target.baseUrl) };
  }
}

/** Ollama lists `name:tag`; a configured `name` without a tag means `name:latest`. */
function modelListed(model: string, models: string[]): boolean {
  if (models.includes(model)) return true;
  return !model.includes(':') && models.includes(`${model}:latest`);
}

function describe(err: unknown, baseUrl: string): string {
  if (err instanceof OpenAI.APIConnectionTimeoutError) return `no answer from ${baseUrl} within the timeout`;
  if (err instanceof OpenAI.APIConnectionError) return `cannot connect to ${baseUrl} (is the model runtime running?)`;
  if (err instanceof OpenAI.APIError) return `${baseUrl} answered ${err.status ?? 'an error'} to GET /models`;
  return err instanceof Error ? err.message : String(err);
}
