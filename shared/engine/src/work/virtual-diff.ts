/**
 * Building virtual diffs (spec 2.2): a patch in git's unified format over files exactly as indexed,
 * with the snapshot (sha256 and git blob id per target) that freshness and export check.
 */
import { structuredPatch } from 'diff';
import type { RepositoryView } from '../view/repository-view';
import { gitBlobId, sha256Of } from '../view/repository-view';
import type { DiffTarget, VirtualDiffDraft } from './types';

/** Lines of context around each change, as `git diff` uses. */
const CONTEXT_LINES = 3;

/** One file's new text. */
export interface FileEdit {
  path: string;
  /** The whole new content. */
  after: string;
}

/**
 * A virtual diff of `edits` against the indexed files, or a reason it cannot be made: a file not
 * indexed, a file whose indexed text was redacted (the patch could not hold the real bytes, and
 * exports never carry unredacted text), or no change at all.
 */
export function makeVirtualDiff(view: RepositoryView, edits: readonly FileEdit[]): { diff: VirtualDiffDraft } | { refused: string } {
  const targets: DiffTarget[] = [];
  const parts: string[] = [];
  for (const edit of [...edits].sort((a, b) => (a.path < b.path ? -1 : 1))) {
    const file = view.file(edit.path);
    const before = view.text(edit.path);
    if (file === undefined || before === undefined) return { refused: `${edit.path} is not indexed` };
    // The index holds redacted text; only when nothing was redacted is it the file's exact bytes.
    if (sha256Of(before) !== file.sha256) return { refused: `${edit.path} holds redacted text; a patch would not apply` };
    if (edit.after === before) continue;
    const beforeBytes = Buffer.from(before, 'utf8');
    const afterBytes = Buffer.from(edit.after, 'utf8');
    const target: DiffTarget = { path: edit.path, sha256: file.sha256, gitBlob: gitBlobId(beforeBytes) };
    targets.push(target);
    parts.push(formatFilePatch(edit.path, before, edit.after, target.gitBlob, gitBlobId(afterBytes)));
  }
  if (targets.length === 0) return { refused: 'the edits change nothing' };
  return { diff: { targets, patch: parts.join('') } };
}

/** One file's section of a git-style patch. */
function formatFilePatch(path: string, before: string, after: string, oldBlob: string, newBlob: string): string {
  const patch = structuredPatch(`a/${path}`, `b/${path}`, before, after, '', '', { context: CONTEXT_LINES });
  const out = [`diff --git a/${path} b/${path}`, `index ${oldBlob.slice(0, 12)}..${newBlob.slice(0, 12)}`, `--- a/${path}`, `+++ b/${path}`];
  for (const h of patch.hunks) {
    out.push(`@@ -${range(h.oldStart, h.oldLines)} +${range(h.newStart, h.newLines)} @@`);
    out.push(...h.lines);
  }
  return `${out.join('\n')}\n`;
}

/** `start,count` as unified diffs write it (`start` alone when count is 1; `start-1,0` style for empty). */
function range(start: number, lines: number): string {
  if (lines === 1) return String(start);
  return `${lines === 0 ? Math.max(0, start) : start},${lines}`;
}
