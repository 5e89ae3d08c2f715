/**
 * The model's share of a cycle: for the strongest candidates that pass `exploration.llm_gate`, a
 * research brief written by the model from the cited lines. Scores stay grounded in evidence: a
 * brief cites exactly its source's evidence and is weaker than it, so the model never makes a
 * finding look stronger. The engine talks to the model through the structural `ChatClient` below;
 * the daemon passes the @sous/backend client in. A model that fails or is missing costs the cycle
 * its briefs and nothing else.
 */
import type { LlmGate } from '@sous/config';
import { redactText } from '@sous/protocol';
import { claimKey } from '../cycle/land';
import type { ModelAssist } from '../cycle/run-cycle';
import type { RepositoryView } from '../view/repository-view';
import type { Candidate } from '../work/types';
import { researchBriefPrompt, type PromptMessage } from './prompts';

/** Model calls per cycle when the caller does not say: a laptop CPU answers a few per minute. */
export const DEFAULT_MODEL_CALLS_PER_CYCLE = 3;
/** Under the `non_trivial` gate, only candidates at least this strong reach the model. */
export const NON_TRIVIAL_MIN_STRENGTH = 0.6;
/** A brief's strength relative to its source: background reading is never stronger than the finding. */
export const BRIEF_STRENGTH_FACTOR = 0.8;
/** Answer length asked for (about 150 words and some slack). */
const BRIEF_MAX_TOKENS = 400;
/** Longest brief kept; a runaway answer is cut. */
const MAX_BRIEF_CHARS = 4_000;
/** Longest feed summary taken from the brief. */
const MAX_SUMMARY_CHARS = 240;

/** What the engine needs of a chat backend (the @sous/backend `ChatClient` satisfies it). */
export interface ChatClient {
  complete(messages: PromptMessage[], options?: { maxTokens?: number; signal?: AbortSignal }): Promise<string>;
}

export interface ModelAssistOptions {
  chat: ChatClient;
  /** `exploration.llm_gate`: `non_trivial` (strong, indexed candidates only), `always`, `never`. */
  gate: LlmGate;
  /** Model calls per `propose`. Default `DEFAULT_MODEL_CALLS_PER_CYCLE`. */
  maxCalls?: number;
  /** The model's name, shown on every card it wrote. */
  model: string;
}

export interface ModelAssistHandle extends ModelAssist {
  /** The most recent model failure in one line (cleared by the next success); for status. */
  lastError(): string | undefined;
}

export function createModelAssist(options: ModelAssistOptions): ModelAssistHandle {
  const maxCalls = Math.max(0, Math.floor(options.maxCalls ?? DEFAULT_MODEL_CALLS_PER_CYCLE));
  let lastError: string | undefined;
  return {
    lastError: () => lastError,
    async propose(view, candidates, signal) {
      if (options.gate === 'never' || maxCalls === 0) return [];
      const briefs: Candidate[] = [];
      try {
        for (const { source, prompt } of chosen(view, candidates, options.gate, maxCalls)) {
          if (signal.aborted) break;
          let answer: string;
          try {
            answer = await options.chat.complete(prompt, { maxTokens: BRIEF_MAX_TOKENS, signal });
          } catch (err) {
            if (signal.aborted) break;
            lastError = redactText(firstLine(err), view.policy.redactPatterns);
            // The backend is probably down or refusing; the next cycle asks again.
            break;
          }
          const text = cleanAnswer(answer, view);
          if (text === '') {
            lastError = 'the model returned an empty brief';
            continue;
          }
          lastError = undefined;
          briefs.push(brief(source, text, options.model));
        }
      } catch (err) {
        // Building prompts reads only the view; whatever went wrong costs this cycle its briefs.
        lastError = redactText(firstLine(err), view.policy.redactPatterns);
      }
      return briefs;
    },
  };
}

/**
 * Kinds worth a brief: a suspected bug or a review finding asks for understanding. Mechanical
 * findings (docs drift, a patch) and a leaked key need none; a brief on them would only be noise.
 */
const BRIEFED_KINDS: ReadonlySet<Candidate['kind']> = new Set(['bug_hypothesis', 'review_note']);

/** The strongest candidates the gate lets through, each with its prompt, at most `limit`. */
function chosen(view: RepositoryView, candidates: readonly Candidate[], gate: LlmGate, limit: number): Array<{ source: Candidate; prompt: PromptMessage[] }> {
  const out: Array<{ source: Candidate; prompt: PromptMessage[] }> = [];
  const ordered = candidates
    .map((c, i) => ({ c, i }))
    .sort((a, b) => b.c.strength - a.c.strength || a.i - b.i)
    .map(({ c }) => c);
  for (const source of ordered) {
    if (out.length >= limit) break;
    if (!BRIEFED_KINDS.has(source.kind) || source.detector === 'review.secret_added' || !passesGate(view, source, gate)) continue;
    const prompt = researchBriefPrompt(view, source);
    if (prompt !== undefined) out.push({ source, prompt });
  }
  return out;
}

/** The cheap checks of `non_trivial`: strong enough, and about a file the index holds. */
function passesGate(view: RepositoryView, c: Candidate, gate: LlmGate): boolean {
  if (gate === 'never') return false;
  if (gate === 'always') return true;
  return c.strength >= NON_TRIVIAL_MIN_STRENGTH && c.evidence.some((e) => view.file(e.path) !== undefined);
}

function brief(source: Candidate, text: string, model: string): Candidate {
  const target = source.targets[0] ?? source.evidence[0]?.path ?? 'this code';
  return {
    kind: 'research_brief',
    detector: 'model.research_brief',
    claim: `brief|${claimKey(source)}`,
    title: `Research brief: ${source.title}`,
    summary: summaryOf(text, source),
    whyNow: source.whyNow,
    body: `${text}\n\n_Written by ${model} from the cited lines; the evidence below is the ground truth._`,
    action: `Read before changing ${target}`,
    evidence: source.evidence.map((e) => ({ ...e })),
    strength: source.strength * BRIEF_STRENGTH_FACTOR,
    targets: [...source.targets],
    warnings: [`Written by the model ${model}; check it against the cited lines.`],
  };
}

/** Reasoning models' `<think>` blocks dropped, length capped, redacted again. */
function cleanAnswer(answer: string, view: RepositoryView): string {
  let text = answer.replace(/<think>[\s\S]*?<\/think>/g, '').trim();
  if (text.length > MAX_BRIEF_CHARS) text = `${text.slice(0, MAX_BRIEF_CHARS - 1)}…`;
  return redactText(text, view.policy.redactPatterns);
}

/** The brief's first prose line (not a heading or a list marker), bounded; the title otherwise. */
function summaryOf(text: string, source: Candidate): string {
  const line = text
    .split('\n')
    .map((l) => l.replace(/^\s*(?:[-*>]|\d+\.)\s+/, '').trim())
    .find((l) => l !== '' && !l.startsWith('#') && !l.startsWith('```'));
  if (line === undefined) return `Background for: ${source.title}`;
  return line.length <= MAX_SUMMARY_CHARS ? line : `${line.slice(0, MAX_SUMMARY_CHARS - 1)}…`;
}

function firstLine(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  return (message.split('\n')[0] ?? '').slice(0, 300) || 'the model call failed';
}
