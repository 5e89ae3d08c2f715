'use strict';
/*
 * mine.js — mine REAL docs-drift fixes from a repository's git history.
 *
 * A scenario is a maintainer commit C that edited a documentation file which
 * still named code that no longer existed: state "parent" = C^ (stale doc),
 * state "fix" = C. For every (C, doc) we record the stale tokens C removed.
 *
 * Usage:
 *   node scripts/bench/drift/mine.js <git-dir> <owner/name> [--max N] [--since YYYY-MM-DD]
 *        [--per-year N] [--all-branches] [--language L]
 *
 *   <git-dir>   a bare git directory (full history), e.g. /work/.mirror/owner+name/repo
 *   --max N     cap on scenarios for this repository (default 25)
 *   --per-year  cap on scenarios per calendar year (default 6)
 *   --since     only commits after this date (default 2016-01-01)
 *   --all-branches  walk every non-merge commit reachable from HEAD instead of
 *               only the first-parent chain (for projects that land PRs as
 *               merge commits; chosen automatically when < 35 % of non-merge
 *               commits are on the first-parent chain)
 * Prints a JSON array of scenarios to stdout; progress goes to stderr.
 * Uses only git (local, read-only) and node: builtins.
 *
 * Rules (see README.md next to this file):
 *  - C: non-merge, since --since, changes <= 12 files, modifies (status M) a doc
 *    file (.md .mdx .markdown .rst, .txt under a docs-ish path, README), not a
 *    changelog/history/news/release/migration/upgrade/dated file, not vendored.
 *  - candidate tokens come from `-` lines of `git show -U0 C -- doc`: inline code
 *    spans / rst roles whose content has a code shape (identifier, dotted path,
 *    file path, --flag, ENV_VAR, config key) plus --flags / $ENV / ENV_VAR= anywhere.
 *  - a token T is kept only if
 *     1. T is not on any `+` line of that doc in C (whole word),
 *     2. T is absent (whole word) from every non-doc file at C^ (dotted paths:
 *        the full string is absent and either the leaf is absent or the python
 *        module path is gone; flags: no spelling variant foo-bar/foo_bar/fooBar
 *        is present; paths: neither doc-relative nor root-relative path exists),
 *     3. T was present in a non-doc file at an earlier commit; the commit that
 *        removed it is recorded as removed_in (verified: present at X^, absent at X),
 *     4. T has >= 3 chars and is not a common word / keyword / builtin.
 */

const { spawnSync } = require('node:child_process');

// ---------------------------------------------------------------- arguments
const argv = process.argv.slice(2);
function opt(name, dflt) {
  const i = argv.indexOf(name);
  if (i < 0) return dflt;
  const v = argv[i + 1];
  argv.splice(i, 2);
  return v;
}
function flag(name) {
  const i = argv.indexOf(name);
  if (i < 0) return false;
  argv.splice(i, 1);
  return true;
}
const MAX = Number(opt('--max', '25'));
const PER_YEAR = Number(opt('--per-year', '6'));
const SINCE = opt('--since', '2016-01-01');
const LANG_OPT = opt('--language', null);
let ALL_BRANCHES = flag('--all-branches');
const [GIT_DIR, REPO] = argv;
if (!GIT_DIR || !REPO) {
  process.stderr.write('usage: node mine.js <git-dir> <owner/name> [--max N] [--since YYYY-MM-DD]\n');
  process.exit(2);
}
const MAX_FILES = 12;

// ---------------------------------------------------------------- git helpers
function git(args, { allowFail = true, input } = {}) {
  const r = spawnSync('git', ['--git-dir', GIT_DIR, ...args], {
    encoding: 'utf8',
    maxBuffer: 1 << 30,
    input,
  });
  if (r.status !== 0 && !allowFail) {
    throw new Error(`git ${args.join(' ')} failed: ${r.stderr}`);
  }
  return r;
}
const log = (...a) => process.stderr.write(a.join(' ') + '\n');

// non-doc pathspec: everything except documentation-like files
const NONDOC = [
  '.',
  ':(exclude)*.md', ':(exclude)*.mdx', ':(exclude)*.markdown', ':(exclude)*.rst',
  ':(exclude)*.txt', ':(exclude)*.MD', ':(exclude)*.adoc',
  ':(exclude,glob)**/README', ':(exclude,icase)*changelog*', ':(exclude,icase)*changes*',
  ':(exclude,icase)*history*', ':(exclude,icase)*news*',
];

// project-code pathspec for the "it was the project's code" proof (rule 3):
// non-doc files outside docs / examples / tests / website folders, so names that
// only lived in doc example scripts or test fixtures do not count.
const SOURCE = [
  ...NONDOC,
  ':(exclude,glob)**/doc/**', ':(exclude,glob)**/docs/**', ':(exclude,glob)**/docs_src/**',
  ':(exclude,glob)**/documentation/**', ':(exclude,glob)**/website/**', ':(exclude,glob)**/site/**',
  ':(exclude,glob)**/example/**', ':(exclude,glob)**/examples/**', ':(exclude,glob)**/_examples/**',
  ':(exclude,glob)**/test/**', ':(exclude,glob)**/tests/**', ':(exclude,glob)**/testing/**',
  ':(exclude,glob)**/testdata/**', ':(exclude,glob)**/__tests__/**', ':(exclude,glob)**/fixtures/**',
  ':(exclude,glob)**/benchmarks/**', ':(exclude,glob)**/bench/**',
  ':(exclude)*_test.go', ':(exclude)*.test.js', ':(exclude)*.test.ts', ':(exclude)*.spec.js',
  ':(exclude)*.spec.ts', ':(exclude,glob)**/test_*.py', ':(exclude,glob)**/*_test.py', ':(exclude,glob)**/conftest.py',
  ':(exclude)*.json', ':(exclude)*.lock', ':(exclude)*.snap', ':(exclude)*.html',
  // config / CI files mostly name third-party things (setup.cfg [bdist_wheel], CI jobs)
  ':(exclude)*.cfg', ':(exclude)*.ini', ':(exclude)*.toml', ':(exclude)*.yml', ':(exclude)*.yaml',
  ':(exclude,glob).github/**',
];

// ---------------------------------------------------------------- doc files
const DOC_EXT = /\.(md|mdx|markdown|rst)$/i;
function isDoc(p) {
  const l = p.toLowerCase();
  const base = l.split('/').pop();
  let ok = DOC_EXT.test(base) || base === 'readme';
  if (!ok && base.endsWith('.txt')) {
    ok = /(^|\/)docs?(\/|$)/.test(l) || base.startsWith('readme');
  }
  if (!ok) return false;
  if (/(^|\/)(node_modules|vendor|vendored|third_party|third-party|thirdparty|3rdparty|external)(\/|$)/.test(l)) return false;
  if (/(^|\/)(tests?|testdata|test-data|fixtures?|__tests__|__fixtures__|spec|snapshots?|__snapshots__|examples?\/.*\/node_modules)(\/|$)/.test(l)) return false;
  // pages that document removed things on purpose are not drift
  if (/changelog|changes|history|news|release|migrat|upgrad|deprecat|breaking|removed/.test(l)) return false;
  if (/^\d{4}-\d{2}(-\d{2})?[-_.]/.test(base)) return false; // dated file
  if (/(^|[^a-z0-9])v?\d+\.\d+/.test(base)) return false; // versioned file (v1.2.md, README.v0.2.0.md)
  if (/(^|\/)(blog|posts|_posts)(\/|$)/.test(l)) return false;
  if (/(license|licence|authors|contributors|notice|copying|code_of_conduct|requirements|constraints)/.test(base)) return false;
  return true;
}

// ---------------------------------------------------------------- stopwords
const STOP = new Set(`
self cls this that none null nil true false undefined void print list dict set str string int
float bool boolean object array number function func class def return import from export default
const let var new delete type types interface struct enum impl trait async await yield lambda
with while for if else elif then when match case try catch except finally raise throw throws
and or not is in as of to on at by an the this its it use used uses using mod pub crate super
main init test tests args kwargs argv opts options option config configs value values key keys
name names path paths file files dir dirs data error errors result results item items node nodes
json yaml toml html http https url uri api cli app apps foo bar baz qux quux hello world example
examples sample todo fixme note notes info debug warn warning trace log logs len map filter reduce
open close read write get put post patch head delete run start stop build install update upgrade
version help the and are was were has have had can could should would will shall may might must
code docs doc readme index main src lib bin pkg package packages module modules source target
request response req res ctx context next err msg message id ids user users time date now
window document console process global globals require exports module_exports setup teardown done though
id_ foo_bar foo_baz my_app myapp my_project myproject my_package mypackage some_value
`.split(/\s+/).filter(Boolean));

const TLDS = new Set(['com', 'org', 'net', 'io', 'dev', 'app', 'co', 'uk', 'de', 'fr', 'edu', 'gov', 'sh', 'ai', 'me', 'info', 'rs', 'so', 'cc', 'ly', 'site', 'page']);
const FILE_EXTS = new Set(`py pyi pyc pyx js mjs cjs ts mts cts tsx jsx json json5 jsonc md mdx rst txt toml yml yaml cfg ini
lock html htm css scss less sh bash zsh fish ps1 bat cmd go mod sum rs vue svelte astro xml svg png jpg jpeg gif ico lua rb
php java kt c h cc cpp hpp cs swift zip gz tar tgz whl egg exe dll so dylib wasm map conf env log csv tsv sql db sqlite proto
graphql gql tmpl tpl j2 jinja jinja2 hbs ejs pug njk lockb pem crt key gitignore dockerignore npmrc nvmrc editorconfig`.split(/\s+/));

// ---------------------------------------------------------------- tokenization
const IDENT = /^[A-Za-z_][A-Za-z0-9_]*$/;
function identShape(t) {
  if (/^__\w+__$/.test(t)) return false; // dunders
  if (/^_+$/.test(t)) return false;
  if (/[A-Za-z]_[A-Za-z0-9]|[A-Za-z0-9]_[A-Za-z]/.test(t)) return true; // snake_case
  if (/[a-z][A-Z]/.test(t)) return true; // camelCase / PascalCase with >= 2 humps
  return false;
}
function isStop(t) {
  const l = t.toLowerCase();
  return STOP.has(l) || t.length < 3;
}
function camel(s) {
  return s.replace(/[-_]([a-z0-9])/g, (_, c) => c.toUpperCase());
}

// classify the content of a code span; returns {kind, value} or null
function classifySpan(raw, { fromRole = false } = {}) {
  let c = raw.trim();
  if (!c || c.length > 120) return null;
  if (fromRole) {
    const m = c.match(/<([^>]+)>\s*$/);
    if (m) c = m[1].trim();
    c = c.replace(/^[~!]/, '');
  }
  // --flag (possibly with value)
  let m = c.match(/^(--[A-Za-z][A-Za-z0-9-]*[A-Za-z0-9])(?:[=\s].*)?$/);
  if (m) return { kind: 'flag', value: m[1] };
  // $VAR / ENV_VAR / ENV_VAR=...
  m = c.match(/^\$\{?([A-Z][A-Z0-9_]*[A-Z0-9])\}?$/);
  if (m) return { kind: 'env', value: m[1] };
  m = c.match(/^([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)(?:=.*)?$/);
  if (m) return { kind: 'env', value: m[1] };
  // file path with a slash and an extension
  if (/\//.test(c) && !/\s|:\/\/|[*?{}<>[\]|"'`$,;()]/.test(c) && !c.startsWith('@')) {
    const p = c.replace(/^\.\//, '');
    const base = p.split('/').pop();
    const ext = (base.match(/\.([A-Za-z0-9]{1,8})$/) || [])[1];
    if (ext && FILE_EXTS.has(ext.toLowerCase()) && !p.startsWith('/') && !p.startsWith('~')) {
      return { kind: 'path', value: p };
    }
    return null;
  }
  // call: foo(...) -> foo
  let hadParens = false;
  m = c.match(/^([A-Za-z_$][\w$]*(?:(?:\.|::)[A-Za-z_$][\w$]*)*)\s*\(.*\)$/);
  if (m) {
    c = m[1];
    hadParens = true;
  }
  c = c.replace(/[.,;:]+$/, '');
  // dotted / :: path
  if (/^[A-Za-z_][\w]*(?:(?:\.|::)[A-Za-z_][\w]*)+$/.test(c)) {
    let segs = c.split(/\.|::/);
    const sep = c.includes('::') ? '::' : '.';
    if (['self', 'this', 'cls', 'crate', 'super', 'std', 'os', 'sys', 'window', 'document', 'process', 'console', 'Object', 'Array', 'JSON', 'Math', 'Promise', 'np', 'pd'].includes(segs[0])) {
      if (['self', 'this', 'cls'].includes(segs[0])) {
        segs = segs.slice(1);
        if (segs.length === 1) {
          const t = segs[0];
          if ((identShape(t) || hadParens || fromRole) && !isStop(t)) return { kind: 'identifier', value: t };
          return null;
        }
      } else return null;
    }
    const last = segs[segs.length - 1];
    if (FILE_EXTS.has(last.toLowerCase()) && !hadParens && !fromRole) return null; // a file name
    if (TLDS.has(last.toLowerCase()) && !hadParens && !fromRole) return null; // a domain
    const value = segs.join(sep);
    const kind = sep === '.' && segs.every((s) => /^[a-z][a-z0-9]*$/.test(s)) && !hadParens && !fromRole ? 'config_key' : 'dotted';
    return { kind, value };
  }
  if (IDENT.test(c)) {
    if (/^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+$/.test(c)) return { kind: 'env', value: c };
    if (identShape(c) || hadParens || fromRole) {
      if (isStop(c)) return null;
      return { kind: 'identifier', value: c };
    }
  }
  return null;
}

const ROLE_RE = /:(?:py:|js:)?(func|class|meth|mod|attr|exc|obj|data|const|setting|envvar|option|signal|reqmeta|command):`([^`]+)`/g;
// lines that name old things on purpose (rename notes, removal notices)
const HISTORICAL = /\b(renamed|removed|deprecated|deprecation|previous(ly)? versions?|breaking change|no longer|replaced (by|with)|replaces|in favou?r of|was dropped|used to be)\b|=>|→/i;
// external commands whose flags are not the project's own
const EXT_CMDS = ['git', 'cargo', 'pip', 'pip3', 'pipx', 'npm', 'npx', 'yarn', 'flit', 'brew', 'curl', 'wget', 'docker', 'apt', 'apt-get', 'dnf', 'yum', 'go', 'rustup', 'python', 'python3', 'node', 'poetry', 'conda', 'gpg', 'tar', 'make', 'gh', 'pnpm', 'uv', 'hatch', 'tox', 'nox', 'twine', 'rustc', 'gcc', 'kubectl', 'helm', 'hugo',
  'oc', 'file', 'grep', 'sed', 'find', 'ls', 'cat', 'ssh', 'openssl', 'cosign', 'kind', 'minikube', 'gcloud', 'aws', 'az', 'gem', 'bundle', 'pytest', 'mypy', 'eslint', 'prettier', 'jest', 'mocha', 'webpack', 'tsc', 'deno', 'bun', 'sudo', 'xargs', 'less', 'bat', 'fzf', 'rg', 'clang'];
function externalCommandBefore(line, idx) {
  // the command word that starts the shell segment holding the flag
  const seg = line.slice(0, idx).split(/[|;&`(]|\$\s|\$\(/).pop();
  const words = seg.trim().split(/\s+/).filter((w) => !['sudo', 'if', 'then', 'do', 'exec', 'time', 'env', '>', '$'].includes(w) && !/^[A-Z_]+=/.test(w));
  const w = (words[0] || '').replace(/^.*\//, '');
  const own = REPO.split('/')[1].toLowerCase();
  if (!w || w === own || own.startsWith(w + '-') || own.endsWith('-' + w)) return false;
  return EXT_CMDS.includes(w);
}
function extractTokens(line, isRst) {
  const out = [];
  if (HISTORICAL.test(line)) return out;
  let rest = line;
  if (isRst || line.includes(':`')) {
    rest = rest.replace(ROLE_RE, (all, role, content) => {
      const t = classifySpan(content, { fromRole: true });
      if (t) out.push(t);
      return ' ';
    });
  }
  // code spans: `x`, ``x``
  rest = rest.replace(/(`+)([^`]+?)\1(_{0,2})/g, (all, ticks, content, link) => {
    if (isRst && ticks.length === 1) return ' '; // rst interpreted text / links
    if (link) return ' ';
    const t = classifySpan(content);
    if (t) out.push(t);
    // flags / env inside spans with spaces are picked up below from the original line
    return ' ' + content + ' ';
  });
  // flags anywhere
  const extFlags = new Set();
  for (const m of line.matchAll(/(?:^|[\s`'"(\[=,|])(--[A-Za-z][A-Za-z0-9-]*[A-Za-z0-9])(?![\w])/g)) {
    if (externalCommandBefore(line, m.index)) extFlags.add(m[1]);
    else out.push({ kind: 'flag', value: m[1] });
  }
  for (let i = out.length - 1; i >= 0; i--) if (out[i].kind === 'flag' && extFlags.has(out[i].value)) out.splice(i, 1);
  // $ENV anywhere, ENV_VAR= anywhere
  for (const m of line.matchAll(/\$\{?([A-Z][A-Z0-9_]*[A-Z0-9])\b/g)) out.push({ kind: 'env', value: m[1] });
  for (const m of line.matchAll(/(?:^|[^\w$])([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)=/g)) out.push({ kind: 'env', value: m[1] });
  // dedupe + length/stop filter
  const seen = new Set();
  return out.filter((t) => {
    const k = t.kind + ':' + t.value;
    if (seen.has(k)) return false;
    seen.add(k);
    if (t.kind === 'flag') {
      const name = t.value.slice(2);
      return name.length >= 3 && !isStop(name);
    }
    if (t.kind === 'env' && /^(YOUR|MY|SOME|OTHER|EXAMPLE)_/.test(t.value)) return false;
    if (t.kind === 'env') return t.value.length >= 3 && !/^(HOME|PATH|USER|PWD|SHELL|TERM|LANG|TMPDIR|EDITOR|CI|GOPATH|GOROOT|NODE_ENV|NODE_OPTIONS|PYTHONPATH|VIRTUAL_ENV|LD_LIBRARY_PATH|XDG_\w+|GITHUB_\w+|HTTP_PROXY|HTTPS_PROXY|NO_PROXY|CARGO_\w+|RUST_\w+|GOOS|GOARCH|CGO_ENABLED|GO111MODULE|GOPROXY|GOFLAGS|PYTHON\w*|PIP_\w+|NPM_\w+|TOKEN|API_KEY|SECRET_KEY)$/.test(t.value);
    if (t.kind === 'identifier') return !isStop(t.value);
    return true;
  });
}

function escapeERE(s) {
  return s.replace(/[.[\]()*+?^${}|\\]/g, '\\$&');
}
function wordRe(s) {
  return new RegExp('(^|[^A-Za-z0-9_])' + s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&') + '(?![A-Za-z0-9_])');
}

// ---------------------------------------------------------------- existence in code
const existsCache = new Map();
function grepExists(commit, variants, spec = NONDOC) {
  const key = commit + '\0' + (spec === NONDOC ? 'n' : 's') + '\0' + variants.join('\0');
  if (existsCache.has(key)) return existsCache.get(key);
  const args = ['grep', '-q', '-I', '-w', '-F'];
  for (const v of variants) args.push('-e', v);
  args.push(commit, '--', ...spec);
  const r = git(args);
  const ok = r.status === 0;
  existsCache.set(key, ok);
  return ok;
}

// spellings under which a CLI flag can be defined in code. Multi-word names
// (foo-bar) also match foo_bar / fooBar; single-word names only match quoted or
// dashed forms, so prose words ("--though") never count as a definition.
function flagVariants(flagTok) {
  const name = flagTok.slice(2);
  const vs = new Set();
  const add = (n) => {
    vs.add('--' + n);
    vs.add(`"${n}"`);
    vs.add(`'${n}'`);
    if (n.includes('-')) [n, n.replace(/-/g, '_'), camel(n)].forEach((v) => vs.add(v));
  };
  add(name);
  if (name.startsWith('no-') && name.length >= 6) add(name.slice(3));
  return [...vs];
}

const treeCache = new Map();
function treeFiles(commit) {
  if (treeCache.has(commit)) return treeCache.get(commit);
  const r = git(['ls-tree', '-r', '--name-only', '-z', commit]);
  const s = new Set(r.stdout.split('\0').filter(Boolean));
  const dirs = new Set();
  for (const f of s) {
    const parts = f.split('/');
    for (let i = 1; i < parts.length; i++) dirs.add(parts.slice(0, i).join('/'));
  }
  const v = { files: s, dirs };
  if (treeCache.size > 4) treeCache.clear();
  treeCache.set(commit, v);
  return v;
}

function normPath(p) {
  const out = [];
  for (const seg of p.split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') {
      if (!out.length) return null;
      out.pop();
    } else out.push(seg);
  }
  return out.join('/');
}

function pathCandidates(tok, doc) {
  const docDir = doc.includes('/') ? doc.slice(0, doc.lastIndexOf('/')) : '';
  const c = new Set();
  const a = normPath(tok);
  if (a) c.add(a);
  if (docDir) {
    const b = normPath(docDir + '/' + tok);
    if (b) c.add(b);
  }
  return [...c];
}

// python-style module path for dotted tokens: returns {gone, removed_in} or null
function pyModulePathGone(segs, parent) {
  if (segs.length < 2) return null;
  const t = treeFiles(parent);
  const isMod = (p) => {
    for (const f of [p + '.py', p + '.pyi', p + '/__init__.py']) {
      if (t.files.has(f)) return true;
      for (const pre of ['src/', 'lib/']) if (t.files.has(pre + f)) return true;
    }
    return false;
  };
  // longest module prefix existing at parent
  let longest = 0;
  for (let k = segs.length; k >= 1; k--) {
    if (isMod(segs.slice(0, k).join('/'))) {
      longest = k;
      break;
    }
  }
  if (longest >= segs.length - 1) return { gone: false };
  if (longest === 0) return null; // not a module path of this repo at all
  const missing = segs.slice(0, longest + 1).join('/');
  const specs = [];
  for (const pre of ['', 'src/', 'lib/']) specs.push(pre + missing + '.py', pre + missing + '/__init__.py');
  const r = git(['log', '-1', '--format=%H', '--diff-filter=DR', parent, '--', ...specs]);
  const sha = r.stdout.trim();
  if (!sha) return null;
  return { gone: true, removed_in: sha };
}

// find the commit that removed T (variants) from code, between an anchor and parent
function findRemoval(parent, variants, anchors) {
  let anchor = null;
  for (const a of anchors) {
    if (a && grepExists(a, variants, SOURCE)) {
      anchor = a;
      break;
    }
  }
  if (!anchor) return null;
  const re = '(^|[^A-Za-z0-9_])(' + variants.map(escapeERE).join('|') + ')([^A-Za-z0-9_]|$)';
  const r = git(['log', '--format=%H', '-G' + re, `${anchor}..${parent}`, '--', ...SOURCE]);
  const cands = r.stdout.split('\n').filter(Boolean).slice(0, 8);
  for (const x of cands) {
    if (grepExists(x + '^', variants, SOURCE) && !grepExists(x, variants, SOURCE)) return x;
  }
  return null;
}

function anchorsFor(parent, doc, line, blameOnly = false) {
  const out = [];
  const b = git(['blame', '--porcelain', '-L', `${line},${line}`, parent, '--', doc]);
  const sha = (b.stdout.match(/^([0-9a-f]{40})/) || [])[1];
  if (sha) out.push(sha);
  if (blameOnly) return out;
  const t = Number(git(['log', '-1', '--format=%ct', parent]).stdout.trim());
  for (const days of [30, 120, 365, 730, 1460]) {
    const r = git(['rev-list', '-1', '--first-parent', `--before=${t - days * 86400}`, parent]);
    const s = r.stdout.trim();
    if (s && !out.includes(s)) out.push(s);
  }
  return out;
}

// ---------------------------------------------------------------- HEAD word set (prefilter)
function headWords() {
  const r = git(['grep', '-h', '-o', '-I', '-w', '-E', '[A-Za-z_][A-Za-z0-9_]{2,}', 'HEAD', '--', ...NONDOC]);
  const s = new Set();
  let i = 0;
  const out = r.stdout;
  while (i < out.length) {
    let j = out.indexOf('\n', i);
    if (j < 0) j = out.length;
    s.add(out.slice(i, j));
    i = j + 1;
  }
  return s;
}

// ---------------------------------------------------------------- diff parsing
function parseDocDiffs(text) {
  // returns Map sha -> Map doc -> {minus:[{line,text}], plus:[text]}
  const res = new Map();
  let cur = null;
  let doc = null;
  let oldLine = 0;
  let inHunk = false;
  for (const l of text.split('\n')) {
    if (l.startsWith('\x01')) {
      cur = new Map();
      res.set(l.slice(1).trim(), cur);
      doc = null;
      continue;
    }
    if (!cur) continue;
    if (l.startsWith('diff --git ')) {
      doc = null;
      inHunk = false;
      continue;
    }
    if (!inHunk && l.startsWith('--- ')) {
      const p = l.slice(4);
      doc = p === '/dev/null' ? null : p.replace(/^a\//, '');
      if (doc && !cur.has(doc)) cur.set(doc, { minus: [], plus: [] });
      continue;
    }
    if (!inHunk && l.startsWith('+++ ')) continue;
    if (l.startsWith('@@')) {
      inHunk = true;
      const m = l.match(/^@@ -(\d+)(?:,(\d+))? \+/);
      oldLine = m ? Number(m[1]) : 0;
      continue;
    }
    if (!doc || !inHunk) continue;
    const d = cur.get(doc);
    if (l.startsWith('-')) {
      d.minus.push({ line: oldLine, text: l.slice(1) });
      oldLine++;
    } else if (l.startsWith('+')) {
      d.plus.push(l.slice(1));
    }
  }
  return res;
}

// ---------------------------------------------------------------- main
function main() {
  const head = git(['rev-parse', 'HEAD'], { allowFail: false }).stdout.trim();
  let language = LANG_OPT;
  if (!language) {
    const files = git(['ls-tree', '-r', '--name-only', 'HEAD']).stdout.split('\n');
    const cnt = { python: 0, javascript: 0, typescript: 0, go: 0, rust: 0 };
    for (const f of files) {
      if (/node_modules|vendor|test/.test(f)) continue;
      if (f.endsWith('.py')) cnt.python++;
      else if (/\.(js|mjs|cjs)$/.test(f)) cnt.javascript++;
      else if (/\.(ts|tsx|mts)$/.test(f) && !f.endsWith('.d.ts')) cnt.typescript++;
      else if (f.endsWith('.go')) cnt.go++;
      else if (f.endsWith('.rs')) cnt.rust++;
    }
    language = Object.entries(cnt).sort((a, b) => b[1] - a[1])[0][0];
  }
  if (!ALL_BRANCHES) {
    const fp = Number(git(['rev-list', '--count', '--first-parent', '--no-merges', `--since=${SINCE}`, 'HEAD']).stdout.trim());
    const all = Number(git(['rev-list', '--count', '--no-merges', `--since=${SINCE}`, 'HEAD']).stdout.trim());
    if (all > 0 && fp / all < 0.35) {
      ALL_BRANCHES = true;
      log(`[${REPO}] first-parent covers ${fp}/${all} commits: walking all branches`);
    }
  }
  const walk = ALL_BRANCHES ? [] : ['--first-parent'];

  // pass 1: commits with name-status
  log(`[${REPO}] listing commits...`);
  const ns = git(['log', ...walk, '--no-merges', `--since=${SINCE}`, '--no-renames', '--format=\x01%H %P%x09%ct%x09%s', '--name-status', 'HEAD']).stdout;
  const commits = [];
  let c = null;
  for (const l of ns.split('\n')) {
    if (l.startsWith('\x01')) {
      const [hp, ct, ...subj] = l.slice(1).split('\t');
      const [sha, parent] = hp.split(' ');
      c = { sha, parent, time: Number(ct), subject: subj.join('\t'), files: [], docs: [] };
      commits.push(c);
    } else if (c && l.trim()) {
      const [st, p] = l.split('\t');
      c.files.push(p);
      if (st === 'M' && isDoc(p)) c.docs.push(p);
    }
  }
  const cand = commits.filter((x) => x.parent && x.docs.length && x.files.length <= MAX_FILES);
  log(`[${REPO}] ${commits.length} commits, ${cand.length} candidates touching docs`);
  const bySha = new Map(cand.map((x) => [x.sha, x]));

  // pass 2: doc diffs (-U0), in one streaming git log, restricted to doc-ish paths
  const docSpecs = ['*.md', '*.mdx', '*.markdown', '*.rst', '*.txt', ':(glob)**/README', 'README'];
  const diffText = git(['log', ...walk, '--no-merges', `--since=${SINCE}`, '--no-renames', '-U0', '--no-color', '--format=\x01%H', '-p', 'HEAD', '--', ...docSpecs]).stdout;
  const diffs = parseDocDiffs(diffText);
  log(`[${REPO}] parsed diffs of ${diffs.size} commits`);

  log(`[${REPO}] building HEAD word set...`);
  const HEADW = headWords();
  log(`[${REPO}] ${HEADW.size} words at HEAD`);

  const scenarios = [];
  let n = 0;
  for (const cm of cand) {
    n++;
    if (n % 200 === 0) log(`[${REPO}] ${n}/${cand.length} commits, ${scenarios.length} scenarios`);
    const dd = diffs.get(cm.sha);
    if (!dd) continue;
    for (const doc of cm.docs) {
      const d = dd.get(doc);
      if (!d || !d.minus.length) continue;
      const isRst = /\.rst$/i.test(doc);
      const plusText = d.plus.join('\n');
      const plusSet = new Set(d.plus.map((s) => s.trim()));
      const kept = [];
      const seenTok = new Set();
      const extFlags = new Set();
      for (const l of [...d.minus.map((m) => m.text), ...d.plus]) {
        for (const m of l.matchAll(/(?:^|[\s`'"(\[=,|])(--[A-Za-z][A-Za-z0-9-]*[A-Za-z0-9])(?![\w])/g)) {
          if (externalCommandBefore(l, m.index)) extFlags.add(m[1]);
        }
      }
      for (const ml of d.minus) {
        if (plusSet.has(ml.text.trim())) continue; // line re-added verbatim (moved)
        for (const tok of extractTokens(ml.text, isRst)) {
          const key = tok.kind + ':' + tok.value;
          if (seenTok.has(key)) continue;
          seenTok.add(key);
          if (tok.kind === 'flag' && extFlags.has(tok.value)) continue;
          // rule 1: not re-added on + lines
          if (wordRe(tok.value).test(plusText)) continue;
          const r = checkToken(cm, doc, ml.line, tok, HEADW);
          if (r) kept.push({ kind: tok.kind, value: tok.value, line: ml.line, removed_in: r.removed_in });
        }
      }
      if (kept.length) {
        scenarios.push({
          id: `${REPO.replace('/', '+')}@${cm.sha.slice(0, 10)}`,
          repo: REPO,
          language,
          fix: cm.sha,
          parent: cm.parent,
          subject: cm.subject.length > 72 ? cm.subject.slice(0, 71) + '…' : cm.subject,
          doc,
          tokens: kept,
          _time: cm.time,
        });
        log(`  + ${cm.sha.slice(0, 10)} ${doc}: ${kept.map((k) => k.value).join(', ')}`);
      }
    }
  }
  log(`[${REPO}] ${scenarios.length} raw scenarios`);
  const picked = select(scenarios);
  // disambiguate ids when one commit fixed several docs
  const idCount = new Map();
  for (const s of picked) idCount.set(s.id, (idCount.get(s.id) || 0) + 1);
  const out = picked
    .sort((a, b) => a._time - b._time)
    .map(({ _time, ...s }) => ({ ...s, date: new Date(_time * 1000).toISOString().slice(0, 10) }));
  process.stdout.write(JSON.stringify(out, null, 2) + '\n');
  log(`[${REPO}] ${out.length} scenarios selected (head ${head.slice(0, 10)})`);
}

const STATS = {};
const bump = (k) => (STATS[k] = (STATS[k] || 0) + 1);
function checkToken(cm, doc, line, tok, HEADW) {
  const r = checkToken0(cm, doc, line, tok, HEADW);
  if (process.env.DRIFT_DEBUG) log(`    ${r ? 'KEEP' : 'drop'} ${tok.kind} ${tok.value} @${cm.sha.slice(0, 8)} ${STATS._last || ''}`);
  return r;
}
function checkToken0(cm, doc, line, tok, HEADW) {
  STATS._last = '';
  const parent = cm.parent;
  if (tok.kind === 'identifier' || tok.kind === 'env') {
    if (HEADW.has(tok.value)) return (STATS._last = 'head'), null;
    if (grepExists(parent, [tok.value])) return (STATS._last = 'parent'), null;
    STATS._last = 'noremoval';
    const rm = findRemoval(parent, [tok.value], anchorsFor(parent, doc, line));
    return rm ? { removed_in: rm } : null;
  }
  if (tok.kind === 'flag') {
    const vs = flagVariants(tok.value);
    if (vs.some((v) => /^[A-Za-z0-9_]+$/.test(v) && HEADW.has(v))) return (STATS._last = 'head'), null;
    if (grepExists(parent, vs)) return (STATS._last = 'parent'), null;
    STATS._last = 'noremoval';
    const rm = findRemoval(parent, vs, anchorsFor(parent, doc, line));
    return rm ? { removed_in: rm } : null;
  }
  if (tok.kind === 'path') {
    const cands = pathCandidates(tok.value, doc);
    if (!cands.length) return null;
    const t = treeFiles(parent);
    if (cands.some((p) => t.files.has(p) || t.dirs.has(p))) return null;
    // also a path that still exists under another prefix (e.g. packages/x/<tok>)
    for (const f of t.files) if (f.endsWith('/' + cands[0])) return null;
    const r = git(['log', '-1', '--format=%H', '--diff-filter=D', '--no-renames', parent, '--', ...cands]);
    const sha = r.stdout.trim();
    if (!sha) return null;
    // the doc line must have been written while the file existed (not a user's file)
    const anchor = anchorsFor(parent, doc, line, true)[0];
    if (!anchor || git(['merge-base', '--is-ancestor', anchor, sha]).status !== 0) return null;
    return { removed_in: sha };
  }
  // dotted / config_key
  const sep = tok.value.includes('::') ? '::' : '.';
  const segs = tok.value.split(sep);
  const leaf = segs[segs.length - 1];
  if (grepExists(parent, [tok.value])) return (STATS._last = 'parent'), null;
  STATS._last = 'leaf';
  const leafOk = leaf.length >= 3 && !isStop(leaf);
  if (leafOk && !HEADW.has(leaf) && !grepExists(parent, [leaf])) {
    const rm = findRemoval(parent, [leaf], anchorsFor(parent, doc, line));
    return rm ? { removed_in: rm } : null;
  }
  if (sep === '.' && cm && language_isPythonish(tok)) {
    const mp = pyModulePathGone(segs, parent);
    if (mp && mp.gone) return { removed_in: mp.removed_in };
  }
  return null;
}
function language_isPythonish(tok) {
  return /^[a-z_][a-z0-9_]*(\.[a-z_][a-z0-9_]*)+(\.[A-Za-z_]\w*)?$/.test(tok.value);
}

// at most PER_YEAR per calendar year, MAX in all, spread over time, prefer distinct docs
function select(all) {
  const byYear = new Map();
  for (const s of all) {
    const y = new Date(s._time * 1000).getUTCFullYear();
    if (!byYear.has(y)) byYear.set(y, []);
    byYear.get(y).push(s);
  }
  const usedDocs = new Set();
  const perYear = new Map();
  for (const [y, list] of byYear) {
    // score: distinct doc first, then number of tokens
    list.sort((a, b) => b.tokens.length - a.tokens.length || a._time - b._time);
    const chosen = [];
    const docsHere = new Set();
    for (const pass of [0, 1]) {
      for (const s of list) {
        if (chosen.length >= PER_YEAR) break;
        if (chosen.includes(s)) continue;
        if (pass === 0 && (docsHere.has(s.doc) || usedDocs.has(s.doc))) continue;
        chosen.push(s);
        docsHere.add(s.doc);
      }
    }
    chosen.forEach((s) => usedDocs.add(s.doc));
    perYear.set(y, chosen);
  }
  // round-robin over years up to MAX
  const years = [...perYear.keys()].sort();
  const out = [];
  let i = 0;
  while (out.length < MAX) {
    let added = false;
    for (const y of years) {
      const l = perYear.get(y);
      if (l.length > i && out.length < MAX) {
        out.push(l[i]);
        added = true;
      }
    }
    if (!added) break;
    i++;
  }
  return out;
}

main();
