/**
 * The one `git log` format the engine reads, and its parser: a record separator before each commit,
 * then sha, committer time and subject; with `-z`, the names (or name-status fields) NUL-separated.
 */
import type { CommitRef } from './git-history';

export const RECORD = '\x1e';
export const FIELD = '\x1f';
export const LOG_FORMAT = `${RECORD}%H${FIELD}%ct${FIELD}%s`;

/** `git log --format=<LOG_FORMAT> -z` with names: one entry per commit, its names (or name-status fields). */
export function parseLog(text: string): Array<{ ref: CommitRef; files: string[] }> {
  const out: Array<{ ref: CommitRef; files: string[] }> = [];
  for (const record of text.split(RECORD)) {
    if (record.trim() === '') continue;
    const [header = '', ...rest] = record.split('\0');
    // With -z the first file name follows the header after a newline.
    const [meta = '', firstFile] = header.split('\n');
    const [sha = '', ct = '0', subject = ''] = meta.split(FIELD);
    const files = [...(firstFile ? [firstFile] : []), ...rest].map((f) => f.replace(/^\n/, '')).filter((f) => f !== '');
    out.push({ ref: { sha, time: Number(ct) * 1000, subject }, files });
  }
  return out;
}
