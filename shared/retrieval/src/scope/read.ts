import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { redactText } from '@sous/protocol';
import { decodeText } from './binary';
import { isLfsPointer, textDegradeReason, type DegradeReason } from './content-kind';
import { detectLanguage, type Language } from './language';
import { normalizeRelativePath, type ScopePolicy } from './policy';
import type { RealPaths } from './real-paths';

// The callback form: fs.promises.readFile costs about twice the CPU per small file (a promise per
// open, stat, read and close), and a cold index reads thousands of them.
const readFile = promisify(fs.readFile);

/** Files larger than this are not read (1 MiB): generated or vendored files rarely help as context. */
export const DEFAULT_MAX_FILE_BYTES = 1024 * 1024;

/** Options of `readScopedFile`. */
export interface ReadScopedFileOptions {
  /** Largest file read, in bytes. Default `DEFAULT_MAX_FILE_BYTES` (1 MiB). */
  maxBytes?: number;
  /** Replace matches of the policy's redact patterns in `text` with `[redacted]`. Default `true`. */
  redact?: boolean;
  /** Resolved paths shared by the reads of one pass (see real-paths.ts); default: resolve afresh. */
  realPaths?: RealPaths;
}

/** A file read within scope. */
export interface ScopedFile {
  /** Root-relative POSIX path, as normalised (`./a//b.ts` becomes `a/b.ts`). */
  path: string;
  /** UTF-8 text (BOM dropped), redacted unless `redact: false`. Never log it. */
  text: string;
  /** sha256 (hex) of the bytes on disk, before decoding or redaction: the content hash. */
  sha256: string;
  /** Size on disk in bytes. */
  bytes: number;
  language: Language;
  /** Set when the file is indexed in a degraded form, and why (see content-kind.ts). */
  degraded?: DegradeReason;
}

/** Why a file was not read. Ordinary refusals are values, not exceptions. */
export type ReadRefusalReason =
  | 'invalid_path' // empty, absolute, or with a NUL byte
  | 'outside_root' // `..` leaves the root, or a symlink resolves outside it
  | 'out_of_scope' // not in allowed_paths, excluded, or git-internal (also after resolving symlinks)
  | 'not_found'
  | 'not_a_file' // a folder, socket, submodule...
  | 'too_large'
  | 'binary'
  | 'lfs_pointer'; // a Git LFS pointer: the content is not in the repository

/** A refusal: which path, why, and a one-line message that never quotes file contents. */
export interface ReadRefusal {
  path: string;
  reason: ReadRefusalReason;
  message: string;
}

/** What `readScopedFile` returns. */
export type ScopedReadResult = { ok: true; file: ScopedFile } | { ok: false; refusal: ReadRefusal };

/**
 * Reads one repository file if the scope allows it: `relPath` must stay inside `root` (also after
 * resolving symlinks with realpath), be in scope (checked on the requested path and on the resolved
 * one, so a symlink cannot reach an excluded file), be a regular file no larger than `maxBytes`, and
 * be text (see `binary.ts`). Opens read-only; writes nothing. Throws only on unexpected I/O errors
 * (for example EACCES); every ordinary refusal is returned as `{ ok: false, refusal }`.
 */
export async function readScopedFile(
  root: string,
  relPath: string,
  policy: ScopePolicy,
  options: ReadScopedFileOptions = {},
): Promise<ScopedReadResult> {
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_FILE_BYTES;
  const refuse = (p: string, reason: ReadRefusalReason, message: string): ScopedReadResult => ({
    ok: false,
    refusal: { path: p, reason, message },
  });

  if (relPath === '' || relPath.includes('\0') || path.posix.isAbsolute(relPath) || path.win32.isAbsolute(relPath)) {
    return refuse(relPath, 'invalid_path', `${JSON.stringify(relPath)} is not a repository-relative path; pass a path like src/index.ts`);
  }
  const normal = normalizeRelativePath(relPath);
  if (normal === null) return refuse(relPath, 'outside_root', `${relPath} leaves the repository root; only files inside it can be read`);
  if (!policy.inScope(normal)) return refuse(normal, 'out_of_scope', outOfScopeMessage(normal));

  let realRoot: string;
  let realFile: string;
  let known: fs.Stats | undefined;
  try {
    if (options.realPaths !== undefined) {
      realRoot = await options.realPaths.resolvedRoot();
      ({ real: realFile, stat: known } = await options.realPaths.file(normal));
    } else {
      realRoot = await fs.promises.realpath(root);
      realFile = await fs.promises.realpath(path.join(realRoot, ...normal.split('/')));
    }
  } catch (err) {
    if (isNotFound(err)) return refuse(normal, 'not_found', `${normal} does not exist (a dangling symlink counts as missing)`);
    throw err;
  }
  const resolved = path.relative(realRoot, realFile);
  if (resolved === '') return refuse(normal, 'not_a_file', `${normal} resolves to the repository root, not a file`);
  if (resolved.startsWith('..') || path.isAbsolute(resolved)) {
    return refuse(normal, 'outside_root', `${normal} resolves outside the repository root (symlink); it is not read`);
  }
  const resolvedPosix = resolved.split(path.sep).join('/');
  if (resolvedPosix !== normal && !policy.inScope(resolvedPosix)) {
    return refuse(normal, 'out_of_scope', `${normal} is a symlink to ${resolvedPosix}, which is outside the privacy scope`);
  }

  const stat = known ?? (await fs.promises.stat(realFile));
  if (!stat.isFile()) return refuse(normal, 'not_a_file', `${normal} is not a regular file`);
  if (stat.size > maxBytes) return refuse(normal, 'too_large', tooLargeMessage(normal, stat.size, maxBytes));

  const buffer = await readFile(realFile, { flag: 'r' });
  // The file may have grown between stat and read.
  if (buffer.length > maxBytes) return refuse(normal, 'too_large', tooLargeMessage(normal, buffer.length, maxBytes));
  const decoded = decodeText(buffer);
  if (decoded.binary) return refuse(normal, 'binary', `${normal} looks binary (NUL byte or mostly invalid UTF-8); it is not read`);
  if (isLfsPointer(decoded.text)) return refuse(normal, 'lfs_pointer', `${normal} is a Git LFS pointer; its content is not in the repository`);
  const degraded = decoded.degraded ?? textDegradeReason(decoded.text);

  const redact = options.redact ?? true;
  const text = redact && policy.redactPatterns.length > 0 ? redactText(decoded.text, policy.redactPatterns) : decoded.text;
  const firstLine = decoded.text.slice(0, 256).split('\n', 1)[0];
  return {
    ok: true,
    file: {
      path: normal,
      text,
      sha256: createHash('sha256').update(buffer).digest('hex'),
      bytes: buffer.length,
      language: detectLanguage(normal, firstLine),
      ...(degraded === undefined ? {} : { degraded }),
    },
  };
}

function outOfScopeMessage(relPath: string): string {
  return `${relPath} is outside the privacy scope (privacy.allowed_paths / privacy.excluded_patterns); it is not read`;
}

function tooLargeMessage(relPath: string, size: number, maxBytes: number): string {
  return `${relPath} is ${size} bytes, over the ${maxBytes}-byte limit; it is not read`;
}

function isNotFound(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  return code === 'ENOENT' || code === 'ENOTDIR' || code === 'ELOOP';
}
