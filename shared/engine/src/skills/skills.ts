/**
 * Skills for one workspace (docs/skills.md): the catalogue discovery found, what the loop learned
 * about each skill, the user's influence (feedback, dismiss, restore), and the ranker preparation and
 * resolve use. Discovery runs when asked (the daemon asks at start, on config changes, before each
 * cycle and when a list is requested), never while the workspace may not be read.
 */
import * as os from 'node:os';
import type { SousConfig } from '@sous/config';
import type { FeedbackValue, Store } from '@sous/store';
import { EngineError } from '../errors';
import { discoverSkills } from './discover';
import { runSkillsLoop, type SkillLoopReport } from './loop';
import { SkillRanker, type WeighedSkill } from './ranker';
import type { SkillCatalogue, SkillRootReport } from './types';
import { diagnosticWire, inspectSkill, skillWire, type SkillWire } from './views';

export interface SkillsOptions {
  store: Store;
  workspaceId: string;
  /** The repository root. */
  root: string;
  /** `intent.*` and `privacy.*` as configured now (read on each use: hot reload). */
  config(): Pick<SousConfig, 'intent' | 'privacy'>;
  /** The home folder global roots are under. Default: `os.homedir()` (HOME). */
  home?(): string;
  /** Whether Sous may read the workspace now (Auto Focus); when not, discovery waits. Default: always. */
  mayRead?(): boolean;
}

/** What `GET /skills` and `sous skills list` show. */
export interface SkillList {
  skills: SkillWire[];
  diagnostics: ReturnType<typeof diagnosticWire>[];
  roots: SkillRootReport[];
  /** Why no skill is discovered at all, when discovery is off. */
  off: string | null;
  discovered_at: string | null;
  loop: SkillLoopReport | null;
}

export class Skills {
  private catalogue: SkillCatalogue | undefined;
  private ranker = new SkillRanker([]);
  private lastLoop: SkillLoopReport | null = null;
  private refreshing: Promise<SkillCatalogue> | undefined;

  constructor(private readonly options: SkillsOptions) {}

  /** Discovers skills again (one pass at a time) and reloads what was learned about them. */
  refresh(): Promise<SkillCatalogue> {
    this.refreshing ??= (async () => {
      try {
        const config = this.options.config();
        if (this.options.mayRead?.() === false) {
          // A paused workspace is not read: the last catalogue stays, nothing new is looked at.
          return this.catalogue ?? { skills: [], diagnostics: [], roots: [], off: 'the workspace may not be read now (Auto Focus)', discoveredAt: new Date().toISOString() };
        }
        this.catalogue = await discoverSkills({ root: this.options.root, config, home: this.options.home?.() ?? os.homedir() });
        await this.reload();
        return this.catalogue;
      } finally {
        this.refreshing = undefined;
      }
    })();
    return this.refreshing;
  }

  /** The ranker as of the last refresh, loop run or influence: synchronous, for resolve's hot path. */
  current(): SkillRanker {
    return this.ranker;
  }

  /** One run of the skills loop (at most the per-cycle cap of events), then the weights are reloaded. */
  async learn(): Promise<SkillLoopReport> {
    const report = await runSkillsLoop(this.options.store, this.options.workspaceId, this.options.config());
    this.lastLoop = report;
    if (report.consumed > 0) await this.reload();
    return report;
  }

  /** Every discovered skill (dismissed ones too), diagnostics, roots and the last loop run. */
  async list(reveal: boolean): Promise<SkillList> {
    const catalogue = this.catalogue;
    return {
      skills: [...this.ranker.skills].sort(byWeight).map((w) => skillWire(w, reveal)),
      diagnostics: (catalogue?.diagnostics ?? []).map((d) => diagnosticWire(d, reveal)),
      roots: catalogue?.roots ?? [],
      off: this.options.config().intent.enabled ? (catalogue?.off ?? null) : 'intent.enabled is false',
      discovered_at: catalogue?.discoveredAt ?? null,
      loop: this.lastLoop,
    };
  }

  inspect(id: string, reveal: boolean): ReturnType<typeof inspectSkill> {
    return inspectSkill(this.weighed(id), reveal);
  }

  /** Explicit feedback on a skill: an event the next cycle's loop consumes (it counts once, then). */
  async feedback(id: string, value: FeedbackValue, clientId?: string): Promise<{ id: string; value: FeedbackValue; recorded_at: string }> {
    this.weighed(id);
    const row = await this.options.store.skills.recordFeedback({ workspaceId: this.options.workspaceId, skillId: id, value, ...(clientId ? { clientId } : {}) });
    return { id, value, recorded_at: row.createdAt.toISOString() };
  }

  /** Dismiss (`true`): never suggested nor named again until restored. Idempotent. */
  async setDismissed(id: string, dismissed: boolean, reveal = false): Promise<SkillWire> {
    this.weighed(id);
    await this.options.store.skills.setDismissed(this.options.workspaceId, id, dismissed);
    await this.reload();
    return skillWire(this.weighed(id), reveal);
  }

  /** `sous forget`: what the loop learned and explicit skill feedback go; dismissals stay. */
  async forget(): Promise<{ feedback: number; states: number }> {
    const gone = await this.options.store.skills.forget(this.options.workspaceId);
    this.lastLoop = null;
    await this.reload();
    return gone;
  }

  /** Counts for `/status`. */
  status(): { discovered: number; project_local: number; external: number; dismissed: number; diagnostics: number; off: string | null; loop: SkillLoopReport | null } {
    const all = this.ranker.skills;
    return {
      discovered: all.length,
      project_local: all.filter((w) => w.skill.zone === 'project_local').length,
      external: all.filter((w) => w.skill.zone === 'external').length,
      dismissed: all.filter((w) => w.dismissed).length,
      diagnostics: this.catalogue?.diagnostics.length ?? 0,
      off: this.options.config().intent.enabled ? (this.catalogue?.off ?? null) : 'intent.enabled is false',
      loop: this.lastLoop,
    };
  }

  private weighed(id: string): WeighedSkill {
    const found = this.ranker.get(id);
    if (found === undefined) throw new EngineError('not_found', `no skill ${JSON.stringify(id)} in this workspace; list them with GET /skills`);
    return found;
  }

  private async reload(): Promise<void> {
    const states = await this.options.store.skills.states(this.options.workspaceId);
    this.ranker = SkillRanker.of(this.catalogue?.skills ?? [], states);
  }
}

function byWeight(a: WeighedSkill, b: WeighedSkill): number {
  return b.weight - a.weight || (a.skill.id < b.skill.id ? -1 : 1);
}
