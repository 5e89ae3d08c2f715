/**
 * The index as plain rows, for the store: what the daemon writes after each change and what a
 * restart or a replica (context API, proxy) reads back without touching the repository.
 */
import type { DegradeReason, Language } from '../scope';
import type { SymbolDefinition, SymbolImport } from '../symbols';

/** One indexed file with its content and parse, as stored. */
export interface StoredFile {
  path: string;
  sha256: string;
  language: Language;
  bytes: number;
  /** `size:mtimeMs` when read, or null. */
  fingerprint: string | null;
  /** Redacted text. */
  text: string;
  definitions: SymbolDefinition[];
  imports: SymbolImport[];
  /** The content key (`blobKey`: sha256, language, redaction), the same in memory and in the store. */
  blobKey: string;
  /** Why the content is indexed in a degraded form (content-kind.ts); absent for ordinary files. */
  degraded?: DegradeReason;
}

/** Git signals as the ranking uses them. */
export interface StoredSignals {
  head: string | null;
  /** 0..1 per path. */
  recency: Record<string, number>;
  /** Co-change neighbours per path, most frequent first. */
  coChange: Record<string, string[]>;
}

/** What changed in an index since the last `takeChanges`. */
export interface IndexDelta {
  upserted: StoredFile[];
  removed: string[];
  /** Present when git signals were re-read. */
  signals?: StoredSignals;
}

/** Parses a stored `size:mtimeMs` fingerprint into the mtime, for the mtime column. */
export function fingerprintMtime(fingerprint: string | null): number | null {
  if (fingerprint === null) return null;
  const mtime = Number(fingerprint.slice(fingerprint.indexOf(':') + 1));
  return Number.isFinite(mtime) ? mtime : null;
}
