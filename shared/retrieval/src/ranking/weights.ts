/**
 * Every tunable weight of prompt analysis and ranking, in one place so the benchmark can sweep them.
 */

/** Query-term weights by where the term came from in the prompt. */
export const TERM_WEIGHTS = {
  /** A whole code identifier (`getUserName`, `user_id`) or a part of a dotted name. */
  identifier: 3,
  /** A function named in a traceback frame. */
  frame_function: 3,
  /** An error or exception type (`KeyError`, `NullPointerException`). */
  error_type: 2.5,
  /** A token inside a backtick code fragment. */
  fragment: 2,
  /** A part of a compound identifier (`user` in `getUserName`). */
  identifier_part: 1.5,
  /** A word of an error message (`'id'` in `KeyError: 'id'`). */
  error_message: 1.5,
  /** The stem of a mentioned file name (`user` in `user.py`). */
  path: 1,
  /** A plain prose word. */
  word: 1,
} as const;

/** Where a query term came from. */
export type TermKind = keyof typeof TERM_WEIGHTS;

/** The signals `rankFiles` combines; each appears in a file's rationale when it fired. */
export type Signal =
  | 'path_named'
  | 'path_terms'
  | 'traceback_frame'
  | 'symbol_defined'
  | 'lexical'
  | 'lexical_code'
  | 'title_terms'
  | 'title_path'
  | 'graph_neighbour'
  | 'test_counterpart'
  | 'recently_changed'
  | 'file_size'
  | 'module_named'
  | 'text_quoted'
  | 'literal_defined'
  /** Not a score: says that the file's role (tests, docs, changelog…) scaled its other signals. */
  | 'role_prior'
  /** Not a rankFiles signal: the optional semantic stage fused the file in (semantic/fuse.ts); its weight is the cosine similarity. */
  | 'semantic';

/** Weight of each signal in a file's score. */
export type SignalWeights = Record<Signal, number>;

/** Default signal weights: explicit mentions first, then traces, definitions, words, context. */
export const SIGNAL_WEIGHTS: Readonly<SignalWeights> = {
  /** The prompt names the file: the most explicit hint there is. */
  path_named: 2.4,
  /** Times the file's path-term share (0..1): prompt words that are its folder or file names. */
  path_terms: 0.57,
  /** Times the frame's relevance (1 for the innermost frame; see FRAME_DECAY). */
  traceback_frame: 5.75,
  /** Times the rarest prompt identifier the file defines, plus SYMBOL_EXTRA_SHARE of each further one. */
  symbol_defined: 1.231,
  /** Times BM25 normalized to the best candidate (0..1). */
  lexical: 0.731,
  /** Times BM25 among code files only (their own frequencies), normalized to the best code file. */
  lexical_code: 0.92,
  /** Times BM25 of the prompt's first line (an issue's title) alone, normalized to the best file. */
  title_terms: 1.84,
  /**
   * Times the path-term share of the title's words, prose included (`pdm remove` → `commands/remove.py`):
   * a title names the feature in the user's words, and projects name folders and files after features.
   */
  title_path: 0.46,
  /** Fraction of a strong neighbour's score that flows to the file. */
  graph_neighbour: 0.085,
  /**
   * Fraction of a test's score before its role prior that flows to the file the test is named for
   * (counterparts.ts); shares the one lift a file takes with `graph_neighbour`.
   */
  test_counterpart: 0.3,
  /** Times the candidate's recency (0..1): a tie-breaker, never a reason on its own. */
  recently_changed: 0.55,
  /** Times log size relative to FILE_SIZE_REFERENCE tokens (0..1): bugs live in big files more often; never a reason on its own. */
  file_size: 0.57,
  /** A dotted module name (`dvc.repo.move`) resolves to the file, times its rarity. */
  module_named: 1.6,
  /** The file holds a fixed part of a message the prompt quotes, times its rarity. */
  text_quoted: 0.03,
  /** The file defines a name or flag the prompt uses as a quoted literal (`'autodoc_typehints'`, `"--force"`), times its rarity. */
  literal_defined: 0.059,
  /** Unused: the role prior multiplies (see roles.ts). */
  role_prior: 0,
  /** Unused: semantic hits enter by reciprocal rank fusion after ranking (see semantic/fuse.ts). */
  semantic: 0,
};

/** Each defined identifier after the rarest adds this share of its rarity. */
export const SYMBOL_EXTRA_SHARE = 0.25;
/** At most this many defined identifiers count. */
export const SYMBOL_MAX_MATCHES = 4;
/** A file this many estimated tokens long (or longer) gets the full `file_size` value. */
export const FILE_SIZE_REFERENCE = 20_000;
/** Only files whose own score reaches this pass score to their neighbours. */
export const GRAPH_MIN_SOURCE_SCORE = 0.5;
/**
 * A graph lift that comes from a co-change neighbour counts this fraction of an import neighbour's:
 * changing together is weaker evidence than importing.
 */
export const COCHANGE_FACTOR = 0.5;
