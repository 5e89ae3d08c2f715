/**
 * Direct signals that need the index's texts: a prompt's dotted module names resolved to files
 * (`module_named`), the fixed parts of the messages it quotes found verbatim in a file
 * (`text_quoted`: where the error is raised or the output printed), and names and flags it uses that
 * no file defines as a symbol found as quoted literals (`literal_defined`: the definition site of a
 * config key, a CLI option or a dict key, over the places that merely use it). Each is weighted by
 * its rarity: a phrase ten files hold says less than one only one file holds.
 *
 * Candidate files come from the BM25 postings (files holding every one of a phrase's two rarest
 * tokens), so only a few texts are read per query.
 */
import { codeTokens, identifierTokens, normalizeToken, type Bm25Index, type ExtraSignal, type PromptAnalysis, type Signal } from '../ranking';
import type { FileLookup } from './lookup';

/** A phrase or name held by more files than this is not traced (it labels nothing, and reading them costs). */
export const MAX_LITERAL_FILES = 60;
/** Extra phrases or names after the first add this share of their weight. */
const EXTRA_SHARE = 0.25;

/** What tracing needs from the index. */
export interface LiteralSource {
  readonly size: number;
  readonly bm25: Bm25Index;
  readonly lookup: FileLookup;
  /** The (redacted) text of an indexed file, or undefined. */
  text(path: string): string | undefined;
}

/** Like the ranking's rarity: 1 for one file, less the more files share it. */
function rarity(count: number, files: number): number {
  const n = Math.max(1, files);
  const df = Math.max(1, count);
  const idf = (d: number): number => Math.log(1 + (n - d + 0.5) / (d + 0.5));
  return Math.min(1, idf(df) / idf(1));
}

/** Files holding every one of `tokens`' two rarest (by document frequency), or null when too many. */
function filesWithTokens(bm25: Bm25Index, tokens: readonly string[]): string[] | null {
  const known = [...new Set(tokens)].map((t) => ({ t, df: bm25.documentFrequency(t) }));
  if (known.length === 0 || known.some((k) => k.df === 0)) return [];
  known.sort((a, b) => a.df - b.df);
  const [first, second] = known;
  if (first === undefined || first.df > MAX_LITERAL_FILES * 8) return null;
  let files = bm25.documentsWith(first.t);
  if (second !== undefined) {
    const other = new Set(bm25.documentsWith(second.t));
    files = files.filter((f) => other.has(f));
  }
  return files;
}

// A config key, dict key or option name: snake_case, kebab-case, dotted or camelCase.
const CODE_LIKE = /[_.-]|[a-z][A-Z]/;

const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Accumulates per-file entries of one signal: the best match at full weight, others as extras. */
class SignalTally {
  private readonly byFile = new Map<string, Array<{ weight: number; what: string }>>();

  add(path: string, weight: number, what: string): void {
    const list = this.byFile.get(path) ?? [];
    list.push({ weight, what });
    this.byFile.set(path, list);
  }

  entries(signal: Signal, describe: (whats: string[]) => string): Map<string, ExtraSignal> {
    const out = new Map<string, ExtraSignal>();
    for (const [path, list] of this.byFile) {
      list.sort((a, b) => b.weight - a.weight || (a.what < b.what ? -1 : 1));
      const value = list.reduce((total, m, i) => total + (i === 0 ? m.weight : m.weight * EXTRA_SHARE), 0);
      out.set(path, { signal, detail: describe(list.slice(0, 3).map((m) => m.what)), value });
    }
    return out;
  }
}

function moduleSignals(analysis: PromptAnalysis, source: LiteralSource): Map<string, ExtraSignal> {
  const tally = new SignalTally();
  for (const module of analysis.modules) {
    const segments = module.split('/');
    // The longest run of segments that names files wins (`sphinx/ext/autodoc` over `ext/autodoc`).
    let found: { stem: string; paths: string[] } | null = null;
    for (let length = segments.length; length >= 2 && found === null; length--) {
      for (let start = 0; start + length <= segments.length; start++) {
        const stem = segments.slice(start, start + length).join('/');
        const paths = source.lookup.moduleMatches(stem);
        if (paths.length > 0) {
          found = { stem, paths };
          break;
        }
      }
    }
    if (found === null || found.paths.length > MAX_LITERAL_FILES) continue;
    const weight = rarity(found.paths.length, source.size);
    for (const path of found.paths) tally.add(path, weight, found.stem.replace(/\//g, '.'));
  }
  return tally.entries('module_named', (whats) => `prompt names module ${whats.join(', ')}`);
}

function phraseSignals(analysis: PromptAnalysis, source: LiteralSource): Map<string, ExtraSignal> {
  const tally = new SignalTally();
  for (const phrase of analysis.phrases) {
    const files = filesWithTokens(source.bm25, codeTokens(phrase));
    if (files === null || files.length === 0) continue;
    const re = new RegExp(escape(phrase).replace(/ /g, '\\s+'), 'i');
    const holding = files.filter((path) => re.test(source.text(path) ?? ''));
    if (holding.length === 0 || holding.length > MAX_LITERAL_FILES) continue;
    const weight = rarity(holding.length, source.size);
    const shown = phrase.length > 60 ? `${phrase.slice(0, 57)}...` : phrase;
    for (const path of holding) tally.add(path, weight, `"${shown}"`);
  }
  return tally.entries('text_quoted', (whats) => `holds ${whats.join(', ')}`);
}

function literalDefinitionSignals(analysis: PromptAnalysis, source: LiteralSource): Map<string, ExtraSignal> {
  const tally = new SignalTally();
  const names: Array<{ literal: string; token: string | null; shown: string }> = [];
  for (const name of analysis.identifiers) {
    const { whole } = identifierTokens(name);
    // A name some file defines as a symbol is traced by `symbol_defined`; a plain word (`true`,
    // `default`, `windows`) is quoted everywhere and names no key.
    if (whole === null || name.length < 4 || !CODE_LIKE.test(name) || source.lookup.count(whole) > 0) continue;
    names.push({ literal: name, token: whole, shown: name });
  }
  for (const flag of analysis.flags) names.push({ literal: `--${flag}`, token: normalizeToken(flag.split(/[-_]/).sort((a, b) => b.length - a.length)[0] ?? flag), shown: `--${flag}` });
  for (const { literal, token, shown } of names) {
    if (token === null) continue;
    const files = filesWithTokens(source.bm25, [token]);
    if (files === null || files.length === 0) continue;
    const quoted = [`'${literal}'`, `"${literal}"`, `\`${literal}\``];
    const holding = files.filter((path) => {
      const text = source.text(path) ?? '';
      return quoted.some((q) => text.includes(q));
    });
    if (holding.length === 0 || holding.length > MAX_LITERAL_FILES) continue;
    const weight = rarity(holding.length, source.size);
    for (const path of holding) tally.add(path, weight, shown);
  }
  return tally.entries('literal_defined', (whats) => `defines ${whats.join(', ')} as a literal`);
}

/** The three literal signals for a prompt, by path (a file may have several entries); values before weights. */
export function literalSignals(analysis: PromptAnalysis, source: LiteralSource): Map<string, ExtraSignal[]> {
  const out = new Map<string, ExtraSignal[]>();
  for (const signals of [moduleSignals(analysis, source), phraseSignals(analysis, source), literalDefinitionSignals(analysis, source)]) {
    for (const [path, entry] of signals) out.set(path, [...(out.get(path) ?? []), entry]);
  }
  return out;
}
