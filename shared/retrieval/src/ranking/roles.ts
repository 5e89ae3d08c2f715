/**
 * The role prior: what kind of file a path is (source, tests, fixtures, docs, changelog, vendored,
 * generated, data), and how much a match in it counts when the prompt does not ask for that kind. A
 * bug report's words also fill the changelog that will record the fix, the docs that describe the
 * feature and the tests that exercise it, but the fix lives in the source. Factors are at most 1, so
 * they only lower a score and every upper bound the candidate pre-filter uses stays valid.
 */
import type { PromptAnalysis } from './prompt';

/** A file's role, by its path (and, for `generated`, by what its header says). */
export type FileRole = 'source' | 'test' | 'fixture' | 'docs' | 'changelog' | 'vendored' | 'generated' | 'declarations' | 'data' | 'meta';

interface RoleRule {
  role: Exclude<FileRole, 'source'>;
  /** Multiplies the file's score unless the prompt asks for the role. */
  factor: number;
  test: RegExp;
  /** Prompt words (normalized) that ask for this role. */
  askedFor: RegExp;
}

/**
 * First match wins, so the narrower roles come first (a changelog under docs/ is a changelog; a
 * fixture under tests/ is a fixture). Factors were set on the quality set's tuning repositories
 * (docs/retrieval-ranking.md, "Role prior").
 */
export const ROLE_RULES: readonly RoleRule[] = [
  {
    // The project's own housekeeping: issue templates, CI workflows, contribution and license texts.
    // An issue filed from a template repeats the template's words.
    role: 'meta',
    factor: 0.15,
    test: /(^|\/)\.(github|gitlab|circleci|devcontainer)\/|(^|\/)(code_of_conduct|contributing|security|license|licence|authors|codeowners|funding|support)(\.(md|markdown|rst|txt|adoc))?$/i,
    askedFor: /^(ci|workflow|workflows|github|gitlab|action|actions|template|templates|contributing|license|licence|codeowners|dependabot)$/,
  },
  {
    role: 'changelog',
    factor: 0.15,
    test: /(^|\/)(change[s_-]?log|changes|history|news|release[s_-]?notes?|whatsnew|what[s_-]new)([._-][^/]*)?(\.[a-z]+)?$|(^|\/)(changelog\.d|changes|newsfragments|\.changeset|release[s_-]?notes?)\//i,
    askedFor: /^(changelog|changes|history|news|release|releases)$/,
  },
  {
    role: 'vendored',
    factor: 0.3,
    test: /(^|\/)(vendor|vendored|_vendor|third[_-]party|extern|external|node_modules|bower_components)\//i,
    askedFor: /^(vendor|vendored|third|party|external)$/,
  },
  {
    role: 'generated',
    factor: 0.3,
    test: /\.min\.[cm]?js$|\.bundle\.js$|_pb2(_grpc)?\.pyi?$|\.pb(\.gw)?\.go$|_generated\.[a-z]+$|(^|\/)(generated|gen|__generated__)\/|\.(lock)$|(^|\/)(package-lock\.json|yarn\.lock|pnpm-lock\.yaml|cargo\.lock|go\.sum|poetry\.lock|uv\.lock)$/i,
    askedFor: /^(generated|generate|generator|codegen|lock|lockfile)$/,
  },
  {
    role: 'fixture',
    factor: 0.18,
    test: /(^|\/)(fixtures?|testdata|test[_-]data|test[_-]?files|snapshots?|__snapshots__|cassettes|golden|samples?|examples?|demos?|playground|benchmarks?|benches|roots)\//i,
    askedFor: /^(fixture|fixtures|example|examples|sample|samples|demo|benchmark|bench|snapshot|playground|testdata)$/,
  },
  {
    role: 'test',
    factor: 0.11,
    test: /(^|\/)(tests?|testing|__tests__|__mocks__|specs?|e2e|integration[_-]tests?|unittests?)\/|(^|\/)(test_[^/]*|tests?\.[a-z]+|[^/]*_tests?\.[a-z]+|[^/]*\.(test|spec)\.[a-z]+|[^/]*_spec\.[a-z]+|conftest\.py)$/i,
    // Not the test runners' names (`pytest`, `jest`, `mocha`): reports name the tool they ran, and
    // in those projects' own repositories every report does.
    askedFor: /^(test|tests|testing|spec|specs|unittest|e2e|conftest)$/,
  },
  {
    role: 'declarations',
    factor: 0.13,
    test: /\.d\.[cm]?ts$|\.pyi$/i,
    askedFor: /^(type|types|typing|typings|stub|stubs|declaration|declarations|dts|pyi)$/,
  },
  {
    role: 'docs',
    factor: 0.18,
    test: /\.(md|markdown|mdx|rst|txt|adoc|asciidoc|rdoc|texi|tex|ipynb)$|(^|\/)(docs?|documentation|man|site|website)\//i,
    askedFor: /^(readme|doc|docs|documentation|guide|manual|tutorial|markdown|docstring|typo)$/,
  },
  {
    role: 'data',
    factor: 0.15,
    // Shell completion scripts list every command and flag of a CLI: they match any report about it.
    test: /\.(json|jsonl|csv|tsv|xml|svg|yaml|yml|toml|ini|cfg|conf|properties|lock|sum|snap|po|pot|html?|css|scss)$|(^|\/)(shell[-_])?completions?\//i,
    askedFor: /^(json|yaml|yml|toml|config|configuration|setting|settings|csv|xml|html|css|style|styles|template|templates|completion|completions|zsh|fish)$/,
  },
];

/** The role of a path, and its rule when not source. `generated` says the header marks it generated. */
export function fileRole(path: string, generated = false): { role: FileRole; factor: number; askedFor?: RegExp } {
  for (const rule of ROLE_RULES) if (rule.test.test(path)) return rule;
  if (generated) return ROLE_RULES.find((r) => r.role === 'generated') as RoleRule;
  return { role: 'source', factor: 1 };
}

/**
 * The factor a file's score is multiplied by for this prompt: 1 for source, for a role the prompt
 * asks for, or for a file the prompt names by path; else the role's factor.
 */
export function rolePrior(path: string, analysis: Pick<PromptAnalysis, 'words' | 'titleTerms'>, named: boolean, generated = false): { role: FileRole; factor: number } {
  const r = fileRole(path, generated);
  if (r.role === 'source' || named || r.askedFor === undefined) return { role: r.role, factor: 1 };
  if (asksFor(analysis, r.askedFor)) return { role: r.role, factor: 1 };
  return { role: r.role, factor: r.factor };
}

/**
 * Whether the request names the role. The request is the first line when more lines follow (an
 * issue's title, an agent's instruction above its context): a report's body mentions "test",
 * "example", "config" or "type" in passing far more often than it asks for those files (on the
 * quality set, 66 and 115 of 285 bodies did). A one-line prompt is all request.
 */
function asksFor(analysis: Pick<PromptAnalysis, 'words' | 'titleTerms'>, role: RegExp): boolean {
  const words = analysis.titleTerms.length > 0 ? analysis.titleTerms.map((t) => t.term) : analysis.words;
  return words.some((w) => role.test(w));
}
