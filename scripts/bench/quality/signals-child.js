'use strict';
// Child process of the weight tuner (tune.js): one repository. Like repo-child.js it walks the
// repository's pairs in commit order (cold index, then `refresh` after each checkout), but instead of
// the final ranking it records, for every file with at least one signal, each signal's own value
// (every weight set to 1, graph lift left out) and the file's import and co-change neighbours, so
// tune.js can re-rank offline under any weights without indexing again.
// Usage: node signals-child.js <job.json> <out.json>
//   job.json: { repo, mirror, work, pairs: [{ id, query, parent, expected }] }
const fs = require('node:fs');
const path = require('node:path');
const { workClone, checkout, wholeTreePolicy, syncBaseline } = require('./trees');

const root = path.join(__dirname, '..', '..', '..');
const dist = (...p) => require(path.join(root, 'shared', 'retrieval', 'dist', ...p));
const { buildRepositoryIndex, isCodePath } = dist();
const { analyzePrompt, rankFiles, keepFrames, fileRole, rolePrior, codeTokens, withBoilerplate, Bm25Index, SIGNAL_WEIGHTS } = dist('ranking');
const { literalSignals } = dist('indexer', 'literal-signals');
const { cleanReport } = dist('ranking', 'report');

/** Every weight 1 (the lifts 0: tune.js adds graph_neighbour and test_counterpart itself), so an entry's weight is the signal's value × prior. */
const UNIT = Object.fromEntries(Object.keys(SIGNAL_WEIGHTS).map((k) => [k, k === 'graph_neighbour' || k === 'test_counterpart' ? 0 : 1]));

const { PlainBm25 } = require('./plain-bm25');

/**
 * Experimental signals (`x_…`), computed here only, to see whether tuning would use them before
 * they are built into shared/retrieval: BM25 with other length normalization, the plain baseline,
 * title-only BM25, file size and how many files import it.
 */
function bm25With(bm25, terms, b, keep) {
  const out = new Map();
  let n = bm25.docs.size;
  let total = bm25.totalLength;
  if (keep !== undefined) {
    n = 0;
    total = 0;
    for (const [id, d] of bm25.docs) if (keep(id)) { n++; total += d.length; }
  }
  const avg = total / Math.max(1, n) || 1;
  const query = new Map();
  for (const t of terms) query.set(t.term, (query.get(t.term) ?? 0) + t.weight);
  for (const [term, weight] of query) {
    const posting = bm25.postings.get(term);
    if (posting === undefined) continue;
    let df = posting.size;
    if (keep !== undefined) { df = 0; for (const slot of posting.keys()) if (keep(bm25.ids[slot])) df++; }
    const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
    for (const [slot, tf] of posting) {
      if (keep !== undefined && !keep(bm25.ids[slot])) continue;
      const len = bm25.lengths[slot];
      const sc = weight * idf * ((tf * 2.2) / (tf + 1.2 * (1 - b + (b * len) / avg)));
      const id = bm25.ids[slot];
      out.set(id, (out.get(id) ?? 0) + sc);
    }
  }
  return normalized(out);
}

function normalized(scores) {
  let top = 0;
  for (const v of scores.values()) top = Math.max(top, v);
  const out = new Map();
  if (top > 0) for (const [k, v] of scores) out.set(k, v / top);
  return out;
}

function experiments(index, query, analysis, plain) {
  const x = new Map();
  const put = (name, values) => { for (const [p, v] of values) if (v > 0) { const e = x.get(p) ?? {}; e[name] = v; x.set(p, e); } };
  put('x_b03', bm25With(index.bm25, analysis.terms, 0.3));
  put('x_b0', bm25With(index.bm25, analysis.terms, 0));
  const title = query.split('\n', 1)[0];
  put('x_title', bm25With(index.bm25, analyzePrompt(title).terms, 0.75));
  put('x_plain', normalized(plain.code.scoresOf(query)));
  // Sous's own BM25, its share taken of the best score after the role prior (a changelog that
  // matches every word no longer sets the scale for source files).
  const raw = new Map();
  index.bm25.scores(analysis.terms).forEach((p, v) => raw.set(p, v));
  let top = 0;
  for (const [p, v] of raw) top = Math.max(top, v * rolePrior(p, analysis, false).factor);
  if (top > 0) put('x_lex_prior', new Map([...raw].map(([p, v]) => [p, v / top])));
  put('x_plain_all', normalized(plain.all.scoresOf(query)));
  put('x_plain_clean', normalized(plain.code.scoresOf(cleanReport(query))));
  let maxTokens = 1;
  for (const p of index.paths()) maxTokens = Math.max(maxTokens, index.entries.get(p).record.tokens);
  const wider = withBoilerplate(analysis);
  if (wider !== undefined) put('x_noise', bm25With(index.bm25, wider.terms, 0.75));
  // Numbers and prose kept: every lowercase alphanumeric run of the prompt, as in the plain baseline.
  put('x_alnum', bm25With(index.bm25, [...new Set(query.toLowerCase().match(/[a-z0-9]+/g) ?? [])].map((term) => ({ term, weight: 1 })), 0.75));
  put('x_code', bm25With(index.bm25, analysis.terms, 0.75, (p) => isCodePath(p)));
  // Each file scored within its own class (code files among code files, the rest among the rest).
  put('x_split', new Map([...bm25With(index.bm25, analysis.terms, 0.75, (p) => isCodePath(p)), ...bm25With(index.bm25, analysis.terms, 0.75, (p) => !isCodePath(p))]));
  put('x_code_uniform', bm25With(index.bm25, analysis.terms.map((t) => ({ term: t.term, weight: 1 })), 0.75, (p) => isCodePath(p)));
  put('x_uniform', bm25With(index.bm25, analysis.terms.map((t) => ({ term: t.term, weight: 1 })), 0.75));
  put('x_raw', bm25With(index.bm25, [...new Set(codeTokens(query))].map((term) => ({ term, weight: 1 })), 0.75));
  put('x_title_raw', bm25With(index.bm25, [...new Set(codeTokens(title))].map((term) => ({ term, weight: 1 })), 0.75));
  put('x_len', new Map(index.paths().map((p) => [p, Math.log1p(index.entries.get(p).record.tokens) / Math.log1p(maxTokens)])));
  const importers = new Map(index.paths().map((p) => [p, index.graph.importersOf(p).length]));
  put('x_importers', normalized(new Map([...importers].map(([p, n]) => [p, Math.log1p(n)]))));
  return x;
}

/**
 * What history says of each file: the subjects of the commits that touched it (newest 2,000
 * commits, at most 50 files each), and how many commits and fix commits touched it.
 */
function historyOf(work) {
  const { execFileSync } = require('node:child_process');
  const out = execFileSync('git', ['log', '-n', '2000', '--no-renames', '--name-only', '-z', '--format=%x1e%s'], { cwd: work, encoding: 'utf8', maxBuffer: 1 << 30 });
  const subjects = new Map();
  const churn = new Map();
  const fixes = new Map();
  for (const record of out.split('\x1e').slice(1)) {
    const [head, ...rest] = record.split('\n');
    const files = rest.join('\n').split('\0').map((f) => f.trim()).filter(Boolean);
    const fix = /\b(fix|fixe[sd]|bug|crash|regression|error|fail)/i.test(head);
    for (const f of files) {
      churn.set(f, (churn.get(f) ?? 0) + 1);
      if (fix) fixes.set(f, (fixes.get(f) ?? 0) + 1);
    }
    if (files.length > 50) continue;
    for (const f of files) subjects.set(f, `${subjects.get(f) ?? ''}\n${head}`);
  }
  const docs = new Bm25Index();
  for (const [f, text] of subjects) docs.add(f, text);
  return { docs, churn, fixes };
}

/** Windows of each file's lines (their token counts), cached by content across a repository's pairs. */
const CHUNK_LINES = 40;
const chunkCache = new Map();
function chunksOf(index, p) {
  const sha = index.entries.get(p).record.sha256;
  let chunks = chunkCache.get(sha);
  if (chunks === undefined) {
    const lines = (index.text(p) ?? '').split('\n');
    chunks = [];
    for (let start = 0; start < Math.max(1, lines.length); start += CHUNK_LINES / 2) {
      const tokens = codeTokens(lines.slice(start, start + CHUNK_LINES).join('\n'));
      const counts = new Map();
      for (const t of tokens) counts.set(t, (counts.get(t) ?? 0) + 1);
      chunks.push({ counts, len: tokens.length });
      if (start + CHUNK_LINES >= lines.length) break;
    }
    chunkCache.set(sha, chunks);
  }
  return chunks;
}

/** BM25 over line windows (all files' windows one corpus); a file scores its best window. */
function chunkScores(index, terms, keep) {
  const all = [];
  for (const p of index.paths()) if (keep(p)) for (const c of chunksOf(index, p)) all.push([p, c]);
  const df = new Map();
  let total = 0;
  for (const [, c] of all) {
    total += c.len;
    for (const t of terms) if (c.counts.has(t.term)) df.set(t.term, (df.get(t.term) ?? 0) + 1);
  }
  const n = all.length;
  const avg = total / Math.max(1, n) || 1;
  const best = new Map();
  for (const [p, c] of all) {
    let sc = 0;
    for (const t of terms) {
      const tf = c.counts.get(t.term);
      if (tf === undefined) continue;
      const d = df.get(t.term);
      sc += t.weight * Math.log(1 + (n - d + 0.5) / (d + 0.5)) * ((tf * 2.2) / (tf + 1.2 * (0.25 + (0.75 * c.len) / avg)));
    }
    if (sc > (best.get(p) ?? 0)) best.set(p, sc);
  }
  return normalized(best);
}

function signalsFor(index, query, plain, history) {
  const bm25 = index.bm25;
  const lookup = index.lookup;
  const prompt = analyzePrompt(query);
  const analysis = { ...prompt, frames: keepFrames(prompt.frames, (f) => lookup.resolvePath(f.file).length > 0) };
  const extra = literalSignals(analysis, { size: index.size, bm25, lookup, text: (p) => index.text(p) });
  const candidates = index.paths().map((p) => ({
    path: p,
    definedNames: lookup.definedNames(p),
    recency: index.recency.get(p) ?? 0,
    tokens: index.entries.get(p).record.tokens,
    generated: ['generated', 'minified'].includes(index.entries.get(p).blob.degraded),
  }));
  const ranked = rankFiles(analysis, candidates, {
    weights: UNIT,
    scores: bm25.scores(analysis.terms),
    codeScores: bm25.scores(analysis.terms, { codeOnly: true }),
    titleScores: bm25.scores(analysis.titleTerms),
    pathTerms: lookup.pathTerms(analysis),
    definitions: lookup,
    resolvePath: (p) => lookup.resolvePath(p),
    extra,
  });
  const generated = new Map(candidates.map((c) => [c.path, c.generated]));
  const files = [];
  for (const r of ranked) {
    let prior = 1;
    for (const e of r.rationale) if (e.signal === 'role_prior') prior = Number(/x([\d.]+)/.exec(e.detail)?.[1] ?? 1);
    // Values before the prior: tune.js applies role factors of its own.
    const s = {};
    for (const e of r.rationale) if (e.signal !== 'role_prior') s[e.signal] = (s[e.signal] ?? 0) + e.weight / prior;
    const role = fileRole(r.path, generated.get(r.path)).role;
    files.push({ path: r.path, role, exempt: role !== 'source' && prior === 1, s });
  }
  const x = experiments(index, query, analysis, plain);
  const hist = new Map();
  history.docs.scores(analysis.terms).forEach((p, v) => hist.set(p, v));
  const addX = (name, values) => { for (const [p, v] of values) if (v > 0) x.set(p, { ...(x.get(p) ?? {}), [name]: v }); };
  addX('x_hist', normalized(hist));
  // (Title words against folder and file names, once x_title_path, is the built-in signal title_path.)
  const allPath = index.lookup.pathTerms({ labels: analysis.labels, terms: analysis.terms.map((t) => ({ ...t, kind: 'identifier' })) });
  addX('x_all_path', new Map([...allPath].map(([p, h]) => [p, h.share])));
  const reweigh = (factor) => analysis.terms.map((t) => ({ term: t.term, weight: t.kind === 'word' ? t.weight * factor : t.weight }));
  addX('x_prose05', bm25With(index.bm25, reweigh(0.5), 0.75));
  addX('x_prose2', bm25With(index.bm25, reweigh(2), 0.75));
  addX('x_noprose', bm25With(index.bm25, reweigh(0), 0.75));
  addX('x_code_prose05', bm25With(index.bm25, reweigh(0.5), 0.75, (p) => isCodePath(p)));
  addX('x_code_prose2', bm25With(index.bm25, reweigh(2), 0.75, (p) => isCodePath(p)));
  const logNorm = (m) => { let top = 1; for (const v of m.values()) top = Math.max(top, v); return new Map([...m].map(([p, v]) => [p, Math.log1p(v) / Math.log1p(top)])); };
  addX('x_churn', logNorm(history.churn));
  addX('x_fixes', logNorm(history.fixes));
  for (const f of files) Object.assign(f.s, x.get(f.path) ?? {});
  const kept = new Set(files.map((f) => f.path));
  for (const f of files) {
    const imports = index.graph.importLinks(f.path).filter((n) => kept.has(n));
    const cochange = index.graph.coChangeLinks(f.path).filter((n) => kept.has(n) && !imports.includes(n));
    if (imports.length > 0) f.imports = imports;
    if (cochange.length > 0) f.cochange = cochange;
  }
  return files;
}

async function main() {
  const [jobFile, outFile] = process.argv.slice(2);
  const job = JSON.parse(fs.readFileSync(jobFile, 'utf8'));
  const work = workClone(job.mirror, job.work);
  const policy = wholeTreePolicy(root);
  let index = null;
  const out = [];
  const plain = { code: new PlainBm25(), all: new PlainBm25() };
  const shas = { code: new Map(), all: new Map() };
  for (const pair of job.pairs) {
    checkout(work, pair.parent);
    if (index === null) index = await buildRepositoryIndex(work, policy);
    else await index.refresh();
    syncBaseline(plain.code, shas.code, index, work);
    syncBaseline(plain.all, shas.all, index, work, () => true);
    out.push({ id: pair.id, repo: job.repo, expected: pair.expected, files: signalsFor(index, pair.query, plain, historyOf(work)) });
  }
  fs.writeFileSync(outFile, JSON.stringify(out));
}

main().then(() => process.exit(0)).catch((err) => {
  process.stderr.write(`quality signals-child: ${err && err.stack ? err.stack : err}\n`);
  process.exit(1);
});
