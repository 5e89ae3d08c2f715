#!/usr/bin/env node
'use strict';
// Step 3 of building the quality set: joins the linked issues (step 2: <data>/issues/<owner+name>/,
// a repo.json and one <number>.md per report) with git, and writes <data>/set.json.
//
//   node scripts/bench/quality/build.js [--data DIR]      (default DIR: $SOUS_QUALITY_DATA or /work/quality-set)
//
// For each pair it reads the fix commit in the repository's mirror, takes its first parent as the
// tree to ask, and the changed source files (roles.js) that exist in that parent as the answer.
// Pairs whose fix changes no such file (or more than MAX_SOURCE), whose report is empty, or whose
// commit is missing are dropped with a reason. See README.md for the whole procedure.
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const { isSourceFile } = require('./roles');
const { dataDir } = require('./paths');

const MAX_SOURCE = 4;
const MIN_REPORT_CHARS = 80;

function git(gitDir, args) {
  return execFileSync('git', ['--git-dir', gitDir, ...args], { encoding: 'utf8', maxBuffer: 1 << 30, stdio: ['ignore', 'pipe', 'pipe'] });
}

/** The query a user would paste: the issue's title, a blank line, its description. */
function reportText(issue) {
  return `${issue.title.trim()}\n\n${issue.body.trim()}\n`;
}

/**
 * One report as step 2 records it: header lines `commit:`, `url:`, `title:`, a `---` line, then the
 * issue's description verbatim.
 */
function readReport(file) {
  const text = fs.readFileSync(file, 'utf8');
  const cut = text.indexOf('\n---\n');
  if (cut < 0) throw new Error(`${file}: no --- line after the header`);
  const header = Object.fromEntries(text.slice(0, cut).split('\n').map((l) => l.match(/^(\w+):\s*(.*)$/)).filter(Boolean).map((m) => [m[1], m[2].trim()]));
  return { issue: Number(path.basename(file, '.md')), commit: header.commit, url: header.url, title: header.title ?? '', body: text.slice(cut + 5) };
}

function buildRepo(dir, problems) {
  const spec = JSON.parse(fs.readFileSync(path.join(dir, 'repo.json'), 'utf8'));
  spec.pairs = fs.readdirSync(dir).filter((f) => /^\d+\.md$/.test(f)).sort((a, b) => parseInt(a, 10) - parseInt(b, 10)).map((f) => readReport(path.join(dir, f)));
  const out = [];
  const seen = new Set();
  for (const pair of spec.pairs ?? []) {
    const id = `${spec.repo}#${pair.issue}`;
    const drop = (why) => problems.push(`${id}: ${why}`);
    if (seen.has(id)) { drop('listed twice'); continue; }
    seen.add(id);
    if (!/^[0-9a-f]{7,40}$/.test(pair.commit ?? '')) { drop('no commit: line'); continue; }
    if (pair.body.trim().length + pair.title.trim().length < MIN_REPORT_CHARS) { drop('report too short'); continue; }
    let parent;
    let changed;
    try {
      pair.commit = git(spec.mirror, ['rev-parse', `${pair.commit}^{commit}`]).trim();
      parent = git(spec.mirror, ['rev-parse', `${pair.commit}^1`]).trim();
      changed = git(spec.mirror, ['diff', '--name-only', '--no-renames', parent, pair.commit]).split('\n').filter(Boolean);
    } catch {
      drop(`commit ${pair.commit} not in ${spec.mirror}`);
      continue;
    }
    const source = changed.filter(isSourceFile);
    const atParent = new Set(source.length === 0 ? [] : git(spec.mirror, ['ls-tree', '-r', '--name-only', parent, '--', ...source]).split('\n').filter(Boolean));
    const expected = source.filter((p) => atParent.has(p));
    if (expected.length === 0) { drop('the fix changes no source file that existed before it'); continue; }
    if (source.length > MAX_SOURCE) { drop(`the fix changes ${source.length} source files`); continue; }
    const date = git(spec.mirror, ['show', '-s', '--format=%cI', pair.commit]).trim();
    out.push({
      id,
      repo: spec.repo,
      language: spec.language,
      issue: { number: pair.issue, url: pair.url, title: pair.title.trim() },
      query: reportText(pair),
      commit: pair.commit,
      parent,
      date,
      expected,
      changed,
    });
  }
  return { repo: spec.repo, language: spec.language, mirror: spec.mirror, pairs: out };
}

function main() {
  const args = process.argv.slice(2);
  const dir = args[0] === '--data' ? args[1] : dataDir();
  const issuesDir = path.join(dir, 'issues');
  if (!fs.existsSync(issuesDir)) throw new Error(`${issuesDir} does not exist: run steps 1 and 2 first (README.md)`);
  const problems = [];
  const repos = fs.readdirSync(issuesDir).filter((f) => fs.existsSync(path.join(issuesDir, f, 'repo.json'))).sort().map((f) => buildRepo(path.join(issuesDir, f), problems));
  const pairs = repos.flatMap((r) => r.pairs);
  const set = { built: new Date().toISOString(), repositories: repos.map(({ repo, language, mirror, pairs: p }) => ({ repo, language, mirror, pairs: p.length })), pairs };
  fs.writeFileSync(path.join(dir, 'set.json'), `${JSON.stringify(set, null, 1)}\n`);
  for (const p of problems) process.stderr.write(`dropped ${p}\n`);
  process.stdout.write(`${pairs.length} pairs over ${repos.filter((r) => r.pairs.length > 0).length} repositories -> ${path.join(dir, 'set.json')}\n`);
  for (const r of repos) process.stdout.write(`  ${r.repo} (${r.language}): ${r.pairs.length}\n`);
}

if (require.main === module) {
  try {
    main();
  } catch (err) {
    process.stderr.write(`build: ${err.message}\n`);
    process.exit(2);
  }
}

module.exports = { buildRepo, readReport, reportText };
