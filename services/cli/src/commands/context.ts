import type { Command } from 'commander';
import * as fs from 'node:fs';
import { loadConfig, type SousPaths } from '@sous/config';
import { contextAnswerItems, type ContextAnswerItem } from '@sous/http';
import { MAX_BUDGET_TOKENS, MAX_PROMPT_CHARS, MAX_TOP_N } from '@sous/protocol';
import type { ContextResult } from '@sous/retrieval';
import { DaemonRequestError } from '@sous/runtime';
import { CliError } from '../cli-error';
import { clientFor } from '../daemon-control';
import { printJson, printLine } from '../output';
import { withOfflineIndex } from '../offline-index';
import { gitTopLevel } from '../repo-check';
import { run } from '../run';
import { resolveWorkspace } from '../workspace';

/** How long `sous context` waits for a running daemon's first index. */
const INDEX_WAIT_MS = 120_000;

interface ContextOptions { path?: string; prompt?: string; promptFile?: string; topN: string; budget?: string; json?: boolean }

/** The answer, in the shape of `POST /v1/context` (docs/http-api.md), whichever way it was computed. */
interface ContextAnswer {
  items: ContextAnswerItem[];
  stats: Record<string, unknown>;
}

function readPrompt(opts: ContextOptions): string {
  if (opts.prompt !== undefined && opts.promptFile !== undefined) throw new CliError('give either --prompt or --prompt-file, not both', 2);
  let prompt: string;
  if (opts.promptFile !== undefined) {
    try {
      prompt = fs.readFileSync(opts.promptFile, 'utf8');
    } catch {
      throw new CliError(`cannot read --prompt-file ${opts.promptFile}`, 2);
    }
  } else if (opts.prompt !== undefined) prompt = opts.prompt;
  else throw new CliError('a prompt is required: --prompt "…" or --prompt-file <file>', 2);
  if (prompt.trim() === '') throw new CliError('the prompt is empty; describe the task, paste the error or name the code', 2);
  if (prompt.length > MAX_PROMPT_CHARS) throw new CliError(`the prompt has ${prompt.length} characters; the limit is ${MAX_PROMPT_CHARS}: keep the error and the relevant lines`, 2);
  return prompt;
}

function parseInt(raw: string | undefined, name: string, min: number, max: number): number | undefined {
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max) throw new CliError(`${name} must be an integer between ${min} and ${max} (found ${raw})`, 2);
  return n;
}

/** Without a daemon: the workspace's own store and index, brought up to date (offline-index.ts). */
function answerOffline(paths: SousPaths, prompt: string, topN: number, budgetTokens: number | undefined, progress: boolean): Promise<ContextAnswer> {
  return withOfflineIndex(paths, progress, async ({ live, policy }) => {
    const result: ContextResult = live.query(prompt, { topN, ...(budgetTokens !== undefined ? { budgetTokens } : {}) });
    return {
      items: contextAnswerItems(result.items, policy),
      stats: { ...result.stats, answered_by: 'cli', index_state: live.status().state, reads: live.status().reads },
    };
  });
}

/**
 * Why an answer is empty, in one line: a scope that holds no file (the usual trap: code in `lib/`
 * with the default `src/**`, `docs/**`) is not the same as files that do not match the prompt.
 */
function emptyReason(paths: SousPaths, stats: Record<string, unknown>): string {
  let globs = '(unreadable config)';
  try {
    globs = loadConfig(paths.config).privacy.allowed_paths.join(', ');
  } catch {
    // the config error is reported by every other command; the reason still names the count
  }
  const indexed = typeof stats.files_indexed === 'number' ? stats.files_indexed : undefined;
  if (indexed === 0) {
    return `no file is in scope: privacy.allowed_paths (${globs}) matches no file of ${paths.root}; sous doctor --path ${paths.root} suggests the globs where the code is`;
  }
  return `none of the ${indexed ?? 'indexed'} files in scope (${globs}) matches this prompt (an empty answer is valid)`;
}

export function registerContextCommand(program: Command): void {
  program
    .command('context')
    .description('one-shot: rank the repository files most relevant to a prompt (for scripts and evaluation)')
    .option('--path <dir>', 'repository (default: nearest .sous/ upward, else the current directory)')
    .option('--prompt <text>', 'the prompt: a task, a bug report, a traceback')
    .option('--prompt-file <file>', 'read the prompt from a file')
    .option('--top-n <n>', `how many files (1-${MAX_TOP_N})`, '10')
    .option('--budget <tokens>', 'fit the answer into this many tokens')
    .option('--json', 'print the items in rank order as JSON')
    .action(
      run(async (opts: ContextOptions) => {
        const prompt = readPrompt(opts);
        const topN = parseInt(opts.topN, '--top-n', 1, MAX_TOP_N) as number;
        const budgetTokens = parseInt(opts.budget, '--budget', 1, MAX_BUDGET_TOKENS);
        const paths = resolveWorkspace(opts.path);
        // Refuse before creating .sous/ anywhere: Sous indexes git repositories only.
        if (gitTopLevel(paths.root) === undefined) throw new CliError(`${paths.root} is not a git repository; run sous context inside one or pass --path <repository>`);

        // A running daemon holds the store and a fresh index: ask it instead of opening either.
        const client = clientFor(paths, 30_000);
        let answer: ContextAnswer | undefined;
        if (client !== undefined) {
          const request = { prompt, top_n: topN, ...(budgetTokens !== undefined ? { budget_tokens: budgetTokens } : {}) };
          const deadline = Date.now() + INDEX_WAIT_MS;
          for (;;) {
            try {
              const body = await client.post<ContextAnswer>('/v1/context', request);
              answer = { ...body, stats: { ...body.stats, answered_by: 'daemon' } };
              break;
            } catch (err) {
              // A daemon still building its first index answers 503: wait for it rather than fail a script.
              if (err instanceof DaemonRequestError && err.code === 'unavailable' && /not ready/.test(err.message) && Date.now() < deadline) {
                await new Promise((r) => setTimeout(r, 500));
                continue;
              }
              if (err instanceof DaemonRequestError) throw new CliError(err.message);
              throw err;
            }
          }
        }
        answer ??= await answerOffline(paths, prompt, topN, budgetTokens, !opts.json && process.stderr.isTTY === true);

        const empty = answer.items.length === 0 ? emptyReason(paths, answer.stats) : undefined;
        if (opts.json) return printJson({ workspace: paths.root, ...answer, ...(empty !== undefined ? { empty_reason: empty } : {}) });
        if (empty !== undefined) return printLine(`Empty answer: ${empty}.`);
        for (const item of answer.items) {
          printLine(`${item.rank}. ${item.path}:${item.snippet.start_line}-${item.snippet.end_line}  score ${item.score.toFixed(2)}  ~${item.tokens} tokens`);
          printLine(`   ${item.rationale.map((r) => `${r.signal} (${r.detail})`).join('; ')}`);
        }
      }),
    );
}
