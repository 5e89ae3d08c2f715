/**
 * The focus registry: what every daemon on this machine shares about workspaces. It lives in the
 * user's Sous home (`SOUS_HOME`, default `~/.sous`), never in a repository:
 *
 *   focus.json            the user's choices (FocusState): mode, wired workspaces, pins, pauses
 *   activity/<id>.<source>.json   per workspace and reporting process (its daemon, a context or proxy
 *                                 process): last file change, last MCP/proxy request
 *
 * Every daemon reads the same files and applies the same rules, so they agree on the one selected
 * workspace without talking to each other. Writes are atomic (temp file + rename); changes to
 * focus.json are serialised by a lock file.
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { PRIVATE_FILE_MODE, ensurePrivateDir } from '@sous/protocol';
import { applyAction, emptyFocusState, registerWorkspace, type FocusAction, type FocusActionResult, type FocusState } from './state';

/** The environment variable that moves the Sous home (tests, several users on one machine). */
export const SOUS_HOME_ENV = 'SOUS_HOME';

/** How long a writer waits for the lock before giving up, and when a lock counts as abandoned. */
const LOCK_WAIT_MS = 3000;
const LOCK_STALE_MS = 10_000;

/** The Sous home: `$SOUS_HOME`, else `~/.sous`. */
export function sousHome(env: NodeJS.ProcessEnv = process.env): string {
  return path.resolve(env[SOUS_HOME_ENV] || path.join(os.homedir(), '.sous'));
}

/** The stable focus id of a workspace: derived from its absolute root, the same for every process. */
export function workspaceKey(root: string): string {
  return `ws-${createHash('sha256').update(path.resolve(root)).digest('hex').slice(0, 12)}`;
}

/** What one daemon last reported for its workspace. */
export interface WorkspaceActivity {
  root: string;
  /** ISO time of the last file change the daemon saw. */
  last_file_change?: string;
  /** ISO time of the last MCP or proxy request for this workspace. */
  last_integration?: string;
}

export class FocusRegistry {
  readonly stateFile: string;
  readonly activityDir: string;

  constructor(readonly home: string = sousHome()) {
    this.stateFile = path.join(home, 'focus.json');
    this.activityDir = path.join(home, 'activity');
  }

  /** The user's choices; a missing file is the empty state. Throws with the file named when it is not valid JSON. */
  read(): FocusState {
    let raw: string;
    try {
      raw = fs.readFileSync(this.stateFile, 'utf8');
    } catch {
      return emptyFocusState();
    }
    try {
      const parsed = JSON.parse(raw) as Partial<FocusState>;
      return { ...emptyFocusState(parsed.mode === 'manual-only' ? 'manual-only' : 'auto'), ...parsed, workspaces: parsed.workspaces ?? {} };
    } catch {
      throw new Error(`${this.stateFile} is not valid JSON; fix it or delete it (Sous then starts with every workspace in Auto Focus)`);
    }
  }

  /** Applies a user action under the lock; the new state is stored only when it succeeded. */
  apply(action: FocusAction, now: Date = new Date()): FocusActionResult {
    return this.locked(() => {
      const result = applyAction(this.read(), action, now);
      if (result.ok) this.write(result.state);
      return result;
    });
  }

  /** Wires a workspace (idempotent) and returns its id. */
  register(root: string): string {
    const id = workspaceKey(root);
    const current = this.read();
    if (current.workspaces[id]?.root === path.resolve(root)) return id;
    this.locked(() => this.write(registerWorkspace(this.read(), id, path.resolve(root))));
    return id;
  }

  /**
   * Records what one process saw in a workspace. Each process writes its own file (`source`: the
   * daemon, a context process), so no lock is needed and no report overwrites another's.
   */
  recordActivity(id: string, activity: WorkspaceActivity, source = 'daemon'): void {
    ensurePrivateDir(this.activityDir);
    atomicWrite(path.join(this.activityDir, `${id}.${source.replace(/[^a-z0-9-]/gi, '_')}.json`), JSON.stringify(activity));
  }

  /** Every workspace's latest activity, merged over its reporting processes (unreadable files are skipped). */
  activity(): Record<string, WorkspaceActivity> {
    const out: Record<string, WorkspaceActivity> = {};
    let names: string[];
    try {
      names = fs.readdirSync(this.activityDir);
    } catch {
      return out;
    }
    const latest = (a: string | undefined, b: string | undefined): string | undefined => (a === undefined ? b : b === undefined || a >= b ? a : b);
    for (const name of names) {
      const id = /^(ws-[0-9a-f]+)(?:\.[\w-]+)?\.json$/.exec(name)?.[1];
      if (id === undefined) continue;
      try {
        const report = JSON.parse(fs.readFileSync(path.join(this.activityDir, name), 'utf8')) as WorkspaceActivity;
        const seen = out[id];
        const fileChange = latest(seen?.last_file_change, report.last_file_change);
        const integration = latest(seen?.last_integration, report.last_integration);
        out[id] = { root: seen?.root ?? report.root, ...(fileChange ? { last_file_change: fileChange } : {}), ...(integration ? { last_integration: integration } : {}) };
      } catch {
        // A half-written or foreign file: ignored, the next report replaces it.
      }
    }
    return out;
  }

  /** Changes whenever focus.json changes (cheap; polled by daemons to notice user actions quickly). */
  stamp(): string {
    try {
      const s = fs.statSync(this.stateFile);
      return `${s.mtimeMs}:${s.size}`;
    } catch {
      return 'none';
    }
  }

  private write(state: FocusState): void {
    ensurePrivateDir(this.home);
    atomicWrite(this.stateFile, `${JSON.stringify(state, null, 2)}\n`);
  }

  /** Runs `fn` holding `focus.lock` (created exclusively; an abandoned lock is taken over). */
  private locked<T>(fn: () => T): T {
    ensurePrivateDir(this.home);
    const lock = path.join(this.home, 'focus.lock');
    const deadline = Date.now() + LOCK_WAIT_MS;
    for (;;) {
      try {
        fs.closeSync(fs.openSync(lock, 'wx', PRIVATE_FILE_MODE));
        break;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
        const age = Date.now() - (fs.statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
        if (age > LOCK_STALE_MS) fs.rmSync(lock, { force: true });
        else if (Date.now() > deadline) throw new Error(`${lock} is held by another Sous process; try again, or delete it if no Sous process runs`);
        else Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10);
      }
    }
    try {
      return fn();
    } finally {
      fs.rmSync(lock, { force: true });
    }
  }
}

function atomicWrite(file: string, content: string): void {
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, content, { mode: PRIVATE_FILE_MODE });
  fs.renameSync(tmp, file);
}

/** Reports Sous's own integration requests (context, proxy) for a workspace, at most every few seconds. */
export class IntegrationReporter {
  private last = 0;
  private readonly id: string;

  constructor(
    private readonly registry: FocusRegistry,
    private readonly root: string,
    private readonly source: string,
    private readonly throttleMs = 5000,
  ) {
    this.id = workspaceKey(root);
  }

  /** A request for the workspace arrived; never throws (a report must not fail the request). */
  note(at = new Date()): void {
    if (at.getTime() - this.last < this.throttleMs) return;
    this.last = at.getTime();
    try {
      this.registry.recordActivity(this.id, { root: path.resolve(this.root), last_integration: at.toISOString() }, this.source);
    } catch {
      // An unwritable Sous home costs Auto Focus one signal, not the request.
    }
  }
}
