/**
 * Which supported AI clients are running right now, from process names and executable paths only
 * (see clients.ts for what that can and cannot see). Processes that are not a supported client are
 * dropped on the spot: neither kept, counted nor logged.
 */
import { clientForProcess, SUPPORTED_CLIENTS, type ClientId } from './clients';
import { defaultProcessSource, type ProcessEntry, type ProcessSource } from './processes';

export interface DetectedClient {
  id: ClientId;
  name: string;
  /** Every matching process, ascending (an editor shows up with its helper processes). */
  pids: number[];
}

export interface ClientDetection {
  /** Running clients in the order of SUPPORTED_CLIENTS; empty when none (or when listing failed). */
  clients: DetectedClient[];
  /** ISO time of the check. */
  checked_at: string;
  /** What was read, from the process source. */
  method: string;
  /** Set when the process listing failed; `clients` is then empty, not a guess. */
  error?: string;
}

/**
 * Lists processes once and groups the supported clients among them. Never throws: a failing source
 * yields no clients and an `error` line, which Auto Focus reports as it would report "no client".
 */
export async function detectClients(source: ProcessSource = defaultProcessSource()): Promise<ClientDetection> {
  const checked_at = new Date().toISOString();
  let entries: ProcessEntry[];
  try {
    entries = await source.list();
  } catch (err) {
    const detail = err instanceof Error ? err.message : String(err);
    return { clients: [], checked_at, method: source.method, error: `process_list_failed: ${detail}` };
  }
  const pidsById = new Map<ClientId, number[]>();
  for (const entry of entries) {
    const client = clientForProcess(entry);
    if (!client) continue;
    const pids = pidsById.get(client.id) ?? [];
    pids.push(entry.pid);
    pidsById.set(client.id, pids);
  }
  const clients: DetectedClient[] = [];
  for (const client of SUPPORTED_CLIENTS) {
    const pids = pidsById.get(client.id);
    if (pids) clients.push({ id: client.id, name: client.name, pids: pids.sort((a, b) => a - b) });
  }
  return { clients, checked_at, method: source.method };
}
