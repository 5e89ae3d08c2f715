/**
 * The exploration model's check of held findings (`exploration.confirm_held`): a detector held back
 * because its cards were too often wrong on real repositories (docs drift's names: the doc names
 * another library's `onChange`, its own example's `projectId`) may still be right in one case, and
 * telling the two apart takes reading, not matching. The model reads the claim, the cited lines and
 * what the removing commit took out, and answers STALE or KEEP; a finding it confirms is shown as any
 * other card, marked so. A few calls per cycle, in idle time like every model pass; a verdict is kept
 * with the card, so a finding is asked about once per version of its evidence.
 */
import type { RepositoryView } from '../view/repository-view';
import type { Candidate, ModelCheck } from '../work/types';
import { cleanLine, errorLine, withoutThinking } from './answers';
import type { ChatClient } from './model-assist';
import { checkPrompt } from './prompts';

/** Checks per cycle: a laptop model answers a few per minute, and the other passes come first. */
export const CHECK_CALLS_PER_CYCLE = 2;
/** Longest reason kept from an answer. */
const MAX_WHY_CHARS = 300;
/** Lines of the removing commit's diff shown around each removed line that names the finding's subject. */
const REMOVED_CONTEXT_LINES = 2;

export interface CheckOutcome {
  /** One per candidate asked about, same order; undefined where no prompt could be built or the call failed. */
  checks: Array<ModelCheck | undefined>;
  /** The first failure, in one line (for status). */
  error?: string;
}

/** Asks the model about each of `candidates`, in order, stopping at the first failed call (the backend is down). */
export async function checkHeld(view: RepositoryView, candidates: readonly Candidate[], options: { chat: ChatClient; model: string; signal: AbortSignal }): Promise<CheckOutcome> {
  const checks: Array<ModelCheck | undefined> = candidates.map(() => undefined);
  for (const [i, candidate] of candidates.entries()) {
    if (options.signal.aborted) break;
    const prompt = checkPrompt(view, candidate, await removedLines(view, candidate));
    if (prompt === undefined) continue;
    try {
      const answer = await options.chat.complete(prompt, { maxTokens: 120, signal: options.signal });
      checks[i] = readVerdict(answer, options.model, view);
    } catch (err) {
      if (options.signal.aborted) break;
      return { checks, error: errorLine(err, view) };
    }
  }
  return { checks };
}

/**
 * STALE confirms, KEEP refutes, on the answer's first word; anything else refutes too ("the answer
 * was unclear"), so that an unclear model never lets a held finding through and is not asked again
 * about the same evidence.
 */
export function readVerdict(answer: string, model: string, view: RepositoryView): ModelCheck {
  const read = verdictOf(answer);
  if (read === undefined) return { verdict: 'refuted', model, why: 'the answer was unclear (neither STALE nor KEEP first)' };
  const why = cleanLine(read.rest, MAX_WHY_CHARS, view);
  return { verdict: read.verdict, model, why: why === '' ? 'no reason given' : why };
}

/** The verdict an answer opens with (STALE or KEEP, in any case and dress) and the text after it; undefined when neither. */
export function verdictOf(answer: string): { verdict: ModelCheck['verdict']; rest: string } | undefined {
  const text = withoutThinking(answer);
  const first = /^[\s*_`"'>#-]*(STALE|KEEP)\b[\s*_`"'.:,;—–-]*/i.exec(text);
  if (first === null) return undefined;
  return { verdict: first[1]!.toUpperCase() === 'STALE' ? 'confirmed' : 'refuted', rest: text.slice(first[0].length) };
}

/**
 * What the candidate's removing commit took out of the cited file: its removed lines that name one
 * of the card's backticked subjects, with a little context, from the view's in-scope, redacted diff.
 */
async function removedLines(view: RepositoryView, candidate: Candidate): Promise<string | undefined> {
  const removal = candidate.evidence.find((e) => e.commit !== undefined && e.lineStart === undefined);
  if (removal?.commit === undefined || !view.policy.inScope(removal.path)) return undefined;
  // A flag is declared by its bare name (`.long("color")`, `'watch-extensions': …`), a path by its last part.
  const subjects = [...candidate.title.matchAll(/`([^`]+)`/g)].map((m) => m[1]!.replace(/^-{1,2}(?:no-)?/, '').split(/::|\.|\//).pop()!).filter((w) => w.length > 1);
  if (subjects.length === 0) return undefined;
  let files;
  try {
    files = await view.git.commitDiff(removal.commit);
  } catch {
    return undefined;
  }
  const file = files.find((f) => f.path === removal.path || f.oldPath === removal.path);
  if (file === undefined) return undefined;
  const named = (line: string): boolean => subjects.some((s) => line.includes(s));
  const out: string[] = [];
  for (const hunk of file.hunks) {
    const keep = new Set<number>();
    hunk.lines.forEach((line, i) => {
      if (!line.startsWith('-') || !named(line)) return;
      for (let j = Math.max(0, i - REMOVED_CONTEXT_LINES); j <= Math.min(hunk.lines.length - 1, i + REMOVED_CONTEXT_LINES); j++) keep.add(j);
    });
    if (keep.size === 0) continue;
    out.push(`@@ ${file.path} -${hunk.oldStart} @@`, ...[...keep].sort((a, b) => a - b).map((j) => hunk.lines[j]!));
  }
  return out.length > 0 ? out.join('\n') : undefined;
}
