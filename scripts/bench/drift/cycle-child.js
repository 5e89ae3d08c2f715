'use strict';
// Child process of the drift benchmark: some states (commits) of one repository, one embedded store.
// Each state is checked out from the mirror into a scratch dir (full history, objects shared), with
// the whole tree in scope (`privacy.allowed_paths = ["**/*"]` in its .sous/config.toml), indexed cold
// into a workspace of its own, and given one warm preparation cycle as `sous prepare` runs it
// (default detectors, bounded by compute.max_cycle_seconds). Every card the store then holds is
// reported, in every state, with the index and cycle figures. The output is rewritten after each
// state, so a crash keeps what was done.
// Usage: node cycle-child.js <job.json> <out.json>
//   job.json: { repo, mirror, scratch, keep, states: [sha] }
//   out.json: { store_ms, states: { sha: { files, index_ms, cycle_ms, cycle, cards: [..] } | { error } } }
const fs = require('node:fs');
const path = require('node:path');
const { makeCheckout, claimOf } = require('./harness');

const root = path.join(__dirname, '..', '..', '..');
const { openStore, WORK_PRODUCT_STATES } = require(path.join(root, 'shared', 'store', 'dist'));
const { LiveIndex, scopePolicyFromConfig } = require(path.join(root, 'shared', 'retrieval', 'dist'));
const config = require(path.join(root, 'shared', 'config', 'dist'));
const { createModelAssist, createRepositoryView, defaultDetectors, heldByDetector, runCycle } = require(path.join(root, 'shared', 'engine', 'dist'));
const { createChatClient } = require(path.join(root, 'shared', 'backend', 'dist'));

/** The store lists at most this many cards per call; listed per state, so every card is seen. */
const LIST_LIMIT = 500;

const ms = (t) => Math.round(Number(process.hrtime.bigint() - t) / 1e6);

/** Answer of the recording stand-in: no model is asked, so every held finding stays held. */
const RECORDED = 'KEEP (recorded only: no model was asked)';

/**
 * The model's check of held findings (exploration.confirm_held, set by SOUS_BENCH_CONFIRM_HELD):
 * SOUS_BENCH_CHECK=record writes down each check prompt and asks nothing; SOUS_BENCH_CHECK=<base URL>
 * asks that OpenAI-compatible backend (SOUS_BENCH_MODEL names the model). No other model pass runs
 * (gate never). Every check is reported with the state: the prompt, the answer, the verdict.
 */
function checkModel() {
  const mode = process.env.SOUS_BENCH_CHECK;
  if (!mode) return undefined;
  const model = process.env.SOUS_BENCH_MODEL || (mode === 'record' ? 'recorder' : 'bench');
  const asked = [];
  const backend = mode === 'record' ? undefined : createChatClient({ name: 'bench', baseUrl: mode, model, apiKeyEnv: '' }, { timeoutMs: 300_000 });
  const chat = {
    async complete(messages, options) {
      const answer = backend === undefined ? RECORDED : await backend.complete(messages, options);
      asked.push({ messages, answer });
      return answer;
    },
  };
  return { assist: createModelAssist({ chat, gate: 'never', model }), asked };
}

async function runState(store, job, sha) {
  const dir = path.join(job.scratch, `${job.repo.replace('/', '+')}@${sha.slice(0, 10)}`);
  let live = null;
  try {
    let t = process.hrtime.bigint();
    const { paths, absent } = await makeCheckout(job.mirror, sha, dir, config);
    const checkoutMs = ms(t);
    const cfg = config.loadConfig(paths.config);
    const policy = scopePolicyFromConfig(cfg);
    // A workspace per state: nothing carries over from another commit's cycle.
    const workspaceId = (await store.workspaces.upsertByRoot({ rootPath: paths.root })).id;
    live = new LiveIndex({ root: paths.root, policy, store, workspaceId, watch: false });
    t = process.hrtime.bigint();
    await live.start();
    const indexMs = ms(t);
    const files = live.status().files_indexed;
    const view = createRepositoryView(live.reader(), policy);
    const signal = AbortSignal.timeout(cfg.compute.max_cycle_seconds * 1000);
    t = process.hrtime.bigint();
    let result;
    const checker = checkModel();
    try {
      // With a checker, every held finding is checked in this one cycle (a daemon spreads them over idle cycles).
      const model = checker === undefined ? {} : { model: checker.assist, maxHeldChecks: 10_000 };
      result = await runCycle({ store, workspaceId, view, trigger: { kind: 'warm' }, config: cfg, detectors: defaultDetectors(), signal, ...model });
    } catch (err) {
      if (signal.aborted) return { files, absent: absent.length, index_ms: indexMs, checkout_ms: checkoutMs, cycle_ms: ms(t), error: `cycle ran past compute.max_cycle_seconds (${cfg.compute.max_cycle_seconds} s)`, cards: [] };
      throw err;
    }
    const cycleMs = ms(t);
    const cards = [];
    for (const state of WORK_PRODUCT_STATES) {
      for (const c of await store.workProducts.listWithEvidence({ workspaceId, states: [state], limit: LIST_LIMIT })) {
        // Scored ready, held back: because its detector is held (exploration.detectors_held:
        // `held_detector`), or by the feed budget (`held`).
        const reason = typeof c.details?.held === 'string' ? c.details.held : '';
        const heldDetector = reason !== '' && reason.startsWith(heldByDetector(c.detector)); // the model's KEEP may follow
        const held = reason !== '' && !heldDetector;
        // What a docs-drift card names: each (doc, name) its evidence cites (one card may cover several docs and names).
        const mentions = c.evidence.flatMap((e) => {
          const m = /^mentions `(.+)`$/.exec(e.note ?? '');
          return m ? [[e.path, m[1]]] : [];
        });
        // Ready cards keep their evidence (paths, lines, notes, commits: no file text) so that a sample
        // can be judged by hand for each detector's false-positive rate (docs/benchmarks.md).
        // Indirect docs-drift candidates keep theirs too: judged beside the ready ones, they show what the tier holds back.
        const indirect = c.state === 'candidate' && /\|indirect$/.test(claimOf(c) ?? '');
        const evidence = c.state === 'ready' || indirect ? c.evidence.map((e) => ({ path: e.path, line: e.lineStart ?? null, note: e.note, ...(e.commit ? { commit: e.commit } : {}) })) : undefined;
        cards.push({ state: c.state, kind: c.kind, detector: c.detector, claim: claimOf(c), title: c.title, score: c.score === null ? null : Math.round(c.score * 1000) / 1000, ...(mentions.length ? { mentions } : {}), ...(evidence ? { evidence } : {}), ...(held ? { held } : {}), ...(heldDetector ? { held_detector: true } : {}) });
      }
    }
    return {
      files,
      absent: absent.length,
      checkout_ms: checkoutMs,
      index_ms: indexMs,
      cycle_ms: cycleMs,
      cycle: {
        duration_ms: result.duration_ms,
        frontier: result.frontier,
        candidates: result.candidates,
        ready: result.ready.length,
        landed: result.landed,
        held: result.held,
        detectors: result.detectors,
      },
      cards,
      ...(checker === undefined ? {} : { checks: checker.asked.map((a) => ({ title: findingOf(a.messages), messages: a.messages, answer: a.answer })) }),
      max_rss_kb: process.resourceUsage().maxRSS,
    };
  } finally {
    if (live !== null) await live.stop().catch(() => {});
    if (!job.keep) fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** The finding a check prompt is about: its "Finding: …" line (the card's title, capped at 500 characters). */
function findingOf(messages) {
  const m = /^Finding: (.*)$/m.exec(messages[1]?.content ?? '');
  return m ? m[1] : null;
}

async function main() {
  const [jobFile, outFile] = process.argv.slice(2);
  const job = JSON.parse(fs.readFileSync(jobFile, 'utf8'));
  const out = { store_ms: 0, states: {} };
  const write = () => fs.writeFileSync(outFile, JSON.stringify(out));
  const t = process.hrtime.bigint();
  const store = await openStore({ dataDir: path.join(job.scratch, 'store') });
  out.store_ms = ms(t);
  try {
    for (const [i, sha] of job.states.entries()) {
      const label = `${job.repo} ${i + 1}/${job.states.length} ${sha.slice(0, 10)}`;
      try {
        const r = await runState(store, job, sha);
        out.states[sha] = r;
        const ready = r.cards.filter((c) => c.state === 'ready');
        const drift = ready.filter((c) => c.kind === 'docs_drift').length;
        process.stderr.write(`drift: ${label}: ${r.files} files, index ${(r.index_ms / 1000).toFixed(1)} s, cycle ${(r.cycle_ms / 1000).toFixed(1)} s, ${ready.length} ready (${drift} docs_drift)${r.error ? `; ${r.error}` : ''}\n`);
      } catch (err) {
        out.states[sha] = { error: err && err.message ? err.message.split('\n')[0] : String(err) };
        process.stderr.write(`drift: ${label}: FAILED ${out.states[sha].error}\n`);
      }
      write();
    }
  } finally {
    await store.close();
  }
  write();
}

// Exit once written: the parser pool would otherwise keep the process alive until its idle timeout.
main().then(() => process.exit(0)).catch((err) => {
  process.stderr.write(`drift cycle-child: ${err && err.stack ? err.stack : err}\n`);
  process.exit(1);
});
