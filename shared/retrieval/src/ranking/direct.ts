/**
 * Direct signals: the prompt points at a file by path (`path_named`), by a traceback frame
 * (`traceback_frame`) or by a name the file defines (`symbol_defined`). Each returns the signal's
 * value (about 0..1, before its weight and the role prior) and a detail that says what matched.
 */
import type { TracebackFrame } from './frames';
import { normalizePath, pathBase, pathMatches, type MentionedPath } from './paths';
import type { PromptAnalysis } from './prompt';
import { identifierTokens } from './tokens';
import { SYMBOL_EXTRA_SHARE, SYMBOL_MAX_MATCHES } from './weights';

/** A signal's value and what matched; `rankFiles` turns it into a rationale entry. */
export interface SignalValue {
  value: number;
  detail: string;
}

/**
 * The repository files a prompt path names: among the files `pathMatches` accepts, only those that
 * match the most path segments (`/home/u/task/cmd/task/task.go` names `cmd/task/task.go`, not also
 * `task.go`). A path many files share (`conf.py`) resolves to all of them.
 */
export type PathResolver = (promptPath: string) => readonly string[];

/** Segments two matching paths share from the end. */
function sharedSegments(a: string, b: string): number {
  const x = normalizePath(a).split('/');
  const y = normalizePath(b).split('/');
  let n = 0;
  while (n < x.length && n < y.length && x[x.length - 1 - n] === y[y.length - 1 - n]) n++;
  return n;
}

/** The best matches among `paths` (all of which share the prompt path's last segment). */
export function bestPathMatches(promptPath: string, paths: Iterable<string>): string[] {
  let best = 0;
  let out: string[] = [];
  for (const path of paths) {
    if (!pathMatches(promptPath, path)) continue;
    const n = sharedSegments(promptPath, path);
    if (n > best) {
      best = n;
      out = [path];
    } else if (n === best) out.push(path);
  }
  return out;
}

/** A resolver over a list of paths (a bare `rankFiles` call without an index). */
export function resolverOver(paths: readonly string[]): PathResolver {
  const byBase = new Map<string, string[]>();
  for (const p of paths) {
    const base = pathBase(p);
    byBase.set(base, [...(byBase.get(base) ?? []), p]);
  }
  return (promptPath) => bestPathMatches(promptPath, byBase.get(pathBase(promptPath)) ?? []);
}

/**
 * How much naming a path that `count` files answer to says about one of them: 1 for one file,
 * 1/√count for more (`conf.py` shared by 25 fixtures is worth 0.2 to each).
 */
export function shareOf(count: number): number {
  return 1 / Math.sqrt(Math.max(1, count));
}

/**
 * A bare file name (`setup.py`, `index.js`) counts this share of a path with folders
 * (`src/app/repo.ts`): reports name their own files by bare name as often as the project's.
 */
export const BARE_NAME_SHARE = 0.5;

/** Each prompt path with the files it resolves to, computed once per query. */
export function resolveNamed(analysis: Pick<PromptAnalysis, 'paths'>, resolve: PathResolver): Map<string, { mention: MentionedPath; count: number }> {
  const out = new Map<string, { mention: MentionedPath; count: number }>();
  for (const mention of analysis.paths) {
    const files = resolve(mention.path);
    for (const file of files) {
      const previous = out.get(file);
      if (previous === undefined || files.length < previous.count) out.set(file, { mention, count: files.length });
    }
  }
  return out;
}

export function pathValue(hit: { mention: MentionedPath; count: number } | undefined): SignalValue | null {
  if (hit === undefined) return null;
  const { mention, count } = hit;
  const shown = mention.line === undefined ? mention.path : `${mention.path}:${mention.line}`;
  const bare = !mention.path.replace(/^\.?\//, '').includes('/');
  return { value: shareOf(count) * (bare ? BARE_NAME_SHARE : 1), detail: count > 1 ? `prompt names ${shown} (${count} files match)` : `prompt names ${shown}` };
}

/** Each frame's file resolved; a file keeps its most relevant frame. */
export function resolveFrames(frames: readonly TracebackFrame[], resolve: PathResolver): Map<string, TracebackFrame> {
  const out = new Map<string, TracebackFrame>();
  for (const frame of frames) {
    for (const file of resolve(frame.file)) {
      const previous = out.get(file);
      if (previous === undefined || frame.relevance > previous.relevance) out.set(file, frame);
    }
  }
  return out;
}

export function frameValue(frame: TracebackFrame | undefined): SignalValue | null {
  if (frame === undefined) return null;
  const where = `${frame.file}${frame.line === undefined ? '' : `:${frame.line}`}${frame.function === undefined ? '' : ` in ${frame.function}`}`;
  return { value: frame.relevance, detail: `${frame.language} frame ${where}` };
}

/**
 * Prompt identifiers and frame functions, normalized like a whole identifier token
 * (`identifierTokens(name).whole`), each mapped to its first spelling in the prompt.
 */
export function promptNames(analysis: Pick<PromptAnalysis, 'identifiers' | 'frames'>): Map<string, string> {
  const names = new Map<string, string>();
  const add = (name: string): void => {
    const { whole } = identifierTokens(name);
    if (whole !== null && !names.has(whole)) names.set(whole, name);
  };
  analysis.identifiers.forEach(add);
  for (const frame of analysis.frames) if (frame.function !== undefined) add(frame.function);
  return names;
}

/** Definition counts by normalized name (see `RankOptions.definitions`). */
export interface DefinitionCounts {
  readonly files: number;
  count(name: string): number;
}

/**
 * How telling a name is, 0..1: 1 for a name one file defines, less the more files define it
 * (`parse`, `init`, `get` are defined everywhere): BM25's idf over definitions, relative to the
 * largest possible. A name written as plain lowercase prose (`install`, `update`) counts half: it
 * names a command or a concept as often as the function.
 */
export function nameRarity(name: string, shown: string, counts: DefinitionCounts): number {
  const n = Math.max(1, counts.files);
  const df = Math.max(1, counts.count(name));
  const idf = (d: number): number => Math.log(1 + (n - d + 0.5) / (d + 0.5));
  const rarity = Math.min(1, idf(df) / idf(1));
  return /^[a-z]+$/.test(shown) ? rarity / 2 : rarity;
}

/** The names of `names` a file defines, rarest first: the first counts whole, the others SYMBOL_EXTRA_SHARE. */
export function symbolValue(names: ReadonlyMap<string, string>, definedNames: ReadonlySet<string>, counts: DefinitionCounts): SignalValue | null {
  const matches: Array<{ shown: string; files: number; rarity: number }> = [];
  for (const [whole, shown] of names) {
    if (definedNames.has(whole)) matches.push({ shown, files: counts.count(whole), rarity: nameRarity(whole, shown, counts) });
  }
  if (matches.length === 0) return null;
  matches.sort((a, b) => b.rarity - a.rarity || (a.shown < b.shown ? -1 : 1));
  const top = matches.slice(0, SYMBOL_MAX_MATCHES);
  const value = top.reduce((total, m, i) => total + m.rarity * (i === 0 ? 1 : SYMBOL_EXTRA_SHARE), 0);
  const shown = top.map((m) => (m.files > 1 ? `${m.shown} (${m.files} files define it)` : m.shown));
  return { value, detail: `defines ${shown.join(', ')}` };
}
