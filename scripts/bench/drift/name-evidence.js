'use strict';
// Does any evidence the docs_drift.removed_name detector could read -- from history or from the
// doc's own text -- separate its right cards from its wrong ones? This script takes every judged
// card (fp-judgements-N.json joined with fp-worklist-N.json by id), computes such features from
// the card and the repository's mirror, and prints for each feature value how many cards were
// right (tp) and wrong (fp) and the right share. Answer when written: no -- the best single
// features reach only ~60-67 % right, so none is worth a rule.
//
// Features (the ones of the Python prototypes this replaces):
//   title       the card's title and evidence paths: name shape, doc place, removed path, subject.
//   history     B = blame commit of the first doc site line at the card's sha; C = removing commit:
//               B before C, the name in code at B (git grep -w -F outside doc-like files), in the
//               removed path at B, B touching the removed path / a code file holding the name /
//               any code, days from B to C.
//   definition  whether the `-` lines of the removed path in C hold a definition of the name
//               (k0 keyword, k1 method head, k2 field, k3 variant/assignment, k4 export list).
//   mention     the doc line's shape: call, qualified (and the qualifier matching the removed
//               path), code span, link, heading, table, list; the name 3+ times in the doc.
//   coupling    other names defined in the removed file at C^ that the doc names; commits up to
//               C touching both the doc and the removed path.
// Regexes follow Python's `re` (Unicode \w and \b, str.splitlines) so the counts match.
//
//   node scripts/bench/drift/name-evidence.js [--detector docs_drift.removed_name]
//        [--mirrors /work/.mirror] [--json] [--out FILE]
// --json writes the per-card features and the table as JSON to stdout (instead of the table);
// --out FILE writes that JSON to FILE and still prints the table. A card whose repo has no mirror
// (DIR/<owner>+<name>/repo) is skipped and counted.
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const { option } = require('./harness.js');

// ---- Python-compatible text helpers ----

/** Python's \w on str: letters, digits and underscore, any script. */
const WC = '[\\p{L}\\p{N}_]';
/** Python's \b: a change between word and non-word characters. */
const WB = `(?:(?<=${WC})(?!${WC})|(?<!${WC})(?=${WC}))`;
const esc = (s) => s.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&');
const re = (src, flags = '') => new RegExp(src, `u${flags}`);

/** str.splitlines(): every line break Python knows, no trailing empty line. */
function splitlines(s) {
  if (s === '') return [];
  const parts = s.split(/\r\n|[\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]/u);
  if (parts[parts.length - 1] === '') parts.pop();
  return parts;
}
const words = (s) => s.split(/\s+/u).filter(Boolean);
const ext = (p) => p.slice(p.lastIndexOf('.') + 1);
/** The last segment of a `a::b` / `a.b` path: what a grep for the name looks for. */
const leaf = (name) => name.split(/::|\./u).pop();
const isUpper = (ch) => ch !== '' && ch === ch.toUpperCase() && ch !== ch.toLowerCase();

// ---- cards ----

function loadCards(dir, detector) {
  const files = fs.readdirSync(dir).filter((f) => /^fp-judgements-\d+\.json$/.test(f)).sort();
  const cards = [];
  let otherVerdicts = 0;
  for (const f of files) {
    const n = Number(f.match(/-(\d+)\.json$/)[1]);
    const wlFile = path.join(dir, `fp-worklist-${n}.json`);
    if (!fs.existsSync(wlFile)) throw new Error(`${f}: no ${path.basename(wlFile)} beside it`);
    let wl = JSON.parse(fs.readFileSync(wlFile, 'utf8'));
    if (!Array.isArray(wl)) wl = wl.cards ?? [];
    const byId = new Map(wl.map((c) => [c.id, c]));
    for (const j of JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8'))) {
      const c = byId.get(j.id);
      if (!c || c.detector !== detector) continue;
      if (j.verdict !== 'tp' && j.verdict !== 'fp') { otherVerdicts++; continue; }
      cards.push({ set: n, verdict: j.verdict, card: c });
    }
  }
  return { cards, otherVerdicts };
}

/** The names a card's title claims: the backticked spans before " removed in " / " renamed". */
function titleNames(c) {
  const t = c.title.split(' removed in ')[0].split(' renamed')[0];
  return [...t.matchAll(/`([^`]*)`/gu)].map((m) => m[1]);
}

// ---- features ----

function titleFeatures(c) {
  const ns = titleNames(c);
  const nm = ns[0] ?? '';
  const ev = c.evidence;
  const doc = ev[0].path;
  const rem = ev.filter((e) => e.commit);
  const rp = rem.length ? rem[0].path : '';
  const subj = c.title.match(/"([^\n]*)"$/u);
  const s = subj ? subj[1].toLowerCase() : '';
  return {
    multi: ns.length > 1,
    has_sep: /[_:.]|[a-z][A-Z]/.test(nm),
    camel: /[a-z][A-Z]/.test(nm),
    snake: nm.includes('_'),
    path_sep: nm.includes('::') || nm.includes('.'),
    'len>=12': nm.length >= 12,
    upperfirst: isUpper(nm.slice(0, 1)),
    readme: doc.toLowerCase().includes('readme'),
    docsdir: doc.toLowerCase().startsWith('doc/') || doc.toLowerCase().startsWith('docs/'),
    test_rem: /test|spec|example/i.test(rp),
    same_top: doc.split('/')[0] === rp.split('/')[0] && doc.includes('/'),
    renamed: c.title.includes('renamed'),
    lineN: c.title.includes(' line '),
    ext: ext(doc),
    remext: ext(rp),
    subj_remove: /remov|delet|drop|deprecat/u.test(s),
    subj_rename: /renam|refactor|move/u.test(s),
  };
}

/** Pathspecs that keep doc-like files out of "the name is in code". */
const DOC_LIKE = [':!*.md', ':!*.mdx', ':!*.rst', ':!*.txt', ':!*.adoc', ':!CHANGELOG*', ':!*.json', ':!*.lock', ':!*.yml', ':!*.yaml', ':!*.toml'];

function historyFeatures(git, site, word, C, rp) {
  const bl = git('blame', '--porcelain', '-L', `${site.line},${site.line}`, site.sha, '--', site.path);
  if (bl.status !== 0) return null;
  const B = words(bl.stdout)[0];
  const codefiles = splitlines(git('grep', '-l', '-w', '-F', '-e', word, B, '--', '.', ...DOC_LIKE).stdout).map((l) => l.slice(l.indexOf(':') + 1));
  const touched = new Set(words(git('show', '--name-only', '--format=', B).stdout));
  const time = (rev) => Number(git('log', '-1', '--format=%ct', rev).stdout.trim() || 0);
  return {
    B,
    B_before_C: git('merge-base', '--is-ancestor', B, C).status === 0,
    coexist_any: codefiles.length > 0,
    coexist_rp: git('grep', '-l', '-w', '-F', '-e', word, B, '--', rp).stdout.trim() !== '',
    cochange_rp: touched.has(rp),
    cochange_def: codefiles.some((f) => touched.has(f)),
    B_touches_code: [...touched].some((t) => !/\.(md|mdx|rst|txt|adoc)$/u.test(t)),
    gap_days: (time(C) - time(B)) / 86400,
  };
}

function definitionFeatures(git, name, C, rp) {
  const diff = splitlines(git('show', '--format=', '-U0', C, '--', rp).stdout);
  const minus = diff.filter((l) => l.startsWith('-') && !l.startsWith('---')).map((l) => l.slice(1));
  const w = esc(leaf(name));
  const D = [
    re(`${WB}(def|class|fn|struct|enum|trait|type|interface|func|function|const|let|var|static|mod|macro_rules!)\\s+(\\([^)]*\\)\\s*)?${w}${WB}`),
    re(`^\\s*(pub(\\([^)]*\\))?\\s+)?(async\\s+)?(export\\s+)?(default\\s+)?${w}\\s*[(<]`), // method head / call at line start
    re(`^\\s*(readonly\\s+)?${w}\\??\\s*:`), // field / property
    re(`^\\s*${w}\\s*[,=({]\\s*$|^\\s*${w}\\s*=`), // enum variant / assignment
    re(`^\\s*export\\s*\\{[^}]*${WB}${w}${WB}`),
  ];
  const kinds = new Set();
  for (const l of minus) D.forEach((p, i) => { if (p.test(l)) kinds.add(i); });
  const word = re(`${WB}${w}${WB}`);
  const ks = [...kinds].sort();
  return {
    kinds: ks,
    nmin: minus.filter((l) => word.test(l)).length,
    def: ks.includes(0) ? 'kw' : ks.length ? 'other-def' : 'none',
    ...Object.fromEntries([0, 1, 2, 3, 4].map((k) => [`k${k}`, kinds.has(k)])),
  };
}

function mentionFeatures(docLines, site, word, rp) {
  const line = site.line > 0 && site.line <= docLines.length ? docLines[site.line - 1] : '';
  const W = esc(word);
  const q = [...line.matchAll(re(`([A-Za-z_]${WC}*)\\s*(?:\\.|::)\\s*${W}${WB}`, 'g'))].map((m) => m[1]);
  const stem = rp.toLowerCase().replaceAll('_', '').replaceAll('-', '');
  const whole = re(`${WB}${W}${WB}`, 'g');
  const count = docLines.reduce((n, l) => n + [...l.matchAll(whole)].length, 0);
  const trimmed = line.trimStart();
  return {
    line: line.trim().slice(0, 120),
    call: re(`${W}\\s*\\(`).test(line),
    qualified: q.length > 0,
    qual_match: q.some((x) => stem.includes(x.toLowerCase().replaceAll('_', ''))),
    codespan: re(`\`[^\`]*${WB}${W}${WB}[^\`]*\``).test(line),
    in_link: re(`\\[[^\\]]*${W}[^\\]]*\\]\\(`).test(line),
    heading: trimmed.startsWith('#'),
    table: trimmed.startsWith('|'),
    list: re('^\\s*([-*+]|\\p{Nd}+\\.)\\s').test(line),
    'doc_count>=3': count >= 3,
  };
}

const DEF = re(`${WB}(?:def|class|fn|struct|enum|trait|type|interface|func|function|const|static|macro_rules!)\\s+(?:\\([^)]*\\)\\s*)?([A-Za-z_]${WC}{3,})`, 'g');
const DOC_WORD = re(`[A-Za-z_]${WC}{3,}`, 'g');

function couplingFeatures(git, docText, site, word, C, rp) {
  const defs = new Set([...git('show', `${C}^:${rp}`).stdout.matchAll(DEF)].map((m) => m[1]));
  defs.delete(word);
  const docWords = new Set(docText.match(DOC_WORD) ?? []);
  const other = [...defs].filter((d) => docWords.has(d)).length;
  const docCommits = new Set(words(git('log', '--format=%H', C, '--', site.path).stdout));
  const both = words(git('log', '--format=%H', C, '--', rp).stdout).filter((h) => docCommits.has(h)).length;
  return { other, ndefs: defs.size, both };
}

/** Every feature group of one card; groups whose evidence is missing are null. */
function cardFeatures(git, c) {
  const ev = c.evidence;
  const sites = ev.filter((e) => !e.commit && e.line);
  const rem = ev.filter((e) => e.commit);
  const out = { title: titleFeatures(c), history: null, definition: null, mention: null, coupling: null };
  if (rem.length === 0) return out;
  const C = rem[0].commit;
  const rp = rem[0].path;
  const ns = titleNames(c);
  if (ns.length > 0) out.definition = definitionFeatures(git, ns[0], C, rp);
  if (sites.length === 0) return out;
  const site = { ...sites[0], sha: c.sha };
  const m = site.note.match(/`([^`]*)`/u);
  const word = leaf(m ? m[1] : '');
  out.history = historyFeatures(git, site, word, C, rp);
  const docText = git('show', `${c.sha}:${site.path}`).stdout;
  out.mention = mentionFeatures(splitlines(docText), site, word, rp);
  out.coupling = couplingFeatures(git, docText, site, word, C, rp);
  return out;
}

// ---- the table ----

const GAP = [[-Infinity, '<0'], [0, '0-30'], [30, '30-365'], [365, '365+']];
const gapBucket = (d) => GAP.filter(([lo]) => d >= lo).pop()[1];

/** The (group, feature, value) pairs a card is counted under: the prototypes' tallies. */
function tallyKeys(f) {
  const keys = [];
  for (const [k, v] of Object.entries(f.title)) keys.push(['title', k, v]);
  if (f.history) {
    for (const [k, v] of Object.entries(f.history)) if (typeof v === 'boolean') keys.push(['history', k, v]);
    keys.push(['history', 'gap_days', gapBucket(f.history.gap_days)]);
  }
  if (f.definition) {
    keys.push(['definition', 'def', f.definition.def]);
    for (const k of f.definition.kinds) keys.push(['definition', `k${k}`, true]);
  }
  if (f.mention) for (const [k, v] of Object.entries(f.mention)) if (typeof v === 'boolean') keys.push(['mention', k, v]);
  if (f.coupling) {
    const { other, both } = f.coupling;
    keys.push(['coupling', 'other', Math.min(other, 3)], ['coupling', 'both', Math.min(both, 2)], ['coupling', 'other>=1&both>=1', other >= 1 && both >= 1]);
  }
  return keys;
}

const GROUPS = ['title', 'history', 'definition', 'mention', 'coupling'];
function compareRows(a, b) {
  if (a.group !== b.group) return GROUPS.indexOf(a.group) - GROUPS.indexOf(b.group);
  if (a.feature !== b.feature) return a.feature < b.feature ? -1 : 1;
  const rank = (r) => (r.feature === 'gap_days' ? GAP.findIndex(([, l]) => l === r.value) : typeof r.value === 'boolean' ? Number(r.value) : r.value);
  const x = rank(a);
  const y = rank(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

/** '%.0f' of Python / C: ties to even. */
function percent(k, n) {
  const x = (100 * k) / n;
  const f = Math.floor(x);
  return x - f > 0.5 || (x - f === 0.5 && f % 2 === 1) ? f + 1 : f;
}

function table(perCard) {
  const by = new Map();
  for (const c of perCard) {
    for (const [group, feature, value] of tallyKeys(c.features)) {
      const key = JSON.stringify([group, feature, value]);
      const row = by.get(key) ?? { group, feature, value, right: 0, wrong: 0 };
      row[c.verdict === 'tp' ? 'right' : 'wrong']++;
      by.set(key, row);
    }
  }
  return [...by.values()].sort(compareRows).map((r) => ({ ...r, precision: percent(r.right, r.right + r.wrong) }));
}

// ---- main ----

function main(argv) {
  const started = Date.now();
  const detector = option(argv, '--detector', 'docs_drift.removed_name');
  const mirrors = option(argv, '--mirrors', path.join('/work', '.mirror'));
  const out = option(argv, '--out', null);
  const { cards, otherVerdicts } = loadCards(__dirname, detector);
  const perCard = [];
  const noMirror = [];
  const blameFailed = [];
  for (const { set, verdict, card: c } of cards) {
    const repoDir = path.join(mirrors, c.repo.replace('/', '+'), 'repo');
    if (!fs.existsSync(path.join(repoDir, 'HEAD'))) { noMirror.push({ set, id: c.id, repo: c.repo }); continue; }
    const git = (...args) => {
      const r = spawnSync('git', ['-C', repoDir, ...args], { encoding: 'utf8', maxBuffer: 1 << 28, stdio: ['ignore', 'pipe', 'pipe'] });
      if (r.error) throw r.error;
      return { status: r.status, stdout: r.stdout };
    };
    const features = cardFeatures(git, c);
    if (features.history === null && features.mention !== null) blameFailed.push({ set, id: c.id, repo: c.repo }); // ids repeat across sets
    const rem = c.evidence.find((e) => e.commit);
    perCard.push({ set, id: c.id, verdict, repo: c.repo, name: titleNames(c)[0] ?? '', doc: c.evidence[0].path, removed: rem?.path ?? null, commit: rem?.commit ?? null, features });
  }
  const rows = table(perCard);
  const right = perCard.filter((c) => c.verdict === 'tp').length;
  const seconds = Math.round((Date.now() - started) / 100) / 10;
  const summary = { detector, cards: perCard.length, right, wrong: perCard.length - right, skipped_no_mirror: noMirror, blame_failed: blameFailed, other_verdicts: otherVerdicts, seconds };
  const json = `${JSON.stringify({ ...summary, table: rows, per_card: perCard }, null, 1)}\n`;
  if (out) fs.writeFileSync(out, json);
  else if (argv.includes('--json')) { process.stdout.write(json); return; }

  const w = (s, n) => String(s).padEnd(n);
  const vw = Math.max(5, ...rows.map((r) => String(r.value).length)) + 2;
  process.stdout.write(`${w('group', 11)}${w('feature', 18)}${w('value', vw)}${w('right', 7)}${w('wrong', 7)}right share\n`);
  let last = null;
  for (const r of rows) {
    if (last !== null && r.group !== last) process.stdout.write('\n');
    last = r.group;
    process.stdout.write(`${w(r.group, 11)}${w(r.feature, 18)}${w(r.value, vw)}${w(r.right, 7)}${w(r.wrong, 7)}${r.precision} %\n`);
  }
  process.stdout.write(`\n${detector}: ${perCard.length} cards (${right} right, ${perCard.length - right} wrong, ${percent(right, perCard.length || 1)} % right)` +
    `; ${noMirror.length} skipped without a mirror; history features missing on ${blameFailed.length} (blame failed)` +
    (otherVerdicts ? `; ${otherVerdicts} judgements neither tp nor fp left out` : '') + `; ${seconds} s\n`);
}

main(process.argv.slice(2));
