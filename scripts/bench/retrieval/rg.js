'use strict';
// ripgrep over the same tree, for scale: how long the fastest plain-text tools take to list and scan it.
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const { percentile, round } = require('../stats');

const RG = '/usr/bin/rg';
/** An identifier common in JavaScript sources. */
const IDENTIFIER = 'require';
const RUNS = 3;

/** Median wall time of `rg args` in `cwd` over RUNS runs, and its last stdout. */
function timed(cwd, args) {
  const times = [];
  let out = '';
  for (let i = 0; i < RUNS; i++) {
    const t = process.hrtime.bigint();
    const r = spawnSync(RG, args, { cwd, encoding: 'utf8', maxBuffer: 1 << 28 });
    times.push(Number(process.hrtime.bigint() - t) / 1e6);
    if (r.status !== 0 && r.status !== 1) throw new Error(`rg ${args.join(' ')}: ${r.stderr}`);
    out = r.stdout;
  }
  return { ms: round(percentile(times, 50)), out };
}

/** `{ files: { ms, count }, count: { ms, files, matches } }`, or `{ na }` without ripgrep. */
function rgFigures(repo) {
  if (!fs.existsSync(RG)) return { na: 'rg not installed (apt-get install -y ripgrep)' };
  const dirs = ['src', 'docs'].filter((d) => fs.existsSync(path.join(repo, d)));
  const files = timed(repo, ['--files', '--hidden', ...dirs]);
  const count = timed(repo, ['-c', '--hidden', '-w', IDENTIFIER, ...dirs]);
  const lines = count.out.split('\n').filter((l) => l !== '');
  return {
    files: { ms: files.ms, count: files.out.split('\n').filter((l) => l !== '').length },
    count: { ms: count.ms, identifier: IDENTIFIER, files: lines.length, matches: lines.reduce((s, l) => s + Number(l.slice(l.lastIndexOf(':') + 1)), 0) },
  };
}

module.exports = { rgFigures };
