/**
 * The repository index: every in-scope file's symbols, the file graph, git signals and a BM25
 * index, in memory and content-addressed. Built once, then kept current file by file.
 */
import { estimateTokens, Bm25Index } from '../ranking';
import { CODE_LANGUAGES, gitSignals, headCommit, listCandidateFiles, normalizeRelativePath, type DegradeReason, type ScopePolicy } from '../scope';
import { BlobCache, redactionTag, unpackText, type Blob } from './blobs';
import { RealPaths } from '../scope/real-paths';
import { IndexError } from './errors';
import { FileGraph } from './graph';
import { isCandidate, loadFile, type LoadContext, type Loaded, type SkippedFile } from './load';
import { DEFAULT_READ_CONCURRENCY, mapLimit } from './pool';
import { symbolParserPool } from '../symbols/parser-pool';
import { PathSet } from '../symbols/resolve';
import { FileLookup } from './lookup';
import { runQuery } from './query';
import { coChangeNeighbours, recencyByRank } from './signals';
import type { IndexDelta, StoredFile, StoredSignals } from './stored';
import type { BuildIndexOptions, ContextResult, IndexedFileRecord, IndexedFileView, IndexReader, IndexStats, QueryOptions, RefreshResult, SkipReason } from './types';

/** An indexed file: its record (without imports, which live in the graph), its content and how it looked on disk. */
interface Entry {
  record: Omit<IndexedFileRecord, 'imports'>;
  blob: Blob;
  /** `size:mtimeMs` when read; null when unknown (then the next refresh re-reads it). */
  fingerprint: string | null;
}

/**
 * A sync that parsed at least this many files (a first build, a checkout) ends the parse workers
 * when it is done; a few saves leave them for the next save.
 */
export const RELEASE_WORKERS_AFTER_PARSES = 256;

/** What one load did to a path in the index. */
export type FileChange = 'added' | 'changed' | 'removed' | 'unchanged';

/** The BM25 document of a file: path and defined names count as words too. */
function documentText(path: string, blob: Blob, text: string): string {
  return `${path}\n${blob.symbols.definitions.map((d) => d.name).join(' ')}\n${text}`;
}

/**
 * An in-memory index of one repository under one privacy scope. Create it with
 * `buildRepositoryIndex`. Mutations (`updateFile`, `removeFile`, `refresh`) run one at a time;
 * `query` and `snapshot` see the state between them.
 */
export class RepositoryIndex implements IndexReader {
  private readonly entries = new Map<string, Entry>();
  /** Mirror of the indexed paths, as `resolveImport` wants it. */
  private readonly known = new PathSet();
  private readonly skipped = new Map<string, SkippedFile>();
  private readonly bm25 = new Bm25Index();
  private readonly graph = new FileGraph();
  /** Definition names and base names for picking a query's candidates; kept by `apply`/`dropPath`. */
  private readonly lookup = new FileLookup();
  private readonly blobs = new BlobCache();
  private recency = new Map<string, number>();
  private signalsHead: string | null = null;
  private signalsRead = false;
  private reads = 0;
  private queue: Promise<unknown> = Promise.resolve();
  /** Paths added, changed or removed since the last `takeChanges`. */
  private readonly dirty = new Set<string>();
  private signalsDirty = false;
  private readonly load: LoadContext;
  private readonly concurrency: number;

  /** Use `buildRepositoryIndex`. */
  constructor(readonly root: string, readonly policy: ScopePolicy, options: BuildIndexOptions = {}) {
    this.concurrency = options.concurrency ?? DEFAULT_READ_CONCURRENCY;
    this.load = {
      root,
      policy,
      ...(options.maxFileBytes === undefined ? {} : { maxFileBytes: options.maxFileBytes }),
      blobs: this.blobs,
      redaction: redactionTag(policy.redactPatterns),
      onRead: () => {
        this.reads++;
      },
    };
  }

  /** The indexed paths, in no particular order. */
  paths(): string[] {
    return [...this.entries.keys()];
  }

  /** Whether `path` is indexed. */
  has(path: string): boolean {
    return this.entries.has(path);
  }

  /** HEAD when git signals were last read. */
  head(): string | null {
    return this.signalsHead;
  }

  file(path: string): IndexedFileView | undefined {
    const entry = this.entries.get(path);
    if (entry === undefined) return undefined;
    const { record } = entry;
    return { path, sha256: record.sha256, language: record.language, bytes: record.bytes, definitions: record.definitions, imports: this.graph.importsOf(path) };
  }

  text(path: string): string | undefined {
    const entry = this.entries.get(path);
    return entry === undefined ? undefined : unpackText(entry.blob.content);
  }

  importersOf(path: string): string[] {
    return this.graph.importersOf(path);
  }

  coChangedWith(path: string): readonly string[] {
    return this.graph.coChangedWith(path);
  }

  /** Number of indexed files. */
  get size(): number {
    return this.entries.size;
  }

  /** Ranks indexed files for a prompt; see `runQuery`. Throws `IndexError` (`invalid_query`) for a bad topN or budget. */
  query(prompt: string, options: QueryOptions = {}): ContextResult {
    // Files are built only when the prompt reaches them (see `rankReachable`), not all per query.
    const file = (path: string) => {
      const entry = this.entries.get(path);
      if (entry === undefined) return undefined;
      const { blob } = entry;
      // Ranking never reads the text; only the returned files' snippets do, so only they are inflated.
      return {
        path,
        get text() {
          return unpackText(blob.content);
        },
        definedNames: this.lookup.definedNames(path),
        recency: this.recency.get(path) ?? 0,
        tokens: entry.record.tokens,
        generated: blob.degraded === 'generated' || blob.degraded === 'minified',
      };
    };
    return runQuery(prompt, {
      size: this.entries.size,
      bm25: this.bm25,
      lookup: this.lookup,
      file,
      recency: (path) => this.recency.get(path) ?? 0,
      tokens: (path) => this.entries.get(path)?.record.tokens ?? 0,
      importLinks: (path) => this.graph.importLinks(path),
      coChangeLinks: (path) => this.graph.coChangeLinks(path),
    }, options);
  }

  /**
   * Re-reads one file. An unchanged content is not parsed again; a deleted, git-ignored or
   * now-refused file is removed. Throws `IndexError` (`invalid_path`) for a path outside the root.
   */
  updateFile(relPath: string): Promise<FileChange> {
    return this.exclusive(async () => {
      const path = this.normalize(relPath);
      if (!(await isCandidate(this.root, path))) {
        this.skipped.delete(path);
        return this.dropPath(path);
      }
      const change = this.apply(path, await loadFile(this.load, path, this.previous(path)));
      if (change === 'added') this.graph.retryUnresolved(this.known, new Set([path]));
      return change;
    });
  }

  /** Removes one file from the index (BM25, graph, maps); false when it was not indexed. */
  removeFile(relPath: string): Promise<boolean> {
    return this.exclusive(async () => this.dropPath(this.normalize(relPath)) === 'removed');
  }

  /**
   * Lists the repository again and applies only what changed (by sha256); git signals are re-read
   * when HEAD moved. `onProgress(done, total)` is called after each listed file.
   */
  refresh(onProgress?: (done: number, total: number) => void): Promise<RefreshResult> {
    return this.exclusive(() => this.sync(onProgress));
  }

  /** Plain serialisable records, one per indexed file, sorted by path. */
  snapshot(): IndexedFileRecord[] {
    return [...this.entries.values()]
      .map((e) => ({ ...e.record, definitions: e.record.definitions.map((d) => ({ ...d })), imports: this.graph.importsOf(e.record.path) }))
      .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  }

  /**
   * What changed since the previous call (or since creation): files with their content and parse,
   * removed paths, and the git signals when they were re-read. The daemon writes this to the store.
   */
  takeChanges(): IndexDelta {
    const upserted: StoredFile[] = [];
    const removed: string[] = [];
    for (const path of this.dirty) {
      const entry = this.entries.get(path);
      if (entry === undefined) removed.push(path);
      else upserted.push(this.stored(path, entry));
    }
    this.dirty.clear();
    const delta: IndexDelta = { upserted, removed };
    if (this.signalsDirty) delta.signals = this.signalsNow();
    this.signalsDirty = false;
    return delta;
  }

  /** The git signals as stored. */
  private signalsNow(): StoredSignals {
    return { head: this.signalsHead, recency: Object.fromEntries(this.recency), coChange: Object.fromEntries(this.graph.coChangeEntries()) };
  }

  /**
   * Applies files, removals and signals read back from the store, without reading the repository
   * or parsing: a daemon restart (followed by `refresh`, which then reads only what moved) and the
   * replicas the context API and proxy query. Applied rows are not reported by `takeChanges`.
   */
  applyStored(delta: IndexDelta): Promise<void> {
    return this.exclusive(async () => {
      for (const path of delta.removed) this.dropPath(path);
      const touched = new Set<string>();
      for (const file of delta.upserted) {
        if (this.entries.get(file.path)?.blob.key === file.blobKey) continue;
        const { text } = file;
        const blob = await this.blobs.adopt(file.blobKey, text, { definitions: file.definitions, references: [], imports: file.imports, parser: 'regex' }, file.degraded);
        this.apply(file.path, { kind: 'file', file: { path: file.path, sha256: file.sha256, language: file.language, bytes: file.bytes, text }, blob, fingerprint: file.fingerprint }, false);
        touched.add(file.path);
      }
      for (const path of touched) this.resolveImports(path);
      if (touched.size > 0) this.graph.retryUnresolved(this.known, touched);
      if (delta.signals !== undefined) this.setSignals(delta.signals);
      this.dirty.clear();
      this.signalsDirty = false;
    });
  }

  private stored(path: string, entry: Entry): StoredFile {
    const { record, blob } = entry;
    return {
      path,
      blobKey: blob.key,
      sha256: record.sha256,
      language: record.language,
      bytes: record.bytes,
      fingerprint: entry.fingerprint,
      // Inflated when the writer writes this file's chunk, not for a whole build at once.
      get text() {
        return unpackText(blob.content);
      },
      definitions: blob.symbols.definitions,
      imports: blob.symbols.imports,
      ...(blob.degraded === undefined ? {} : { degraded: blob.degraded }),
    };
  }

  /** Counters: files, cached contents, parses, reads, skipped files by reason, HEAD. */
  stats(): IndexStats {
    const skipped: Partial<Record<SkipReason, number>> = {};
    for (const s of this.skipped.values()) skipped[s.reason] = (skipped[s.reason] ?? 0) + 1;
    const degraded: Partial<Record<DegradeReason, number>> = {};
    for (const e of this.entries.values()) if (e.blob.degraded !== undefined) degraded[e.blob.degraded] = (degraded[e.blob.degraded] ?? 0) + 1;
    return { files_indexed: this.entries.size, blobs: this.blobs.size, parses: this.blobs.parses, reads: this.reads, skipped, degraded, head: this.signalsHead };
  }

  /** Initial build and `refresh`: list, load changed paths with bounded concurrency, apply. */
  private async sync(onProgress?: (done: number, total: number) => void): Promise<RefreshResult> {
    const listed = await listCandidateFiles(this.root);
    const listedSet = new Set(listed);
    const result: RefreshResult = { added: 0, changed: 0, removed: 0, unchanged: 0 };
    for (const path of [...this.entries.keys()]) {
      if (listedSet.has(path)) continue;
      this.dropPath(path);
      result.removed++;
    }
    for (const path of [...this.skipped.keys()]) if (!listedSet.has(path)) this.skipped.delete(path);

    const added: string[] = [];
    const changed: string[] = [];
    // Files are applied in listing order as soon as their turn comes, not after the whole listing:
    // their raw texts do not pile up, and BM25 work overlaps the parsing on the workers.
    const loaded = new Map<number, Loaded>();
    let next = 0;
    const applyInOrder = (): void => {
      for (let outcome = loaded.get(next); outcome !== undefined; outcome = loaded.get(next)) {
        loaded.delete(next);
        const path = listed[next++] as string;
        const change = this.apply(path, outcome, false);
        if (change === 'added') added.push(path);
        if (change === 'changed') changed.push(path);
        // A refused file never indexed is neither added nor unchanged content; count only indexed files.
        if (change !== 'unchanged' || this.entries.has(path)) result[change]++;
      }
    };
    const parsesBefore = this.blobs.parses;
    let done = 0;
    // Folders are resolved once for the whole pass (scope/real-paths.ts).
    const load: LoadContext = { ...this.load, realPaths: new RealPaths(this.root) };
    try {
      await mapLimit(listed, this.concurrency, async (path, i) => {
        loaded.set(i, await loadFile(load, path, this.previous(path)));
        onProgress?.(++done, listed.length);
        applyInOrder();
      });
    } finally {
      // Resolved after the whole batch is applied, so imports between new files resolve both ways.
      for (const path of [...added, ...changed]) this.resolveImports(path);
      if (added.length > 0) this.graph.retryUnresolved(this.known, new Set([...added, ...changed]));
    }
    // A large batch is over: its parse workers (and their WebAssembly memory) go now, not when idle.
    if (this.blobs.parses - parsesBefore >= RELEASE_WORKERS_AFTER_PARSES) void symbolParserPool().release();
    await this.readSignals();
    return result;
  }

  /** Re-reads git signals when HEAD moved (or on first call). */
  private async readSignals(): Promise<void> {
    const head = await headCommit(this.root);
    if (this.signalsRead && head === this.signalsHead) return;
    this.signalsRead = true;
    const signals = await gitSignals(this.root);
    this.signalsHead = signals.head;
    this.recency = recencyByRank(signals);
    this.graph.setCoChange(coChangeNeighbours(signals));
    this.signalsDirty = true;
  }

  /** Sets git signals read elsewhere (the store); no git call. */
  private setSignals(signals: StoredSignals): void {
    this.signalsRead = true;
    this.signalsHead = signals.head;
    this.recency = new Map(Object.entries(signals.recency));
    this.graph.setCoChange(new Map(Object.entries(signals.coChange)));
  }

  private apply(path: string, loaded: Loaded, resolve = true): FileChange {
    if (loaded.kind === 'unchanged') {
      const entry = this.entries.get(path);
      // Touched but the same bytes: remember the new mtime (stored too), so it is not re-read again.
      if (entry !== undefined && loaded.fingerprint !== undefined && entry.fingerprint !== loaded.fingerprint) {
        entry.fingerprint = loaded.fingerprint;
        this.dirty.add(path);
      }
      return 'unchanged';
    }
    if (loaded.kind === 'skipped') {
      const change = this.dropPath(path);
      this.skipped.set(path, loaded.skipped);
      return change;
    }
    const { file, blob } = loaded;
    const old = this.entries.get(path);
    if (old !== undefined) this.blobs.release(old.blob.key);
    this.skipped.delete(path);
    // `file.text` is the blob's content unpacked (same key, same bytes, same redaction).
    const record = { path, sha256: file.sha256, language: file.language, bytes: file.bytes, tokens: estimateTokens(file.text), definitions: blob.symbols.definitions };
    this.entries.set(path, { record, blob, fingerprint: loaded.fingerprint });
    this.lookup.set(path, record.definitions);
    this.dirty.add(path);
    this.known.add(path);
    this.bm25.add(path, documentText(path, blob, file.text), { code: CODE_LANGUAGES.has(file.language) });
    if (resolve) this.resolveImports(path);
    return old === undefined ? 'added' : 'changed';
  }

  private resolveImports(path: string): void {
    const entry = this.entries.get(path);
    if (entry === undefined) return;
    this.graph.setFile(path, entry.record.language, entry.blob.symbols.imports.map((i) => i.source), this.known);
  }

  /** Removes an indexed path everywhere; 'unchanged' when it was not indexed. */
  private dropPath(path: string): FileChange {
    const entry = this.entries.get(path);
    if (entry === undefined) return 'unchanged';
    this.entries.delete(path);
    this.lookup.remove(path);
    this.dirty.add(path);
    this.known.delete(path);
    this.bm25.remove(path);
    this.blobs.release(entry.blob.key);
    this.graph.removeFile(path, this.known);
    return 'removed';
  }

  private previous(path: string): { blobKey?: string; skipped?: SkippedFile } {
    const entry = this.entries.get(path);
    const skipped = this.skipped.get(path);
    return { ...(entry === undefined ? {} : { blobKey: entry.blob.key, fingerprint: entry.fingerprint }), ...(skipped === undefined ? {} : { skipped }) };
  }

  private normalize(relPath: string): string {
    const path = normalizeRelativePath(relPath);
    if (path === null || path === '.' || path.startsWith('../')) {
      throw new IndexError('invalid_path', `${JSON.stringify(relPath)} is not a path inside the repository; pass a repository-relative path like src/index.ts`);
    }
    return path;
  }

  /** Runs mutations one at a time, in call order; a failed one does not block the next. */
  private exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.queue.then(fn, fn);
    this.queue = run.catch(() => undefined);
    return run;
  }
}

/**
 * Builds the index of `root` under `policy`: lists candidate files, reads in-scope ones (8 at a
 * time by default), parses each distinct content once, resolves imports into the file graph, reads
 * git signals and fills BM25. Throws `ScopeError` when `root` is not a git repository.
 */
export async function buildRepositoryIndex(root: string, policy: ScopePolicy, options: BuildIndexOptions = {}): Promise<RepositoryIndex> {
  const index = new RepositoryIndex(root, policy, options);
  await index.refresh(options.onProgress);
  return index;
}
