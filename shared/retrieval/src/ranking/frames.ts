/**
 * Traceback frame extraction for the stack formats agents paste most: Python, Node, Java (JVM),
 * Go panics and Rust panics/backtraces.
 */

/** The runtime whose stack format a frame was read from. */
export type FrameLanguage = 'python' | 'node' | 'java' | 'go' | 'rust';

/** One frame of a pasted stack trace. */
export interface TracebackFrame {
  /** File as written in the trace (absolute, relative, or a package path derived for Java). */
  file: string;
  /** 1-based line, when the trace gives one. */
  line?: number;
  /** Function or method name (last segment, e.g. `handle` for `main.(*Server).handle`). */
  function?: string;
  language: FrameLanguage;
  /**
   * How close the frame is to the failure, 0..1: 1 for the innermost frame (the last one for
   * Python, the first one for the others), decaying by FRAME_DECAY per step.
   */
  relevance: number;
}

/**
 * Relevance kept per step away from the innermost frame: the frame where it failed says most, its
 * callers less and less (they pass the bad value along as often as they make it).
 */
export const FRAME_DECAY = 0.6;
/** Relevance floor so that the outermost frames still count a little. */
export const FRAME_MIN_RELEVANCE = 0.1;

type RawFrame = Omit<TracebackFrame, 'relevance'>;

const PYTHON_RE = /File "([^"]+)", line (\d+)(?:, in ([\w<>.]+))?/g;
const NODE_RE = /^\s*at (?:(?:async |new )?([^\s()]+) \()?(?:file:\/\/)?([^\s()]+?\.(?:[cm]?[jt]sx?|vue|svelte)):(\d+):\d+\)?\s*$/gm;
const JAVA_RE = /^\s*at ([\w$.]+)\.([\w$<>]+)\(([\w$]+\.(?:java|kt|scala|groovy)):(\d+)\)/gm;
const GO_FILE_RE = /^\s+(\S+\.go):(\d+)(?:\s+\+0x[0-9a-f]+)?\s*$/;
const RUST_FILE_RE = /(?:^|[\s'"(])((?:\.\/)?[\w./-]+\.rs):(\d+)(?::\d+)?/;
const RUST_FN_RE = /^\s*\d+:\s+([\w:<>]+?)(?:::h[0-9a-f]{16})?\s*$/;

function toLine(digits: string | undefined): number | undefined {
  return digits === undefined ? undefined : Number(digits);
}

function lastSegment(name: string, separator: string): string {
  const parts = name.split(separator).filter((part) => part.length > 0);
  return parts[parts.length - 1] ?? name;
}

function pythonFrames(text: string): RawFrame[] {
  return [...text.matchAll(PYTHON_RE)].map((m) => ({
    file: m[1] ?? '', line: toLine(m[2]), function: m[3], language: 'python' as const,
  }));
}

function nodeFrames(text: string): RawFrame[] {
  const frames: RawFrame[] = [];
  for (const m of text.matchAll(NODE_RE)) {
    const file = m[2] ?? '';
    if (file.startsWith('node:') || file.includes('node_modules/')) continue;
    const fn = m[1] === undefined ? undefined : lastSegment(m[1], '.');
    frames.push({ file, line: toLine(m[3]), function: fn === '<anonymous>' ? undefined : fn, language: 'node' });
  }
  return frames;
}

function javaFrames(text: string): RawFrame[] {
  const frames: RawFrame[] = [];
  for (const m of text.matchAll(JAVA_RE)) {
    const className = m[1] ?? '';
    if (/^(java|javax|jdk|sun|kotlin|scala)\./.test(className)) continue;
    // The trace names only `B.java`; the package gives the directory (`com/a/B.java`).
    const packageDirs = className.split('.').slice(0, -1);
    frames.push({
      file: [...packageDirs, m[3] ?? ''].join('/'), line: toLine(m[4]), function: m[2], language: 'java',
    });
  }
  return frames;
}

function goFrames(lines: readonly string[]): RawFrame[] {
  const frames: RawFrame[] = [];
  lines.forEach((line, i) => {
    const m = GO_FILE_RE.exec(line);
    if (m === null) return;
    // The function is on the line above: `main.(*Server).handle(0xc000010000, ...)`.
    const call = (lines[i - 1] ?? '').trim().replace(/\([^()]*\)$/, '');
    const fn = call.length > 0 ? lastSegment(call, '.') : undefined;
    if (fn === 'panic' || call.startsWith('runtime.') || (m[1] ?? '').includes('/go/src/runtime/')) return;
    frames.push({ file: m[1] ?? '', line: toLine(m[2]), function: fn, language: 'go' });
  });
  return frames;
}

function rustFrames(lines: readonly string[]): RawFrame[] {
  const frames: RawFrame[] = [];
  lines.forEach((line, i) => {
    const m = RUST_FILE_RE.exec(line);
    if (m === null) return;
    const file = m[1] ?? '';
    if (file.includes('/rustc/') || file.includes('.cargo/registry')) return;
    // Backtrace entries put the function on the line above: `  2: myapp::parse::read`.
    const fnMatch = RUST_FN_RE.exec(lines[i - 1] ?? '');
    const fn = fnMatch?.[1] === undefined ? undefined : lastSegment(fnMatch[1], '::');
    frames.push({ file, line: toLine(m[2]), function: fn, language: 'rust' });
  });
  return frames;
}

/** Merges frames naming the same file and line (a Rust panic line and its backtrace entry). */
function dedupe(frames: RawFrame[]): RawFrame[] {
  const byKey = new Map<string, RawFrame>();
  for (const frame of frames) {
    const key = `${frame.file.replace(/^\.\//, '')}:${frame.line ?? ''}`;
    const seen = byKey.get(key);
    if (seen === undefined) byKey.set(key, { ...frame });
    else if (seen.function === undefined && frame.function !== undefined) seen.function = frame.function;
  }
  return [...byKey.values()];
}

function withRelevance(frames: RawFrame[], innermostLast: boolean): TracebackFrame[] {
  return dedupe(frames).map((frame, i, unique) => {
    const distance = innermostLast ? unique.length - 1 - i : i;
    const relevance = Math.max(FRAME_MIN_RELEVANCE, FRAME_DECAY ** distance);
    return { ...frame, relevance };
  });
}

/**
 * Frames kept after dropping those that name no repository file (standard library, installed
 * dependencies): relevance is measured again among the kept ones, so the innermost frame in the
 * repository's own code counts as innermost.
 */
export function keepFrames(frames: readonly TracebackFrame[], keep: (frame: TracebackFrame) => boolean): TracebackFrame[] {
  const out: TracebackFrame[] = [];
  for (const language of [...new Set(frames.map((f) => f.language))]) {
    const kept = frames.filter((f) => f.language === language && keep(f));
    const innermostLast = language === 'python';
    kept.forEach((frame, i) => {
      const distance = innermostLast ? kept.length - 1 - i : i;
      out.push({ ...frame, relevance: Math.max(FRAME_MIN_RELEVANCE, FRAME_DECAY ** distance) });
    });
  }
  return out;
}

/**
 * Extracts traceback frames from free text, grouped by language in the order found. Runtime and
 * dependency frames (`node:internal`, `node_modules`, `java.*`, Go runtime, Rust std) are skipped.
 */
export function extractFrames(text: string): TracebackFrame[] {
  const lines = text.split(/\r?\n/);
  return [
    ...withRelevance(pythonFrames(text), true),
    ...withRelevance(nodeFrames(text), false),
    ...withRelevance(javaFrames(text), false),
    ...withRelevance(goFrames(lines), false),
    ...withRelevance(rustFrames(lines), false),
  ];
}
