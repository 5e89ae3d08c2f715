import * as path from 'node:path';
import picomatch from 'picomatch';
import { compileRedactPatterns } from '@sous/protocol';
import type { SousConfig } from '@sous/config';

/**
 * The privacy scope: which repository paths Sous may read. A path is in scope iff it matches one of
 * `allowedPaths` and none of `excludedPatterns`, and it has no `.git` segment (git's own files are never
 * content). Matching is picomatch with `dot: true` (so `src/**` includes `src/.eslintrc.js`); a line
 * break in a name is an ordinary character.
 *
 * Excluded patterns follow gitignore's rule for slashes:
 * - no slash (`*.env`, `credentials*`): matched against every path segment, so it excludes a file with
 *   that name anywhere (`config/prod.env`) and everything inside a folder with that name (`secrets/x.txt`);
 * - a trailing slash only (`build/`): matched against folder segments only;
 * - any other slash (`config/*.json`, `/local.txt`): matched against the whole root-relative path (a
 *   leading slash is dropped), and also excludes everything below a folder it matches.
 * Allowed paths are always matched against the whole root-relative path.
 */
export interface ScopePolicy {
  readonly allowedPaths: readonly string[];
  readonly excludedPatterns: readonly string[];
  /** `privacy.redact_patterns`, compiled; readers replace matches with `[redacted]`. */
  readonly redactPatterns: readonly RegExp[];
  /** Whether Sous may read `relPath` (root-relative, POSIX). */
  inScope(relPath: string): boolean;
  /** Why `relPath` is in or out of scope. */
  decide(relPath: string): ScopeDecision;
}

/** The outcome of checking one path against the scope. */
export type ScopeDecision =
  | { inScope: true }
  | { inScope: false; reason: 'invalid_path' | 'not_allowed' | 'git_internal' }
  | { inScope: false; reason: 'excluded'; pattern: string };

/** The globs a policy is built from (config names in parentheses). */
export interface ScopePolicyOptions {
  /** Globs of files Sous may read (`privacy.allowed_paths`). */
  allowedPaths: readonly string[];
  /** Globs of files Sous never reads, even inside allowed paths (`privacy.excluded_patterns`). */
  excludedPatterns: readonly string[];
  /** Regexes of key-like strings to redact from text read (`privacy.redact_patterns`). Default: none. */
  redactPatterns?: readonly string[];
}

/**
 * `flags: 's'`: picomatch builds `**` on the regex `.`, which without the s (dotAll) flag stops at
 * line breaks, so `src/**` missed a file named `a\nb.py` (never indexed, and `sous doctor` then
 * suggested adding `src/**`), and a slash pattern failed to exclude one.
 */
const PICOMATCH_OPTIONS: picomatch.PicomatchOptions = { dot: true, flags: 's' };

/** The scope of a loaded configuration (`privacy.*`). */
export function scopePolicyFromConfig(config: Pick<SousConfig, 'privacy'>): ScopePolicy {
  return createScopePolicy({
    allowedPaths: config.privacy.allowed_paths,
    excludedPatterns: config.privacy.excluded_patterns,
    redactPatterns: config.privacy.redact_patterns,
  });
}

/** A scope from explicit globs. Globs are assumed valid (config validation checks them at the edge). */
export function createScopePolicy(options: ScopePolicyOptions): ScopePolicy {
  const allowedPaths = [...options.allowedPaths];
  const excludedPatterns = [...options.excludedPatterns];
  const allowed = allowedPaths.length > 0 ? picomatch(allowedPaths, PICOMATCH_OPTIONS) : () => false;
  const excluders = excludedPatterns.map((pattern) => ({ pattern, excludes: compileExcluder(pattern) }));
  const redactPatterns = compileRedactPatterns(options.redactPatterns ?? []);

  const decide = (relPath: string): ScopeDecision => {
    const normal = normalizeRelativePath(relPath);
    if (normal === null) return { inScope: false, reason: 'invalid_path' };
    const segments = normal.split('/');
    if (segments.includes('.git')) return { inScope: false, reason: 'git_internal' };
    const hit = excluders.find((e) => e.excludes(normal, segments));
    if (hit) return { inScope: false, reason: 'excluded', pattern: hit.pattern };
    if (!allowed(normal)) return { inScope: false, reason: 'not_allowed' };
    return { inScope: true };
  };

  return {
    allowedPaths,
    excludedPatterns,
    redactPatterns,
    decide,
    inScope: (relPath) => decide(relPath).inScope,
  };
}

/**
 * `relPath` as a clean root-relative POSIX path (`a/b.ts`), or `null` when it is empty, absolute,
 * contains a NUL byte or leaves the root (`../x`, `a/../../x`).
 */
export function normalizeRelativePath(relPath: string): string | null {
  if (relPath === '' || relPath.includes('\0')) return null;
  if (path.posix.isAbsolute(relPath) || path.win32.isAbsolute(relPath)) return null;
  const normal = path.posix.normalize(relPath).replace(/\/+$/, '');
  if (normal === '.' || normal === '' || normal === '..' || normal.startsWith('../')) return null;
  return normal.startsWith('./') ? normal.slice(2) : normal;
}

type Excluder = (normal: string, segments: readonly string[]) => boolean;

function compileExcluder(rawPattern: string): Excluder {
  const dirOnly = rawPattern.endsWith('/');
  const pattern = rawPattern.replace(/\/+$/, '');
  if (pattern === '') return () => false;
  if (!pattern.includes('/')) {
    const isMatch = picomatch(pattern, PICOMATCH_OPTIONS);
    // Folder segments are all but the last; a dir-only pattern never matches the file name itself.
    return (_normal, segments) => segments.some((s, i) => (!dirOnly || i < segments.length - 1) && isMatch(s));
  }
  const anchored = pattern.replace(/^\/+/, '');
  const isMatch = picomatch(dirOnly ? [`${anchored}/**`] : [anchored, `${anchored}/**`], PICOMATCH_OPTIONS);
  return (normal) => isMatch(normal);
}

/** A fingerprint of what decides which files are read and how they are redacted. */
export function scopeKey(policy: ScopePolicy): string {
  return JSON.stringify([policy.allowedPaths, policy.excludedPatterns, policy.redactPatterns.map((r) => `${r.source}/${r.flags}`)]);
}

/** Whether a stored `scopeKey` was made under the same redaction patterns as `policy`. */
export function sameRedaction(storedKey: string | null, policy: ScopePolicy): boolean {
  if (storedKey === null) return false;
  try {
    const stored = (JSON.parse(storedKey) as unknown[])[2];
    return JSON.stringify(stored) === JSON.stringify(policy.redactPatterns.map((r) => `${r.source}/${r.flags}`));
  } catch {
    return false;
  }
}
