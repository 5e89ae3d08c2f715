import * as fs from 'node:fs';
import * as path from 'node:path';
import { ensureParents, readText, removeEmptyDirs, sha256, writeAtomic } from './files';
import { getClient } from './registry';
import { WiringError, type ClientId, type LayerKind, type LayerPlan, type ManagedEdit, type WiringTarget } from './types';

/**
 * launch, verify and uninstall over the managed edits of each client. A manifest in the workspace's
 * state directory (`.sous/clients.json`) records, per file, whether launch created it, the backup of
 * its bytes before, and the hash of what launch wrote: uninstall puts the original bytes back when
 * the file is still exactly what launch left, and otherwise removes only Sous's part.
 */

export type LaunchStatus = 'installed' | 'updated' | 'unchanged' | 'skipped' | 'unsupported' | 'conflict' | 'error';
export type VerifyStatus = 'ok' | 'missing' | 'drifted' | 'broken' | 'skipped' | 'unsupported';
export type UninstallStatus = 'removed' | 'restored' | 'absent' | 'unsupported' | 'error';

export interface LayerReport<S extends string> {
  layer: LayerKind;
  status: S;
  files: string[];
  /** Why (unsupported, skipped, conflict, error) or what (drift), in one line. */
  detail?: string;
}

export interface ClientReport<S extends string> {
  client: ClientId;
  name: string;
  layers: Array<LayerReport<S>>;
}

interface FileRecord {
  /** Launch created the file (uninstall deletes it when unchanged). */
  created: boolean;
  /** Backup of the bytes before the first launch changed it; null when it did not exist. */
  backup: string | null;
  /** sha256 of what launch wrote last. */
  written_sha256: string;
  /** The backup still holds the file minus Sous's part (false once a launch found it edited since). */
  restorable: boolean;
  /** Directories launch created for it, outermost first. */
  dirs: string[];
}

interface Manifest {
  version: 1;
  /** Every directory a launch created (any client): removed by uninstall once empty. */
  created_dirs?: string[];
  clients: Partial<Record<ClientId, { launched_at: string; composer: boolean; files: Record<string, FileRecord> }>>;
}

/** Where the manifest and backups live: the workspace's `.sous/` (or SOUS_STATE_DIR). */
export interface WiringStore {
  stateDir: string;
}

function manifestPath(store: WiringStore): string {
  return path.join(store.stateDir, 'clients.json');
}

function readManifest(store: WiringStore): Manifest {
  const text = readText(manifestPath(store));
  if (text === undefined) return { version: 1, clients: {} };
  try {
    const parsed = JSON.parse(text) as Manifest;
    return parsed && parsed.version === 1 && typeof parsed.clients === 'object' ? parsed : { version: 1, clients: {} };
  } catch {
    return { version: 1, clients: {} };
  }
}

function writeManifest(store: WiringStore, manifest: Manifest): void {
  fs.mkdirSync(store.stateDir, { recursive: true });
  writeAtomic(manifestPath(store), JSON.stringify(manifest, null, 2) + '\n');
}

function backup(store: WiringStore, file: string, text: string): string {
  const dir = path.join(store.stateDir, 'backups', 'clients');
  fs.mkdirSync(dir, { recursive: true });
  const name = `${new Date().toISOString().replace(/[:.]/g, '-')}-${process.pid}-${file.replace(/[/\\:]+/g, '_').replace(/^_+/, '')}`;
  const out = path.join(dir, name);
  fs.writeFileSync(out, text);
  return out;
}

/** The clients launched in this workspace (per its manifest). */
export function launchedClients(store: WiringStore): ClientId[] {
  return Object.keys(readManifest(store).clients) as ClientId[];
}

function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

export interface LaunchOptions {
  /** Install opt-in layers (the Claude Code L0 composer hook). Default false. */
  composer?: boolean;
  /** Replace a same-named file Sous did not write (backed up first; uninstall restores it). Default false. */
  force?: boolean;
}

/** Installs every applicable layer of one client; idempotent (a second run changes nothing). */
export function launchClient(id: ClientId, target: WiringTarget, store: WiringStore, options: LaunchOptions = {}): ClientReport<LaunchStatus> {
  const client = getClient(id);
  const manifest = readManifest(store);
  const entry = manifest.clients[id] ?? { launched_at: new Date().toISOString(), composer: false, files: {} };
  entry.composer = entry.composer || options.composer === true;
  const layers: Array<LayerReport<LaunchStatus>> = [];
  for (const plan of client.layers(target)) {
    if (plan.unsupported !== undefined) {
      layers.push({ layer: plan.kind, status: 'unsupported', files: [], detail: plan.unsupported });
      continue;
    }
    if (plan.optIn !== undefined && !(options.composer === true || manifestHas(entry, plan))) {
      layers.push({ layer: plan.kind, status: 'skipped', files: plan.edits.map((e) => e.file), detail: plan.optIn });
      continue;
    }
    layers.push(applyLayer(plan, store, entry.files, options.force === true));
  }
  const dirs = new Set(manifest.created_dirs ?? []);
  for (const r of Object.values(entry.files)) for (const d of r.dirs) dirs.add(d);
  manifest.created_dirs = [...dirs];
  entry.launched_at = new Date().toISOString();
  manifest.clients[id] = entry;
  writeManifest(store, manifest);
  return { client: id, name: client.name, layers };
}

/** A layer launched before (e.g. the composer hook) stays installed on a later launch without the flag. */
function manifestHas(entry: { files: Record<string, FileRecord> }, plan: LayerPlan): boolean {
  return plan.edits.some((e) => entry.files[e.file] !== undefined);
}

function applyLayer(plan: LayerPlan, store: WiringStore, records: Record<string, FileRecord>, force: boolean): LayerReport<LaunchStatus> {
  const files = plan.edits.map((e) => e.file);
  const results: LaunchStatus[] = [];
  try {
    // Compute every file first: a layer with one unparsable file writes nothing at all.
    const planned = plan.edits.map((edit) => {
      const before = readText(edit.file);
      return { edit, before, after: edit.apply(before, force) };
    });
    for (const { edit, before, after } of planned) {
      const record = records[edit.file];
      if (after === before) {
        if (record && before !== undefined && sha256(before) !== record.written_sha256) {
          // Edited since launch, our part intact: the old backup no longer equals "this file minus Sous".
          record.restorable = false;
          record.written_sha256 = sha256(before);
        }
        results.push('unchanged');
        continue;
      }
      const dirs = ensureParents(edit.file);
      const saved = before === undefined ? null : backup(store, edit.file, before);
      writeAtomic(edit.file, after);
      if (record === undefined || before === undefined) {
        // First launch of this file, or the file was deleted since: what is there now is the original.
        records[edit.file] = { created: before === undefined, backup: saved, written_sha256: sha256(after), restorable: true, dirs: record?.dirs ?? dirs };
      } else {
        // Still exactly what launch wrote (only Sous's part changes now): the old backup stays the original.
        record.restorable = record.restorable && sha256(before) === record.written_sha256;
        record.written_sha256 = sha256(after);
      }
      results.push(before === undefined || record === undefined ? 'installed' : 'updated');
    }
  } catch (err) {
    const status: LaunchStatus = err instanceof WiringError && err.code === 'conflict' ? 'conflict' : 'error';
    return { layer: plan.kind, status, files, detail: describe(err) };
  }
  const status: LaunchStatus = results.includes('installed') ? 'installed' : results.includes('updated') ? 'updated' : 'unchanged';
  return { layer: plan.kind, status, files };
}

/** Reports, per layer, whether Sous's part is in place, missing, drifted, or points at a Sous that is gone. */
export function verifyClient(id: ClientId, target: WiringTarget, store: WiringStore): ClientReport<VerifyStatus> {
  const client = getClient(id);
  const entry = readManifest(store).clients[id];
  const layers: Array<LayerReport<VerifyStatus>> = client.layers(target).map((plan) => {
    if (plan.unsupported !== undefined) return { layer: plan.kind, status: 'unsupported', files: [], detail: plan.unsupported };
    const files = plan.edits.map((e) => e.file);
    const presence = plan.edits.map((e) => presenceOf(e));
    if (plan.optIn !== undefined && presence.every((p) => p === 'missing') && !(entry && manifestHas(entry, plan))) {
      return { layer: plan.kind, status: 'skipped', files, detail: plan.optIn };
    }
    const missing = files.filter((_, i) => presence[i] === 'missing');
    const drifted = files.filter((_, i) => presence[i] === 'drifted');
    if (missing.length > 0) return { layer: plan.kind, status: 'missing', files, detail: `not found in ${missing.join(', ')}` };
    if (drifted.length > 0) return { layer: plan.kind, status: 'drifted', files, detail: `differs from what sous launch ${id} writes in ${drifted.join(', ')}` };
    if (plan.kind === 'mcp') {
      const gone = [target.server.command, ...target.server.args.filter((a) => path.isAbsolute(a) && a.endsWith('.js'))].filter((p) => !fs.existsSync(p));
      if (gone.length > 0) return { layer: plan.kind, status: 'broken', files, detail: `the entry starts ${gone.join(', ')}, which does not exist` };
    }
    return { layer: plan.kind, status: 'ok', files };
  });
  return { client: id, name: client.name, layers };
}

function presenceOf(edit: ManagedEdit): 'ok' | 'missing' | 'drifted' {
  try {
    return edit.present(readText(edit.file));
  } catch {
    return 'drifted';
  }
}

/** Removes exactly what launch added: the original bytes when nothing else changed, else only Sous's part. */
export function uninstallClient(id: ClientId, target: WiringTarget, store: WiringStore): ClientReport<UninstallStatus> {
  const client = getClient(id);
  const manifest = readManifest(store);
  const records = manifest.clients[id]?.files ?? {};
  const layers: Array<LayerReport<UninstallStatus>> = client.layers(target).map((plan) => {
    if (plan.unsupported !== undefined) return { layer: plan.kind, status: 'unsupported', files: [], detail: plan.unsupported };
    const files = plan.edits.map((e) => e.file);
    const outcomes: UninstallStatus[] = [];
    try {
      for (const edit of plan.edits) outcomes.push(removeEdit(edit, records[edit.file], store));
    } catch (err) {
      return { layer: plan.kind, status: 'error', files, detail: describe(err) };
    }
    const status: UninstallStatus = outcomes.includes('restored') ? 'restored' : outcomes.includes('removed') ? 'removed' : 'absent';
    return { layer: plan.kind, status, files };
  });
  // Directories launch created, once every file in them is gone (a later layer may have emptied an earlier one's).
  const dirs = [...(manifest.created_dirs ?? []), ...Object.values(records).flatMap((r) => r.dirs)];
  removeEmptyDirs(dirs);
  manifest.created_dirs = [...new Set(dirs)].filter((d) => fs.existsSync(d));
  if (!layers.some((l) => l.status === 'error')) {
    delete manifest.clients[id];
    writeManifest(store, manifest);
  }
  return { client: id, name: client.name, layers };
}

function removeEdit(edit: ManagedEdit, record: FileRecord | undefined, store: WiringStore): UninstallStatus {
  const current = readText(edit.file);
  if (current === undefined) return 'absent';
  if (record && record.restorable && sha256(current) === record.written_sha256) {
    if (record.created) {
      fs.rmSync(edit.file);
      removeEmptyDirs(record.dirs);
      return 'removed';
    }
    const original = record.backup === null ? undefined : readText(record.backup);
    if (original !== undefined) {
      writeAtomic(edit.file, original);
      return 'restored';
    }
  }
  const next = edit.remove(current);
  if (next === current) return 'absent';
  backup(store, edit.file, current);
  if (next === undefined) {
    fs.rmSync(edit.file);
    if (record) removeEmptyDirs(record.dirs);
  } else writeAtomic(edit.file, next);
  return 'removed';
}
