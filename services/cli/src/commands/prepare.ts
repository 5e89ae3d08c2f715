import type { Command } from 'commander';
import type { SousPaths } from '@sous/config';
import { Skills, createRepositoryView, defaultDetectors, feedCard, markStale, runCycle, type CycleResult, type FeedCard } from '@sous/engine';
import { FINAL_JOB_STATES, type JobInfo } from '@sous/jobs';
import { DaemonRequestError } from '@sous/runtime';
import { WORK_PRODUCT_KINDS, type WorkProductKind } from '@sous/store';
import { CliError } from '../cli-error';
import { DaemonSession } from '../daemon-session';
import { printError, printJson, printLine } from '../output';
import { withOfflineIndex } from '../offline-index';
import { gitTopLevel } from '../repo-check';
import { run } from '../run';
import { resolveWorkspace } from '../workspace';

/** How long `sous prepare` follows a running daemon's cycle job before giving up. */
const JOB_WAIT_MS = 5 * 60_000;
const JOB_POLL_MS = 250;
/** The store lists at most this many cards in one call: "every ready card" in practice. */
const READY_LIMIT = 500;

interface PrepareOptions { path?: string; json?: boolean; failOn?: string; diagnostic?: boolean }

/** The cycle's figures, the same whether the CLI or a daemon ran it. */
interface CycleSummary {
  id: string | null;
  duration_ms: number;
  candidates: number;
  ready: number;
  landed: number;
  held: number;
  superseded: number;
  stale: number;
  detectors: unknown[];
  answered_by: 'cli' | 'daemon';
}

/** One ready card as `--json` prints it. */
interface PreparedItem {
  id: string;
  kind: string;
  title: string;
  summary: string;
  claim?: string;
  why_now: string;
  action: string;
  evidence: Array<{ path: string; line_start: number | null; line_end: number | null; commit: string | null; note: string }>;
  actions: string[];
}

/** A candidate as `--diagnostic` prints it: not in the feed, with the score and why it waits. */
interface CandidateItem extends PreparedItem {
  score: number | null;
  /** Why it is not ready: a held detector, the feed budget, or null (scored below the threshold). */
  reason: string | null;
}

interface Prepared {
  cycle: CycleSummary;
  items: PreparedItem[];
  /** Only with `--diagnostic`. */
  candidates?: CandidateItem[];
}

/** `--fail-on docs_drift,virtual_diff`: the kinds whose ready cards fail the command (exit 1). */
function parseFailOn(raw: string | undefined): WorkProductKind[] {
  if (raw === undefined) return [];
  const kinds = raw.split(',').map((k) => k.trim()).filter((k) => k !== '');
  const allowed: readonly string[] = WORK_PRODUCT_KINDS;
  const unknown = kinds.filter((k) => !allowed.includes(k));
  if (kinds.length === 0 || unknown.length > 0) {
    throw new CliError(`--fail-on ${kinds.length === 0 ? 'needs at least one kind' : `has unknown kind ${unknown.join(', ')}`}; allowed kinds: ${WORK_PRODUCT_KINDS.join(', ')}`, 2);
  }
  return kinds as WorkProductKind[];
}

/** `detector|claim` → `claim` (the claim key's detector prefix is already in `detector`). */
function claimOf(claimKey: string | null | undefined): string | undefined {
  if (!claimKey) return undefined;
  const bar = claimKey.indexOf('|');
  return bar < 0 ? undefined : claimKey.slice(bar + 1);
}

function itemOf(card: FeedCard, claimKey: string | null | undefined): PreparedItem {
  const claim = claimOf(claimKey);
  return {
    id: card.id,
    kind: card.kind,
    title: card.title,
    summary: card.summary,
    ...(claim === undefined ? {} : { claim }),
    why_now: card.why_now,
    action: card.action,
    evidence: card.evidence.map((e) => ({ path: e.path, line_start: e.line_start, line_end: e.line_end, commit: e.commit, note: e.note })),
    actions: card.actions,
  };
}

function candidateOf(card: FeedCard): CandidateItem {
  return { ...itemOf(card, card.diagnostic?.claim_key), score: card.diagnostic?.score ?? null, reason: card.diagnostic?.state_reason ?? null };
}

/** Best first, like the feed: score, then the most recently prepared (cards listed with their diagnostic). */
function bestFirst(cards: readonly FeedCard[]): FeedCard[] {
  const scoreOf = (c: FeedCard): number => c.diagnostic?.score ?? 0;
  return [...cards].sort((a, b) => scoreOf(b) - scoreOf(a) || (a.prepared_at < b.prepared_at ? 1 : a.prepared_at > b.prepared_at ? -1 : 0));
}

function summaryOf(result: CycleResult): CycleSummary {
  return {
    id: result.id,
    duration_ms: result.duration_ms,
    candidates: result.candidates,
    ready: result.ready.length,
    landed: result.landed,
    held: result.held,
    superseded: result.superseded,
    stale: result.stale,
    detectors: result.detectors,
    answered_by: 'cli',
  };
}

/**
 * Without a daemon: open the workspace's store, bring the stored index up to date, mark cards whose
 * evidence moved stale (no watcher saw the edits since the last run), run one warm cycle and list
 * every ready card. The store is the daemon's, so a later `sous up` starts from these cards.
 */
function prepareOffline(paths: SousPaths, progress: boolean, withCandidates: boolean): Promise<Prepared> {
  return withOfflineIndex(paths, progress, async ({ config, policy, store, workspaceId, live }) => {
    const reader = live.reader();
    await markStale({ store, workspaceId }, 'all', async (p) => reader.file(p)?.sha256 ?? null);
    const view = createRepositoryView(reader, policy);
    const signal = AbortSignal.timeout(config.compute.max_cycle_seconds * 1000);
    // The same skills step as a daemon's cycle (docs/skills.md): roots read, the loop's share of feedback.
    const skills = new Skills({ store, workspaceId, root: paths.root, config: () => config });
    await skills.refresh();
    await skills.learn();
    let result: CycleResult;
    try {
      result = await runCycle({ store, workspaceId, view, trigger: { kind: 'warm' }, config, detectors: defaultDetectors(), signal, skills: { ranker: skills.current(), modelOnLoopback: false } });
    } catch (err) {
      if (signal.aborted) throw new CliError(`the preparation cycle ran past compute.max_cycle_seconds (${config.compute.max_cycle_seconds} s); raise it with sous config set compute.max_cycle_seconds <n>`);
      throw err;
    }
    const list = async (state: 'ready' | 'candidate'): Promise<FeedCard[]> =>
      bestFirst((await store.workProducts.listWithEvidence({ workspaceId, states: [state], limit: READY_LIMIT })).map((card) => feedCard(card, true)));
    const items = (await list('ready')).map((card) => itemOf(card, card.diagnostic?.claim_key));
    if (!withCandidates) return { cycle: summaryOf(result), items };
    return { cycle: summaryOf(result), items, candidates: (await list('candidate')).map(candidateOf) };
  });
}

/** The `prepare.cycle` job's result as the daemon stores it (services/daemon/src/preparation.ts). */
interface CycleJobResult {
  cycle?: string;
  duration_ms?: number;
  candidates?: number;
  ready?: number;
  landed?: number;
  held?: number;
  superseded?: number;
  stale?: number;
  detectors?: unknown[];
  deferred?: string;
}

/** `prepare.cycle` jobs lost with a daemon that was killed: gone from its queue, or failed as interrupted. */
function lostWithRestart(job: JobInfo | undefined): boolean {
  return job === undefined || (job.state === 'failed' && (job.error ?? '').startsWith('interrupted:'));
}

/**
 * With a daemon: queue a warm cycle, follow its job to the end, then list the ready cards it holds.
 * A daemon restart meanwhile (a crash; the supervisor brings it back) is ridden out: requests wait
 * for the new daemon (DaemonSession), and a cycle lost with the old one is queued again.
 */
async function prepareWithDaemon(session: DaemonSession, withCandidates: boolean): Promise<Prepared> {
  try {
    const queue = () => session.call((c) => c.post<{ job: { id: string; state: string } }>('/prepare', {}));
    let queued = await queue();
    let restartsSeen = session.restarts;
    const deadline = Date.now() + JOB_WAIT_MS;
    let job: JobInfo | undefined;
    for (;;) {
      const id = queued.job.id;
      job = await session.call((c) => c.get<{ job: JobInfo }>(`/jobs/${encodeURIComponent(id)}`)).then(
        (body) => body.job,
        (err: unknown) => {
          // A daemon that restarted no longer knows a job of its in-process queue.
          if (err instanceof DaemonRequestError && err.status === 404 && session.restarts > restartsSeen) return undefined;
          throw err;
        },
      );
      if (session.restarts > restartsSeen && lostWithRestart(job)) {
        printError(`the daemon restarted and the preparation cycle (job ${id}) was lost with it; queueing it again`);
        queued = await queue();
        restartsSeen = session.restarts;
        continue;
      }
      if (job && FINAL_JOB_STATES.includes(job.state)) break;
      if (Date.now() >= deadline) throw new CliError(`the daemon's preparation cycle (job ${id}) is still ${job?.state ?? 'unknown'} after ${JOB_WAIT_MS / 60_000} minutes; follow it with sous jobs status`);
      await new Promise((r) => setTimeout(r, JOB_POLL_MS));
    }
    if (job.state !== 'completed') throw new CliError(`the daemon's preparation cycle (job ${job.id}) ${job.state}${job.error ? `: ${job.error}` : ''}`);
    const r = (job.result ?? {}) as CycleJobResult;
    if (r.deferred !== undefined) throw new CliError(`the daemon deferred the preparation cycle: ${r.deferred}`);
    const cycle: CycleSummary = {
      id: r.cycle ?? null,
      duration_ms: r.duration_ms ?? 0,
      candidates: r.candidates ?? 0,
      ready: r.ready ?? 0,
      landed: r.landed ?? 0,
      held: r.held ?? 0,
      superseded: r.superseded ?? 0,
      stale: r.stale ?? 0,
      detectors: r.detectors ?? [],
      answered_by: 'daemon',
    };
    const list = async (state: 'ready' | 'candidate'): Promise<FeedCard[]> =>
      bestFirst((await session.call((c) => c.get<{ items: FeedCard[] }>(`/work-products?state=${state}&limit=${READY_LIMIT}`))).items);
    const items = (await list('ready')).map((card) => itemOf(card, card.diagnostic?.claim_key));
    if (!withCandidates) return { cycle, items };
    return { cycle, items, candidates: (await list('candidate')).map(candidateOf) };
  } catch (err) {
    if (err instanceof DaemonRequestError) throw new CliError(err.message);
    throw err;
  }
}

function printItem(item: PreparedItem): void {
  printLine('');
  printLine(`${item.kind}  ${item.title}`);
  for (const e of item.evidence) {
    const lines = e.line_start === null ? '' : e.line_end !== null && e.line_end !== e.line_start ? `:${e.line_start}-${e.line_end}` : `:${e.line_start}`;
    printLine(`  ${e.path}${lines}${e.commit ? ` @${e.commit.slice(0, 12)}` : ''}  ${e.note}`);
  }
  if (item.action) printLine(`  → ${item.action}`);
}

function printHuman(prepared: Prepared): void {
  const c = prepared.cycle;
  printLine(`Cycle ran in ${c.duration_ms} ms (${c.answered_by === 'daemon' ? 'by the daemon' : 'in the CLI'}): ${c.candidates} candidates, ${c.landed} newly ready.`);
  if (prepared.items.length === 0) printLine('No ready Prepared Work: nothing strong and fresh to show (an empty feed is a valid answer).');
  else {
    printLine(`${prepared.items.length} ready card${prepared.items.length === 1 ? '' : 's'}:`);
    for (const item of prepared.items) printItem(item);
  }
  if (prepared.candidates === undefined) return;
  printLine('');
  printLine(
    prepared.candidates.length === 0
      ? 'No candidates.'
      : `${prepared.candidates.length} candidate${prepared.candidates.length === 1 ? '' : 's'}, not in the feed (weaker evidence, a held detector or the feed budget):`,
  );
  for (const item of prepared.candidates) {
    printItem(item);
    printLine(`  (candidate${item.score === null ? '' : `, score ${item.score.toFixed(2)}`}${item.reason ? `: ${item.reason}` : ''})`);
  }
}

export function registerPrepareCommand(program: Command): void {
  program
    .command('prepare')
    .description('one-shot: run a preparation cycle and list every ready Prepared Work card (for scripts and CI)')
    .option('--path <dir>', 'repository (default: nearest .sous/ upward, else the current directory)')
    .option('--json', 'print the cycle and every ready card as JSON')
    .option('--diagnostic', 'also list the candidates: cards kept out of the feed (held detectors such as docs drift of names and flags, weaker evidence, the feed budget), with the reason')
    .option('--fail-on <kinds>', `exit 1 when a ready card of these kinds exists (comma-separated: ${WORK_PRODUCT_KINDS.join(', ')})`)
    .action(
      run(async (opts: PrepareOptions) => {
        const failOn = parseFailOn(opts.failOn);
        const paths = resolveWorkspace(opts.path);
        // Refuse before creating .sous/ anywhere: Sous prepares work for git repositories only.
        if (gitTopLevel(paths.root) === undefined) throw new CliError(`${paths.root} is not a git repository; run sous prepare inside one or pass --path <repository>`);

        // A running daemon (or one its supervisor is restarting) holds the store and the index: ask
        // it to run the cycle instead of opening either.
        const session = await DaemonSession.open(paths, { onWait: printError });
        const withCandidates = opts.diagnostic === true;
        const prepared = session !== undefined ? await prepareWithDaemon(session, withCandidates) : await prepareOffline(paths, !opts.json && process.stderr.isTTY === true, withCandidates);

        if (opts.json) printJson({ workspace: paths.root, ...prepared });
        else printHuman(prepared);

        const failing = prepared.items.filter((item) => (failOn as string[]).includes(item.kind));
        if (failing.length > 0) {
          const kinds = [...new Set(failing.map((i) => i.kind))].join(', ');
          // A verdict on output already printed (JSON included), not a failure to report instead of it.
          printError(`${failing.length} ready card${failing.length === 1 ? '' : 's'} of kind ${kinds} (--fail-on ${failOn.join(',')})`);
          process.exitCode = 1;
        }
      }),
    );
}
