#!/usr/bin/env node
'use strict';
// Step 1 of building the quality set: candidate bug fixes from a repository's history.
//
//   node scripts/bench/quality/mine.js <git-dir> <owner/name> [--max N] [--since YYYY-MM-DD] > candidates.json
//
// A candidate is a first-parent commit whose message reads like a fix and references issue or pull
// request numbers (`#123`, `gh-123`, `https://github.com/o/r/issues/123`), changing 1..MAX_SOURCE source files (roles.js) that all exist in
// its parent, and at most MAX_CHANGED files in all. Newest first. The bug report itself is not in
// git: step 2 (see README.md) finds the issue a candidate fixes and records its text.
const { execFileSync } = require('node:child_process');
const { isSourceFile } = require('./roles');

const MAX_SOURCE = 4;
const MAX_CHANGED = 25;
const FIX_WORDS = /\b(fix(e[sd])?|bug|crash(es|ed)?|regression|incorrect(ly)?|wrong|broken|fail(s|ed|ure)?|error|exception|panic|traceback|not work|doesn'?t|does not|should)\b/i;
const NOT_FIX = /^(build\(deps\)|chore\(deps|bump |\[pre-commit|docs?[:(]|ci[:(]|test[s]?[:(]|refactor[:(]|style[:(]|release|version|merge branch)/i;
// `#123`, `gh-123`, or a full link to an issue or pull request of any repository (checked in step 2).
const REF = /(?:#|\bgh-|github\.com\/[\w.-]+\/[\w.-]+\/(?:issues|pull)\/)(\d{1,6})\b/g;

function git(gitDir, args) {
  return execFileSync('git', ['--git-dir', gitDir, ...args], { encoding: 'utf8', maxBuffer: 1 << 30 });
}

function parseArgs(argv) {
  const [gitDir, repo, ...rest] = argv;
  if (!gitDir || !repo || !repo.includes('/')) throw new Error('usage: mine.js <git-dir> <owner/name> [--max N] [--since YYYY-MM-DD]');
  const opts = { gitDir, repo, max: 400, since: '2019-01-01' };
  for (let i = 0; i < rest.length; i++) {
    if (rest[i] === '--max') opts.max = Number(rest[++i]);
    else if (rest[i] === '--since') opts.since = rest[++i];
    else throw new Error(`unknown option ${rest[i]}`);
  }
  return opts;
}

function candidates({ gitDir, repo, max, since }) {
  const SEP = '\u001e';
  const log = git(gitDir, ['log', '--first-parent', `--since=${since}`, `--format=${SEP}%H %P%n%cI%n%B`, 'HEAD']);
  const out = [];
  for (const chunk of log.split(SEP).slice(1)) {
    if (out.length >= max) break;
    const [shas, date, ...body] = chunk.split('\n');
    const [commit, parent] = shas.split(' ');
    const message = body.join('\n').trim();
    const subject = message.split('\n', 1)[0];
    if (!parent || NOT_FIX.test(subject) || !FIX_WORDS.test(message)) continue;
    const refs = [...new Set([...message.matchAll(REF)].map((m) => Number(m[1])))];
    if (refs.length === 0) continue;
    const changed = git(gitDir, ['diff', '--name-only', '--no-renames', parent, commit]).split('\n').filter(Boolean);
    if (changed.length === 0 || changed.length > MAX_CHANGED) continue;
    const source = changed.filter(isSourceFile);
    if (source.length === 0 || source.length > MAX_SOURCE) continue;
    const atParent = new Set(git(gitDir, ['ls-tree', '-r', '--name-only', parent, '--', ...source]).split('\n').filter(Boolean));
    if (!source.every((p) => atParent.has(p))) continue;
    out.push({ repo, commit, parent, date, subject, refs, expected: source, changed, message: message.slice(0, 600) });
  }
  return out;
}

if (require.main === module) {
  try {
    process.stdout.write(`${JSON.stringify(candidates(parseArgs(process.argv.slice(2))), null, 1)}\n`);
  } catch (err) {
    process.stderr.write(`mine: ${err.message}\n`);
    process.exit(2);
  }
}

module.exports = { candidates };
