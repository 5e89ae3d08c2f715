'use strict';
// The model's check of held docs-drift findings (exploration.confirm_held), measured on cards already
// judged by hand: every judged card of a held detector (fp-judgements-N.json with its
// fp-worklist-N.json) is found again at its state with the current code (cycle-child.js, one warm
// cycle, its held findings checked), and the model's verdict is counted against the judges'.
//   node scripts/bench/drift/check-sample.js --out DIR --model-url http://127.0.0.1:11434/v1 --model qwen2.5-coder:7b
//   node scripts/bench/drift/check-sample.js --out DIR --record       # no model: write the prompts down
//   node scripts/bench/drift/check-sample.js --out DIR --answers FILE # count answers given elsewhere
// Options: --detector docs_drift.removed_name (whose cards; also what the model may confirm),
// --from 5 (judgement files numbered from), --mirrors DIR, --repo owner/name (repeatable).
// Writes DIR/<owner>+<name>.json (cycle-child output, reused by later runs with the same mode),
// DIR/prompts.jsonl (one {id, messages} per distinct prompt of the judged cards found again: no
// repository, no verdict, for answering blind; the id comes from the prompt), DIR/key.json (each
// judged card found again, its verdict and its prompt's id) and, with answers, DIR/tally.json.
// A card not found again (the current rules no longer make it, or its title changed) is counted.
const fs = require('node:fs');
const path = require('node:path');
const { mirrorSource, option, optionList, promptId, resolveMirror, runStates } = require('./harness');

const root = path.join(__dirname, '..', '..', '..');

/** Every judged card of `detector` in judgement files numbered `from` and up, with its verdict. */
function judgedCards(detector, from) {
  const cards = [];
  for (const file of fs.readdirSync(__dirname).filter((f) => /^fp-judgements-\d+\.json$/.test(f))) {
    const n = Number(/(\d+)/.exec(file)[1]);
    if (n < from) continue;
    const worklist = new Map(JSON.parse(fs.readFileSync(path.join(__dirname, `fp-worklist-${n}.json`), 'utf8')).map((c) => [c.id, c]));
    for (const j of JSON.parse(fs.readFileSync(path.join(__dirname, file), 'utf8'))) {
      const card = worklist.get(j.id);
      if (card === undefined || card.detector !== detector || (j.verdict !== 'tp' && j.verdict !== 'fp')) continue;
      cards.push({ set: n, id: j.id, verdict: j.verdict, repo: card.repo, sha: card.sha, title: card.title });
    }
  }
  return cards;
}

/** Runs cycle-child on the repository's judged states not done yet in this mode; returns its output. */
function runRepo(repo, shas, out, source, env) {
  const resultFile = path.join(out, `${repo.replace('/', '+')}.json`);
  const before = fs.existsSync(resultFile) ? JSON.parse(fs.readFileSync(resultFile, 'utf8')) : undefined;
  if (before !== undefined && before.mode !== env.SOUS_BENCH_CHECK) throw new Error(`${resultFile} was written in another mode (${before.mode}); use another --out`);
  const mirror = resolveMirror(repo, source);
  if (mirror === null) {
    process.stderr.write(`check: ${repo}: no mirror (fetch it first); skipped\n`);
    return before ?? { states: {} };
  }
  return runStates({ repo, mirror, states: shas, resultFile, env, initial: { mode: env.SOUS_BENCH_CHECK, states: {} } });
}

/** A title as a check prompt quotes it (whitespace collapsed, capped at 500 characters as prompts.ts caps it). */
function quoted(title) {
  const one = title.replace(/\s+/g, ' ').trim();
  return one.length <= 500 ? one : `${one.slice(0, 499)}…`;
}

/** A title's doc (its first word) and first backticked name. */
function gist(title) {
  return `${title.split(' ')[0]}|${/`([^`]+)`/.exec(title)?.[1] ?? ''}`;
}

function main(argv) {
  const out = option(argv, '--out');
  const url = option(argv, '--model-url');
  const answersFile = option(argv, '--answers');
  const record = argv.includes('--record');
  if (!out || [url, answersFile, record || undefined].filter((x) => x !== undefined).length !== 1) {
    throw new Error('usage: check-sample.js --out DIR (--model-url URL [--model NAME] | --record | --answers FILE) [--detector ID] [--from N] [--repo owner/name]');
  }
  const detector = option(argv, '--detector', 'docs_drift.removed_name');
  const only = new Set(optionList(argv, '--repo'));
  const judged = judgedCards(detector, Number(option(argv, '--from', '5'))).filter((c) => only.size === 0 || only.has(c.repo));
  fs.mkdirSync(out, { recursive: true });
  const { verdictOf } = require(path.join(root, 'shared', 'engine', 'dist'));
  // Answers given elsewhere are counted against the prompts a --record run wrote.
  const env = {
    SOUS_BENCH_CHECK: url ?? 'record',
    ...(option(argv, '--model') ? { SOUS_BENCH_MODEL: option(argv, '--model') } : {}),
    SOUS_BENCH_CONFIRM_HELD: JSON.stringify([detector]),
  };
  const source = mirrorSource(option(argv, '--mirrors'));
  const byRepo = new Map();
  for (const c of judged) byRepo.set(c.repo, [...(byRepo.get(c.repo) ?? []), c]);

  /** Prompt id → messages, each distinct prompt once. */
  const prompts = new Map();
  const key = {};
  let missing = 0;
  const asked = new Set();
  for (const [repo, cards] of byRepo) {
    const done = answersFile ? readDone(out, repo) : runRepo(repo, [...new Set(cards.map((c) => c.sha))], out, source, env);
    for (const card of cards) {
      const checks = done.states[card.sha]?.checks ?? [];
      // The same title, else the same doc and first name (the current code may word the count of docs or lines differently).
      const check = checks.find((k) => k.title === quoted(card.title)) ?? checks.find((k) => k.title !== null && gist(k.title) === gist(card.title));
      // The same card judged in two sets is counted once.
      const once = `${repo}|${card.sha}|${card.title}`;
      if (asked.has(once)) continue;
      asked.add(once);
      if (check === undefined) {
        missing++;
        continue;
      }
      // Ids come from the prompt (harness.promptId): answers saved once stay matched to their prompts.
      const id = promptId(check.messages);
      prompts.set(id, check.messages);
      key[`card#${Object.keys(key).length + 1}`] = { ...card, prompt: id, answer: check.answer };
    }
  }
  fs.writeFileSync(path.join(out, 'prompts.jsonl'), [...prompts].map(([id, messages]) => `${JSON.stringify({ id, messages })}\n`).join(''));
  if (answersFile) {
    const given = JSON.parse(fs.readFileSync(answersFile, 'utf8'));
    for (const entry of Object.values(key)) entry.answer = given[entry.prompt] ?? null;
  }
  fs.writeFileSync(path.join(out, 'key.json'), JSON.stringify(key, null, 1));
  const judgedOnce = asked.size;
  process.stdout.write(`${judgedOnce} judged ${detector} cards; ${Object.keys(key).length} found again and checked (${prompts.size} distinct prompts), ${missing} not made again by the current code\n`);
  if (record && !answersFile) return;

  // Confirmed (STALE) against the judges: the feed would show the confirmed ones.
  const t = { right_confirmed: 0, wrong_confirmed: 0, right_kept: 0, wrong_kept: 0, unanswered: 0 };
  for (const entry of Object.values(key)) {
    if (entry.answer === null || entry.answer === undefined) {
      t.unanswered++;
      continue;
    }
    const v = verdictOf(entry.answer)?.verdict ?? 'refuted';
    t[`${entry.verdict === 'tp' ? 'right' : 'wrong'}_${v === 'confirmed' ? 'confirmed' : 'kept'}`]++;
  }
  const confirmed = t.right_confirmed + t.wrong_confirmed;
  const right = t.right_confirmed + t.right_kept;
  const tally = {
    ...t,
    confirmed_wrong_share: confirmed ? t.wrong_confirmed / confirmed : null,
    right_cards_confirmed_share: right ? t.right_confirmed / right : null,
  };
  fs.writeFileSync(path.join(out, 'tally.json'), JSON.stringify(tally, null, 1));
  const pct = (x) => (x === null ? 'n/a' : `${(100 * x).toFixed(1)} %`);
  process.stdout.write(`confirmed ${confirmed}: ${t.wrong_confirmed} judged wrong (${pct(tally.confirmed_wrong_share)}); right cards confirmed ${t.right_confirmed}/${right} (${pct(tally.right_cards_confirmed_share)}); wrong cards kept ${t.wrong_kept}; unanswered ${t.unanswered}\n`);
}

function readDone(out, repo) {
  const file = path.join(out, `${repo.replace('/', '+')}.json`);
  return fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, 'utf8')) : { states: {} };
}

main(process.argv.slice(2));
