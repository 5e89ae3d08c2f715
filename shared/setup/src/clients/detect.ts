import * as fs from 'node:fs';
import * as path from 'node:path';
import { allClients } from './registry';
import type { ClientId, WiringTarget } from './types';

/** Why a client counts as installed: the first marker found. */
export interface DetectedClient {
  id: ClientId;
  name: string;
  installed: boolean;
  /** The path or executable that gave it away (absent when not installed). */
  evidence?: string;
}

function onPath(executable: string, envPath: string): string | undefined {
  for (const dir of envPath.split(path.delimiter)) {
    if (dir === '') continue;
    const candidate = path.join(dir, executable);
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      if (fs.statSync(candidate).isFile()) return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

/**
 * Which of the ten clients are installed for this user: each client's own directory under HOME, or
 * its executable on PATH. Local and read-only (spec 1, rule 9): no process list, nothing else read.
 */
export function detectClients(target: Pick<WiringTarget, 'home' | 'platform'>, envPath = process.env.PATH ?? ''): DetectedClient[] {
  return allClients().map((client) => {
    const { paths, executables } = client.markers(target);
    for (const p of paths) {
      const abs = p.startsWith('~') ? path.join(target.home, p.slice(1)) : p;
      if (fs.existsSync(abs)) return { id: client.id, name: client.name, installed: true, evidence: abs };
    }
    for (const exe of executables) {
      const found = onPath(exe, envPath);
      if (found) return { id: client.id, name: client.name, installed: true, evidence: found };
    }
    return { id: client.id, name: client.name, installed: false };
  });
}
