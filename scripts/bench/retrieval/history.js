'use strict';
// The commit history of the corpus: packages imported in batches, then groups of related files
// (same folder) edited together several times, so recency, churn and co-change signals exist.
// Edits are real code: a file edited c times is imported without the last part of its lines, and
// each edit restores the next slice, so the final tree is exactly the package sources.

const DAY_MS = 24 * 3600 * 1000;
/** First commit date; fixed so the corpus (and its cache key) is the same everywhere. */
const HISTORY_START = Date.UTC(2024, 0, 8, 9, 0, 0);
const CODE_FILE = /\.(js|ts|mjs|cjs)$/;
/** A file edited later needs enough lines to give each edit a non-empty slice. */
const MIN_EDIT_LINES = 30;
/** Share of the lines present at import for a file edited later. */
const IMPORTED_SHARE = 0.6;
const EDIT_GROUPS = 32;
const HOT_UNITS = 10;

/** The top folder of a corpus path (`src/<package>` or `src/@scope/<package>`). */
function unitOf(dest) {
  const parts = dest.split('/');
  return parts[1].startsWith('@') ? parts.slice(0, 3).join('/') : parts.slice(0, 2).join('/');
}

/**
 * Plans the history of `entries` (`{ dest, lines }`): `imports` (lists of units, one per commit),
 * `edits` (lists of paths, one per commit) and `edited` (path -> edit count).
 */
function planHistory(entries, rng) {
  const units = [...new Set(entries.map((e) => unitOf(e.dest)))];
  const batchCount = Math.max(20, Math.min(40, Math.ceil(units.length / 5)));
  const shuffled = rng.shuffle(units);
  const imports = Array.from({ length: Math.min(batchCount, shuffled.length) }, () => []);
  shuffled.forEach((u, i) => imports[i % imports.length].push(u));

  // Folders with at least two editable code files, by unit.
  const folders = new Map();
  for (const e of entries) {
    if (!CODE_FILE.test(e.dest) || e.lines < MIN_EDIT_LINES) continue;
    const folder = e.dest.slice(0, e.dest.lastIndexOf('/'));
    const list = folders.get(folder) ?? [];
    list.push(e.dest);
    folders.set(folder, list);
  }
  const byUnit = new Map();
  for (const [folder, files] of folders) {
    if (files.length < 2) continue;
    const unit = unitOf(folder + '/x');
    byUnit.set(unit, [...(byUnit.get(unit) ?? []), files]);
  }
  // Like real repositories, a few hot packages get most of the edits.
  const hot = rng.shuffle([...byUnit.keys()].sort()).slice(0, HOT_UNITS);
  const slots = [];
  for (let g = 0; g < EDIT_GROUPS && hot.length > 0; g++) {
    const files = rng.shuffle(rng.pick(byUnit.get(rng.pick(hot)))).slice(0, rng.int(2, 4)).sort();
    const repeats = rng.int(2, 4);
    for (let r = 0; r < repeats; r++) slots.push(files);
  }
  const edits = rng.shuffle(slots);
  const edited = new Map();
  for (const files of edits) for (const f of files) edited.set(f, (edited.get(f) ?? 0) + 1);
  return { imports, edits, edited };
}

/**
 * The content of a file after `step` of its `count` edits (0 = as imported); `count` 0 means the
 * file is never edited and is imported whole.
 */
function contentAt(text, count, step) {
  if (count === 0 || step >= count) return text;
  const lines = text.split(/(?<=\n)/);
  const first = Math.floor(lines.length * IMPORTED_SHARE);
  const cut = first + Math.round(((lines.length - first) * step) / count);
  return lines.slice(0, cut).join('');
}

/** Author/committer dates: imports every ~1.5 days, then one edit every 1-3 days (UTC, office hours). */
function commitDates(importCount, editCount, rng) {
  const dates = [];
  let t = HISTORY_START;
  for (let i = 0; i < importCount; i++) {
    dates.push(new Date(t + rng.int(0, 8) * 3600 * 1000));
    t += 1.5 * DAY_MS;
  }
  for (let i = 0; i < editCount; i++) {
    t += rng.int(1, 3) * DAY_MS;
    const d = new Date(t);
    d.setUTCHours(rng.int(8, 19), rng.int(0, 59), rng.int(0, 59));
    dates.push(d);
  }
  return dates.map((d) => d.toISOString().replace(/\.\d{3}Z$/, '+00:00'));
}

module.exports = { planHistory, contentAt, commitDates, unitOf };
