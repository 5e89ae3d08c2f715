/**
 * Reading one candidate file for the index: scope check, refusal fingerprints (so a refused file
 * is not read again until it changes), and content-addressed parsing through the blob cache.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { runGit } from '../scope/git';
import { readScopedFile, type ScopedFile, type ScopePolicy } from '../scope';
import type { RealPaths } from '../scope/real-paths';
import { blobKey, type Blob, type BlobCache } from './blobs';
import type { SkipReason } from './types';

/** A listed file the index does not hold, and how it looked on disk when refused. */
export interface SkippedFile {
  reason: SkipReason;
  /** `size:mtimeMs` when refused, or null when there was nothing to stat (then it is re-checked). */
  fingerprint: string | null;
}

/** Outcome of loading one path. `blob` is acquired: the caller owns one reference. */
export type Loaded =
  | { kind: 'file'; file: ScopedFile; blob: Blob; fingerprint: string | null }
  | { kind: 'skipped'; skipped: SkippedFile }
  /** Content (or refusal) is the same as what the index holds; `fingerprint` when it was re-read (touched, same bytes). */
  | { kind: 'unchanged'; fingerprint?: string };

/** What the index knows about a path before loading it again. */
export interface Previous {
  /** Blob key of the indexed content, if indexed. */
  blobKey?: string;
  /** `size:mtimeMs` of the indexed content when it was read. */
  fingerprint?: string | null;
  skipped?: SkippedFile;
}

/** What loading needs from the index. */
export interface LoadContext {
  root: string;
  policy: ScopePolicy;
  maxFileBytes?: number;
  blobs: BlobCache;
  /** `redactionTag` of the policy: part of every blob key. */
  redaction: string;
  /** Called once per file actually read from disk. */
  onRead(): void;
  /** Resolved paths shared by one pass of reads; absent for single-file updates. */
  realPaths?: RealPaths;
}

/**
 * `size:mtimeMs` of the file (of its target, for a symlink), or null when it cannot be stat'ed. With
 * the pass's `realPaths`, the lstat that resolving the file takes anyway serves (one call less per file).
 */
export async function fingerprint(root: string, relPath: string, realPaths?: RealPaths): Promise<string | null> {
  try {
    const stat = (await realPaths?.file(relPath).catch(() => undefined))?.stat ?? (await fs.promises.stat(path.join(root, ...relPath.split('/'))));
    return `${stat.size}:${stat.mtimeMs}`;
  } catch {
    // Missing or unreadable: nothing to compare, so the path is simply checked again next time.
    return null;
  }
}

/**
 * Loads `relPath`: out-of-scope paths are skipped without touching the disk; a path refused before
 * with the same size and mtime is not read again; otherwise the file is read and, when its content
 * is new to the index, parsed (once per distinct content).
 */
export async function loadFile(ctx: LoadContext, relPath: string, previous: Previous): Promise<Loaded> {
  try {
    return await load(ctx, relPath, previous);
  } finally {
    ctx.realPaths?.forget(relPath);
  }
}

async function load(ctx: LoadContext, relPath: string, previous: Previous): Promise<Loaded> {
  if (!ctx.policy.inScope(relPath)) {
    if (previous.skipped?.reason === 'out_of_scope') return { kind: 'unchanged' };
    return { kind: 'skipped', skipped: { reason: 'out_of_scope', fingerprint: null } };
  }
  const before = await fingerprint(ctx.root, relPath, ctx.realPaths);
  if (previous.skipped !== undefined && previous.skipped.fingerprint !== null && before === previous.skipped.fingerprint) return { kind: 'unchanged' };
  // Size and mtime unchanged since the indexed read: trust it, as git's index does, so a restart
  // or a refresh stats every file but reads only the ones that moved.
  if (previous.blobKey !== undefined && previous.fingerprint != null && before === previous.fingerprint) return { kind: 'unchanged' };
  ctx.onRead();
  let result;
  try {
    result = await readScopedFile(ctx.root, relPath, ctx.policy, {
      ...(ctx.maxFileBytes === undefined ? {} : { maxBytes: ctx.maxFileBytes }),
      ...(ctx.realPaths === undefined ? {} : { realPaths: ctx.realPaths }),
    });
  } catch {
    // One unreadable file (EACCES…) must not fail a whole build; it is retried when it changes.
    return { kind: 'skipped', skipped: { reason: 'unreadable', fingerprint: before } };
  }
  if (!result.ok) {
    const { reason } = result.refusal;
    const print = reason === 'not_found' || reason === 'out_of_scope' ? null : before;
    if (previous.skipped?.reason === reason && previous.skipped.fingerprint === print && previous.blobKey === undefined) return { kind: 'unchanged' };
    return { kind: 'skipped', skipped: { reason, fingerprint: print } };
  }
  const key = blobKey(result.file.sha256, result.file.language, ctx.redaction);
  if (key === previous.blobKey) return { kind: 'unchanged', ...(before === null ? {} : { fingerprint: before }) };
  const blob = await ctx.blobs.acquire(key, result.file.language, result.file.text, result.file.degraded);
  return { kind: 'file', file: result.file, blob, fingerprint: before };
}

/**
 * Whether git lists `relPath` as a candidate (tracked, or untracked and not ignored), so a single-file
 * update never indexes an ignored file such as `node_modules/x.js`.
 */
export async function isCandidate(root: string, relPath: string): Promise<boolean> {
  const out = await runGit(root, ['ls-files', '-z', '--cached', '--others', '--exclude-standard', '--', `:(literal)${relPath}`]);
  return out.split('\0').includes(relPath);
}
