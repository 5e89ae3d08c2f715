import type { Command } from 'commander';
import * as fs from 'node:fs';
import { loadConfig } from '@sous/config';
import { buildRepositoryIndex, IndexError, ScopeError, scopePolicyFromConfig } from '@sous/retrieval';
import { CliError } from '../cli-error';
import { printJson, printLine } from '../output';
import { run } from '../run';
import { resolveWorkspace } from '../workspace';

/** Largest prompt accepted (characters); a longer one is almost always a pasted file, not a request. */
export const MAX_PROMPT_CHARS = 32_000;
export const MAX_TOP_N = 50;

interface ContextOptions { path?: string; prompt?: string; promptFile?: string; topN: string; budget?: string; json?: boolean }

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
        const budgetTokens = parseInt(opts.budget, '--budget', 1, 1_000_000);
        const paths = resolveWorkspace(opts.path);
        const policy = scopePolicyFromConfig(loadConfig(paths.config));
        const showProgress = !opts.json && process.stderr.isTTY === true;
        let index;
        try {
          index = await buildRepositoryIndex(paths.root, policy, {
            onProgress: showProgress ? (done, total) => process.stderr.write(`\rindexing ${done}/${total} files`) : undefined,
          });
        } catch (err) {
          if (err instanceof ScopeError || err instanceof IndexError) throw new CliError(err.message);
          throw err;
        }
        if (showProgress) process.stderr.write('\n');
        const result = index.query(prompt, { topN, ...(budgetTokens !== undefined ? { budgetTokens } : {}) });
        if (opts.json) return printJson({ workspace: paths.root, ...result });
        if (result.items.length === 0) return printLine('No file in scope matches this prompt (an empty answer is valid).');
        result.items.forEach((item, i) => {
          printLine(`${i + 1}. ${item.path}:${item.snippet.startLine}-${item.snippet.endLine}  score ${item.score.toFixed(2)}  ~${item.tokens} tokens`);
          printLine(`   ${item.rationale.map((r) => `${r.signal} (${r.detail})`).join('; ')}`);
        });
      }),
    );
}
