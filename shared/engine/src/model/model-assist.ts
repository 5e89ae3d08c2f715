/**
 * The model's share of a cycle, for the candidates and files that pass `exploration.llm_gate`:
 * research briefs on the strongest findings, a short rationale attached to other strong cards, the
 * prediction draft's request rewritten from its evidence, and angles on recently changed files that
 * no detector flagged. Scores stay grounded in evidence: a rationale or a rewritten draft never
 * changes its card's strength, a brief is weaker than its finding, and an angle is kept only when
 * its quote is found at the cited line and then scores from a fixed, modest strength. The engine
 * talks to the model through the structural `ChatClient` below; the daemon passes the @sous/backend
 * client in. A model that fails or is missing costs the cycle its model-written parts and nothing
 * else: heuristic text stays where the model wrote none.
 */
import type { LlmGate } from '@sous/config';
import type { ModelAssist, ModelContext, ModelProposal } from '../cycle/run-cycle';
import { withDraftPrompt } from '../detectors/drafts';
import type { RepositoryView } from '../view/repository-view';
import type { Candidate } from '../work/types';
import { angleCandidates } from './angles';
import { checkHeld } from './check-held';
import { cleanBrief, cleanDraft, cleanRationale, errorLine, firstProseLine } from './answers';
import { briefShell, PASS_CAPS, planCalls, type ModelTask, type Pass, type PassCaps } from './plan';
import type { PromptMessage } from './prompts';
import { MODEL_MARK } from './byline';

/** Model calls per cycle when the caller does not say (the sum of the passes' caps): a laptop CPU answers a few per minute. */
export const DEFAULT_MODEL_CALLS_PER_CYCLE = PASS_CAPS.brief + PASS_CAPS.draft + PASS_CAPS.rationale + PASS_CAPS.angle;
/** A brief's strength relative to its source: background reading is never stronger than the finding. */
export const BRIEF_STRENGTH_FACTOR = 0.8;
/** Answer lengths asked for, per pass (the words asked for and some slack). */
const MAX_TOKENS: Record<Pass, number> = { brief: 400, rationale: 200, draft: 300, angle: 400 };

/** What the engine needs of a chat backend (the @sous/backend `ChatClient` satisfies it). */
export interface ChatClient {
  complete(messages: PromptMessage[], options?: { maxTokens?: number; signal?: AbortSignal }): Promise<string>;
}

export interface ModelAssistOptions {
  chat: ChatClient;
  /** `exploration.llm_gate`: `non_trivial` (strong, indexed candidates; small changed files), `always`, `never`. */
  gate: LlmGate;
  /** Model calls per `propose`, shared by every pass. Default `DEFAULT_MODEL_CALLS_PER_CYCLE`. */
  maxCalls?: number;
  /** The model's name, shown on everything it wrote. */
  model: string;
  /** Calls per pass and `propose`. Default `PASS_CAPS` (Deep-Run presets raise them). */
  passCaps?: PassCaps;
}

export interface ModelAssistHandle extends ModelAssist {
  /** The most recent model failure of the latest `propose`, in one line (cleared by the next success); for status. */
  lastError(): string | undefined;
}

/** Files remembered as asked for angles (path → hash); the oldest are forgotten first. */
const MAX_REMEMBERED_FILES = 1_000;

/**
 * A model assist. It remembers which file versions it asked for angles, so that a file with nothing
 * to say does not take the angle call of every later cycle: keep one handle across cycles.
 */
export function createModelAssist(options: ModelAssistOptions): ModelAssistHandle {
  const maxCalls = Math.max(0, Math.floor(options.maxCalls ?? DEFAULT_MODEL_CALLS_PER_CYCLE));
  const asked = new Map<string, string>();
  let lastError: string | undefined;
  return {
    lastError: () => lastError,
    async propose(view, candidates, signal, context?: ModelContext): Promise<ModelProposal> {
      lastError = undefined;
      const revised = [...candidates];
      const added: Candidate[] = [];
      try {
        for (const task of planCalls(view, candidates, options.gate, maxCalls, context, (path, sha) => asked.get(path) === sha, options.passCaps)) {
          if (signal.aborted) break;
          let answer: string;
          try {
            answer = await options.chat.complete(task.prompt, { maxTokens: MAX_TOKENS[task.pass], signal });
          } catch (err) {
            if (signal.aborted) break;
            if (!emptyAnswer(err)) {
              lastError = errorLine(err, view);
              // The backend is probably down or refusing; the next cycle asks again.
              break;
            }
            // The model is up and had nothing to say: an answer like any other.
            answer = '';
          }
          lastError = undefined;
          if (task.pass === 'angle') remember(asked, task.path, task.sha256);
          const empty = apply(task, answer, { view, model: options.model, revised, added });
          if (empty !== undefined) lastError = `the model returned an empty ${empty}`;
        }
      } catch (err) {
        // Building prompts reads only the view; whatever went wrong costs this cycle the rest of its model work.
        lastError = errorLine(err, view);
      }
      return { revised, added };
    },
    async check(view, candidates, signal) {
      const outcome = await checkHeld(view, candidates, { chat: options.chat, model: options.model, signal });
      if (outcome.error !== undefined) lastError = outcome.error;
      return outcome.checks;
    },
  };
}

/** The backend client's "no text in the answer" (`BackendError` code `empty`), told apart structurally. */
function emptyAnswer(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as { code?: unknown }).code === 'empty';
}

function remember(asked: Map<string, string>, path: string, sha256: string): void {
  asked.delete(path);
  asked.set(path, sha256);
  if (asked.size > MAX_REMEMBERED_FILES) asked.delete(asked.keys().next().value as string);
}

interface Outcome {
  view: RepositoryView;
  model: string;
  revised: Candidate[];
  added: Candidate[];
}

/** Puts one answer where it belongs; returns what came back empty, if anything did. */
function apply(task: ModelTask, answer: string, out: Outcome): string | undefined {
  const { view, model } = out;
  if (task.pass === 'angle') {
    // An answer with no grounded angle is a normal answer ("nothing stands out"), not a failure.
    out.added.push(...angleCandidates(view, task.path, answer, task.why, model));
    return undefined;
  }
  const source = out.revised[task.index]!;
  const external = source.skills?.some((s) => s.zone === 'external' && s.guidance !== undefined) === true;
  const result = applyText(task, answer, out, source);
  // The model read a skill kept outside the repository (on loopback only): its words may echo it.
  if (external && result === undefined) markExternal(out, task.index, task.pass === 'brief');
  return result;
}

/** Adds the external-guidance warning to what the model just wrote for `index` (its brief, or the card itself). */
function markExternal(out: Outcome, index: number, brief: boolean): void {
  const warning = 'Written with guidance from a skill kept outside the repository, on this machine; it may paraphrase it.';
  if (brief) {
    const last = out.added[out.added.length - 1];
    if (last !== undefined) last.warnings = [...(last.warnings ?? []), warning];
    return;
  }
  const card = out.revised[index]!;
  out.revised[index] = { ...card, warnings: [...(card.warnings ?? []), warning] };
}

function applyText(task: Exclude<ModelTask, { pass: 'angle' }>, answer: string, out: Outcome, source: Candidate): string | undefined {
  const { view, model } = out;
  if (task.pass === 'brief') {
    const text = cleanBrief(answer, view);
    if (text === '') return 'brief';
    out.added.push(brief(source, text, model));
  } else if (task.pass === 'rationale') {
    const text = cleanRationale(answer, view);
    if (text === '') return 'rationale';
    // Strength, evidence and title stay as the detector made them: the model explains, the evidence decides.
    out.revised[task.index] = { ...source, body: `${source.body}\n\n## Why this matters here\n\n${text}\n\n_Written by ${model} from the cited lines; the evidence is the ground truth._` };
  } else {
    const prompt = cleanDraft(answer, view);
    // An empty answer leaves the heuristic draft as it is.
    if (prompt === '') return 'draft';
    const rewritten = withDraftPrompt(source, prompt, `${MODEL_MARK}${model} from the cited lines; check it before adopting._`);
    out.revised[task.index] = { ...rewritten, warnings: [...(source.warnings ?? []), `Draft prompt written by the model ${model}; read it before adopting.`] };
  }
  return undefined;
}

function brief(source: Candidate, text: string, model: string): Candidate {
  const target = source.targets[0] ?? source.evidence[0]?.path ?? 'this code';
  const { detector, claim, title } = briefShell(source);
  return {
    kind: 'research_brief',
    detector,
    claim,
    title,
    summary: firstProseLine(text) ?? `Background for: ${source.title}`,
    whyNow: source.whyNow,
    body: `${text}\n\n_Written by ${model} from the cited lines; the evidence below is the ground truth._`,
    action: `Read before changing ${target}`,
    evidence: source.evidence.map((e) => ({ ...e })),
    strength: source.strength * BRIEF_STRENGTH_FACTOR,
    targets: [...source.targets],
    warnings: [`Written by the model ${model}; check it against the cited lines.`],
  };
}
