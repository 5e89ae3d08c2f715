'use strict';
// The one table the retrieval benchmark prints: figure, measured value, target, ok/MISSED.

/** The goals the figures are held to (docs/benchmarks.md says where they come from). */
const TARGETS = {
  coldFilesPerSecond: 500,
  visibleP95Ms: 1000,
  context50P50Ms: 15,
  context50P99Ms: 60,
  daemonRssMb: 400,
  acc5Percent: 85,
};

const status = (ok) => (ok ? 'ok' : 'MISSED');
const mb = (kb) => Math.round(kb / 1024);
const isNa = (v) => v && typeof v === 'object' && 'na' in v;
const naRow = (what, v, target = '') => [what, `n/a (${v.na})`, target, target ? '-' : ''];

/** Rows `[what, measured, target, status]` from the benchmark result. */
function rows(r) {
  const out = [];
  const c = r.corpus;
  out.push(['corpus', `${c.files} files, ${(c.bytes / 2 ** 20).toFixed(1)} MiB, ${c.commits} commits${c.cached ? ' (cached)' : `, built in ${(c.build_ms / 1000).toFixed(1)} s`}`, '', '']);
  const i = r.cold_index;
  const fps = Math.round(i.files / (i.ms / 1000));
  const runs = i.runs_ms && i.runs_ms.length > 1 ? ` (median of ${i.runs_ms.map((ms) => (ms / 1000).toFixed(1)).join(', ')} s)` : '';
  out.push(['cold index (in-process)', `${(i.ms / 1000).toFixed(2)} s, ${fps} files/s${runs}`, `>= ${TARGETS.coldFilesPerSecond} files/s`, status(fps >= TARGETS.coldFilesPerSecond)]);
  out.push(['cold index peak RSS (child)', `${mb(i.max_rss_kb)} MB (highest run)`, '', '']);
  out.push(['query in-process (fixtures)', `p50 ${i.query_ms.p50} ms, p99 ${i.query_ms.p99} ms`, '', '']);
  if (isNa(r.rg)) out.push(naRow('rg', r.rg));
  else {
    out.push(['rg --files', `${r.rg.files.ms} ms (${r.rg.files.count} files)`, '', '']);
    out.push([`rg -c -w ${r.rg.count.identifier}`, `${r.rg.count.ms} ms (${r.rg.count.matches} lines in ${r.rg.count.files} files)`, '', '']);
  }
  const h = r.http;
  if (h === undefined) out.push(['daemon + /v1/context', 'skipped (--skip-http)', '', '']);
  else {
    out.push(isNa(h.ready) ? naRow('daemon up -> index ready', h.ready) : ['daemon up -> index ready', `${(h.ready.ms / 1000).toFixed(1)} s (${h.ready.files} files)`, '', '']);
    const rss = `<= ${TARGETS.daemonRssMb} MB`;
    out.push(isNa(h.daemonMemory) ? naRow('daemon RSS (peak)', h.daemonMemory, rss) : ['daemon RSS (peak)', `${h.daemonMemory.hwmMb} MB (now ${h.daemonMemory.rssMb} MB)`, rss, status(h.daemonMemory.hwmMb <= TARGETS.daemonRssMb)]);
    const procs = (m) => (m.processes > 1 ? `, ${m.processes} processes: primary + ${m.processes - 1} workers` : '');
    out.push(isNa(h.contextMemory) ? naRow('context process RSS (peak)', h.contextMemory) : ['context process RSS (peak)', `${h.contextMemory.hwmMb} MB (now ${h.contextMemory.rssMb} MB${procs(h.contextMemory)})`, '', '']);
    const errors = (l) => Object.entries(l.errorKinds || {}).map(([k, n]) => `${n}x ${k}`).join(', ');
    const lat = (l) => `p50 ${l.p50} ms, p99 ${l.p99} ms (n=${l.n}, ${l.rps} req/s${l.errors ? `; failed: ${errors(l)}` : ''})`;
    out.push(isNa(h.latency1) ? naRow('/v1/context, 1 client', h.latency1) : ['/v1/context, 1 client', lat(h.latency1), '', h.latency1.errors ? 'ERRORS' : '']);
    const t50 = `p50 <= ${TARGETS.context50P50Ms} ms, p99 <= ${TARGETS.context50P99Ms} ms`;
    out.push(
      isNa(h.latency50)
        ? naRow('/v1/context, 50 clients', h.latency50, t50)
        : ['/v1/context, 50 clients', lat(h.latency50), t50, status(h.latency50.p50 <= TARGETS.context50P50Ms && h.latency50.p99 <= TARGETS.context50P99Ms && !h.latency50.errors)],
    );
    if (h.latency50Unique) {
      out.push(
        isNa(h.latency50Unique)
          ? naRow('/v1/context, 50 clients, unique', h.latency50Unique, t50)
          : ['/v1/context, 50 clients, unique', lat(h.latency50Unique), t50, status(h.latency50Unique.p50 <= TARGETS.context50P50Ms && h.latency50Unique.p99 <= TARGETS.context50P99Ms && !h.latency50Unique.errors)],
      );
    }
    const within = (l) => l.p50 <= TARGETS.context50P50Ms && l.p99 <= TARGETS.context50P99Ms && !l.errors;
    const open = (l) => `p50 ${l.p50} ms, p99 ${l.p99} ms (n=${l.n}, ${l.rps} of ${l.offeredRps} req/s offered${l.errors ? `; failed: ${errors(l)}` : ''})`;
    for (const [key, what] of [
      ['latencyOpen', '/v1/context, open loop 50 x 10/s'],
      ['latencyOpenUnique', '/v1/context, open loop 50 x 10/s, unique'],
      ['latencyOpenUniqueSteady', '/v1/context, open loop 50 x 1/s, unique'],
    ]) {
      const l = h[key];
      if (l) out.push(isNa(l) ? naRow(what, l, t50) : [what, open(l), t50, status(within(l))]);
    }
    if (h.reference) {
      const what = 'reference: node:http hello-world';
      const ref = h.reference;
      out.push(isNa(ref) ? naRow(what, ref) : [what, `50 clients p50 ${ref.closed.p50} ms, p99 ${ref.closed.p99} ms (${ref.closed.rps} req/s); open loop p50 ${ref.open.p50} ms, p99 ${ref.open.p99} ms (${ref.bytes} B answers)`, '', '']);
    }
    const tv = `p95 <= ${TARGETS.visibleP95Ms} ms`;
    out.push(
      isNa(h.visible)
        ? naRow('save -> visible', h.visible, tv)
        : ['save -> visible', `p50 ${h.visible.p50} ms, p95 ${h.visible.p95} ms (n=${h.visible.n}${h.visible.timeouts ? `, ${h.visible.timeouts} timeouts` : ''})`, tv, status(h.visible.p95 <= TARGETS.visibleP95Ms && !h.visible.timeouts)],
    );
  }
  const q = r.quality;
  const acc = (a) => `Acc@1 ${a.acc1}%, @3 ${a.acc3}%, @5 ${a.acc5}%`;
  const tq = `Acc@5 >= ${TARGETS.acc5Percent}% and > BM25`;
  for (const e of q.sets) {
    // A package's own repository holds no replicas, whatever the corpus does.
    const replicaNote = q.replicas && e.form !== 'own repository' ? ', replica = original' : '';
    const files = e.files === undefined ? '' : `, ${e.files} files indexed`;
    const what = `quality: ${e.set}, ${e.form} (${e.sous.n} pairs, ${e.packages} package${e.packages === 1 ? '' : 's'}${files}${replicaNote})`;
    out.push([what, `Sous ${acc(e.sous)}`, tq, status(e.sous.acc5 >= TARGETS.acc5Percent && e.sous.acc5 > e.bm25.acc5)]);
    out.push(['', `BM25 ${acc(e.bm25)}`, '', '']);
  }
  return out;
}

/** The table as text. */
function renderTable(result) {
  const header = ['figure', 'measured', 'target', 'status'];
  const all = [header, ...rows(result)];
  const widths = header.map((_, col) => Math.max(...all.map((row) => String(row[col]).length)));
  const line = (row) => row.map((cell, col) => String(cell).padEnd(widths[col])).join('  ').trimEnd();
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...all.slice(1).map(line)].join('\n') + '\n';
}

/** Per-fixture misses at 5 (for --verbose). */
function renderMisses(quality) {
  const parts = [];
  for (const e of quality.sets) {
    for (const [name, acc] of [['Sous', e.sous], ['BM25', e.bm25]]) {
      parts.push(`\n${name} misses at 5, ${e.set}, ${e.form} (${acc.misses.length}/${acc.n}):`);
      for (const m of acc.misses) {
        parts.push(`  ${m.id}: ${JSON.stringify(m.query)}`);
        parts.push(`    expected ${m.expected}`);
        parts.push(`    got      ${m.got.length ? m.got.join('\n             ') : '(nothing)'}`);
      }
    }
  }
  return parts.join('\n') + '\n';
}

module.exports = { renderTable, renderMisses, TARGETS };
