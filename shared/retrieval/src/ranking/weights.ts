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
  | 'graph_neighbour'
  | 'recently_changed';

/** Weight of each signal in a file's score. */
export type SignalWeights = Record<Signal, number>;

/** Default signal weights: explicit mentions first, then traces, definitions, words, context. */
export const SIGNAL_WEIGHTS: Readonly<SignalWeights> = {
  /** The prompt names the file: the most explicit hint there is. */
  path_named: 1.5,
  /** Times the file's path-term share (0..1): prompt words that are its folder or file names. */
  path_terms: 0.6,
  /** Times the frame's relevance (1 for the innermost frame; see FRAME_DECAY). */
  traceback_frame: 1.5,
  /** First prompt identifier the file defines; SYMBOL_EXTRA_WEIGHT per further one. */
  symbol_defined: 0.8,
  /** Times BM25 normalized to the best candidate (0..1). */
  lexical: 0.5,
  /** Fraction of a strong neighbour's score that flows to the file. */
  graph_neighbour: 0.3,
  /** Times the candidate's recency (0..1): a tie-breaker, never a reason on its own. */
  recently_changed: 0.1,
};

/** Added per extra defined identifier after the first. */
export const SYMBOL_EXTRA_WEIGHT = 0.2;
/** At most this many defined identifiers count. */
export const SYMBOL_MAX_MATCHES = 4;
/** Only files whose own score reaches this pass score to their neighbours. */
export const GRAPH_MIN_SOURCE_SCORE = 0.5;
