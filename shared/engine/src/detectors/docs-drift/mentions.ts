/**
 * What a doc says about the code: the names, file paths, CLI flags, environment variables and config
 * keys it mentions, each with its line and column. Extraction is deliberately narrow: a word counts
 * only when its shape says "code" (backticks plus camelCase, snake_case, a call or a member access;
 * `--flag`; `$VAR`; a relative link), because a mention that is plain English can never be checked
 * against the repository and only costs git calls later.
 */
import * as path from 'node:path';
import { detectLanguage, type Language } from '@sous/retrieval';
import { foreignFlag, promptCommand } from './programs';

/** `module_path`: a dotted Python path (`pkg.mod.func`); kept only when `pkg` is a package of this repository. */
export type MentionKind = 'identifier' | 'path' | 'flag' | 'env' | 'config_key' | 'module_path';

/** One place a doc mentions something. */
export interface Mention {
  kind: MentionKind;
  /**
   * What is mentioned, normalised: the bare name (`open` for `Store.open()`), a repository-relative
   * path (links resolved against the doc's folder), `--flag`, the variable name without `$`, the
   * dotted key.
   */
  value: string;
  /** The text as written at `column` that a fix would replace (a link target as written, a name). */
  raw: string;
  /** 1-based. */
  line: number;
  /** 0-based offset of `raw` in the line. */
  column: number;
  /** A link's target (`[text](path)`, an image, a reST link): the doc renders it as a link that breaks. */
  link?: true;
  /**
   * A name written as (or inside) the text of a link to a web address (`[`initialData`](https://tanstack.com/…)`):
   * that address. Whether the address is the project's own is known only once its modules are.
   */
  href?: string;
}

/** Extensions of prose files; `.md`/`.mdx` are also recognised by the index's `markdown` language. */
const DOC_EXTENSIONS: ReadonlySet<string> = new Set(['.md', '.mdx', '.markdown', '.rst', '.txt']);

/** Whether a file is prose documentation (markdown, reStructuredText, plain text). */
export function isDocFile(filePath: string, language?: Language): boolean {
  return language === 'markdown' || DOC_EXTENSIONS.has(path.posix.extname(filePath).toLowerCase());
}

/**
 * A tutorial that has the reader create files ("Create a file named `src/app/store.js`", "create
 * `src/main.rs`"): the files it names in backticks are the reader's project's (react-redux's quick
 * start puts a `<Provider>` in the reader's `src/index.js`), not the repository's.
 */
const CREATES_FILE = /\b(?:create|add)\s+(?:a\s+|an\s+|the\s+)?(?:new\s+)?(?:file|module)\s+(?:named|called)\s+`[^`\s]+`|\bcreate\s+`[^`\s]+\.[A-Za-z0-9]+`/i;

/** Whether a doc has its reader create files of their own (see CREATES_FILE). */
export function readerCreatesFiles(text: string): boolean {
  return CREATES_FILE.test(text);
}

/** Folders where plain text is documentation. */
const TEXT_DOC_FOLDERS = /^(?:docs?|documentation|guides?|manual|man|help|book)$/i;
/** Names of plain-text files that are documentation wherever they are (`README.txt`, `INSTALL.txt`). */
const TEXT_DOC_NAMES = /^(?:readme|contributing|install(?:ing|ation)?|hacking|usage|faq|getting[-_]started|tutorial|howto)(?:[-_.][\w.-]*)?\.txt$/i;

/**
 * Whether docs drift reads a doc file as the project's prose. Markdown and reStructuredText always;
 * plain text only in a docs folder or under a README-like name: elsewhere a `.txt` is data
 * (`requirements.txt`, `CMakeLists.txt`, maturin's recorded `sysconfig/cpython-*.txt` whose
 * `--host` was CPython's configure flag).
 */
export function isProseDoc(filePath: string, language?: Language): boolean {
  if (!isDocFile(filePath, language)) return false;
  if (language === 'markdown' || path.posix.extname(filePath).toLowerCase() !== '.txt') return true;
  const segments = filePath.split('/');
  return segments.slice(0, -1).some((s) => TEXT_DOC_FOLDERS.test(s)) || TEXT_DOC_NAMES.test(segments[segments.length - 1] ?? '');
}

/**
 * Docs that record history rather than describe the code: changelogs, release notes, news, migration
 * and upgrade guides, proposals and decision records (PEPs, SEPs, RFCs, ADRs: a design as it was
 * agreed), plans, roadmaps and inventories (the code as it was before a refactor, on purpose), and
 * anything named by a date or a version (`2021-05-03-…`, `release_2.5.rst`, `v1.2.md`), and pages put
 * aside in a folder of their own (`__unused/`, `archive/`).
 * They are meant to name old code, so they are never drift.
 */
const HISTORY_SEGMENT = /^(?:v?\d+(?:\.(?:\d+|x))*[-_.]|_)?(?:change(?:s|log|logs)?|\.change(?:s|sets?)|history|news(?:fragments?)?|release[-_ ]?notes?|releases?|whats?[-_ ]?new|migrat\w*|upgrad\w*|deprecat\w*|blog|posts?|announcements?|authors|contributors|versioned[-_](?:docs|sidebars)|[ps]eps?|peeps?|rfcs?|adrs?|(?:enhancement[-_ ])?proposals?|decisions?|roadmaps?|initiatives?)(?:[-_.]|$)/i;
/** A doc file's extension (DOC_EXTENSIONS) at the end of a name, for the name patterns below. */
const DOC_END = `\\.(?:${[...DOC_EXTENSIONS].map((e) => e.slice(1)).join('|')})$`;
/**
 * History named by a file's end: a changelog (`BFG_HISTORY.rst`, `OLD-CHANGES.txt`), a plan, roadmap
 * or inventory (`modernization-plan.md`, `initiative-d-inventory.md`, `TODO.md`, terratest's 2018
 * `REFACTOR.md`: what was meant or found at the time), a towncrier news fragment (`1853.breakingchange.rst`; by its types, so that a
 * numbered page such as `2.installation.md` is not one).
 */
const HISTORY_NAME = new RegExp(
  [
    `[-_](?:history|changes|changelog|news)${DOC_END}`,
    `(?:^|[-_])(?:plan|planning|roadmap|proposal|inventory|todo|refactor)${DOC_END}`,
    `^\\d+\\.(?:feature|bugfix|fix|doc|docs|removal|deprecation|breaking|breakingchange|misc|trivial|change|added|changed|removed|security|improvement|packaging|vendor|contrib)(?:\\.\\d+)?${DOC_END}`,
  ].join('|'),
  'i',
);
/** A section heading that introduces history inside an ordinary doc ("Breaking changes", "Changelog"). */
const HISTORY_HEADING = /\b(?:change ?log|changes in|breaking changes?|release notes?|what'?s new|migrat\w*|upgrad\w*|deprecat\w*|histor(?:y|ic|ical)|renamed|removed)\b/i;
/** A folder named by a day (`loadtesting/2016-09-06/`): a report of that day. */
const DATED_FOLDER = /^(?:19|20)\d\d-(?:0[1-9]|1[0-2])-\d\d$/;
/** A folder of pages put aside (dioxus's `docs/guide/src/en/__unused/`, an `archive/`): kept as they were. */
const SET_ASIDE_FOLDER = /^_{0,2}(?:unused|obsolete|outdated|archived?|attic|graveyard)$/i;
const DATED = /(?:^|[^\d])(?:19|20)\d\d[-_.]?(?:0[1-9]|1[0-2])(?:[-_.]?\d\d)?(?:[^\d]|$)/;
const VERSIONED = new RegExp(`(?:^|[-_ .v])v?\\d+[._]\\d+(?:[._]\\d+)*(?:[-_.]?(?:rc|beta|alpha|b|a)\\d*)?${DOC_END}`, 'i');

/** Whether a doc records history (see HISTORY_SEGMENT): never checked for drift. */
export function isHistoryDoc(filePath: string): boolean {
  const segments = filePath.split('/');
  const base = segments[segments.length - 1] ?? '';
  const folder = (i: number): boolean => i < segments.length - 1;
  if (segments.some((s, i) => HISTORY_SEGMENT.test(s) || DATED_FOLDER.test(s) || (folder(i) && SET_ASIDE_FOLDER.test(s)))) return true;
  return DATED.test(base) || VERSIONED.test(base) || HISTORY_NAME.test(base);
}

/**
 * A status line near the top (`Status: Rejected`, `**Status**: Draft`, `| Status | Won't implement |`,
 * front matter's `status: accepted`) marks a proposal or a decision record wherever it is kept.
 */
const STATUS_LINE = /^[\s>*_#|-]*status[\s*_]*[:|][\s*_`]*(?:draft|proposed|proposal|accepted|approved|rejected|declined|withdrawn|superseded|deferred|postponed|abandoned|obsolete|implemented|final|active|in[- ]progress|under (?:review|discussion)|won'?t (?:implement|fix|do)|not (?:implemented|planned))\b/im;
/** How far from the top a status line may sit (a title, front matter, a metadata table). */
const STATUS_LINES = 40;

/** Whether a doc's text says it is a proposal or a decision record (see STATUS_LINE): history. */
export function isRecordedDecision(text: string): boolean {
  return STATUS_LINE.test(text.split('\n', STATUS_LINES).join('\n'));
}

/** "These v4 docs are no longer maintained", "This documentation is outdated", "You are viewing the docs for an older version". */
const UNMAINTAINED_DOCS = String.raw`(?:these|this|the)\s+(?:[\w.@/-]+\s+){0,3}(?:docs|documentation|pages?|guides?|site|website)\s+(?:is|are)\s+(?:no longer (?:maintained|updated|supported)|(?:now\s+)?(?:outdated|out of date|deprecated|obsolete|archived|unmaintained)\b)|(?:you are|you're) (?:reading|viewing|looking at) (?:the )?(?:docs|documentation) (?:for|of) (?:an? )?(?:older|previous|old|legacy|outdated)\b`;
/**
 * The opening of a page about something deprecated: `*Deprecated starting in version …*`, "This option
 * is deprecated", `.. deprecated::`, `!!! warning "Deprecated"`; or of a page kept for an older
 * release: ":::warning These XState v4 docs are no longer maintained", "You are reading the
 * documentation for an older version".
 */
const DEPRECATED_OPENING = new RegExp(
  String.raw`^[\s>*_!:.\-[]*(?:(?:warning|caution|note|danger|important)\W+)?(?:deprecated\b|this (?:option|setting|function|method|class|module|command|page|api|feature|plugin|package)\s+(?:is|has been)\s+(?:deprecated|removed|obsolete)\b|${UNMAINTAINED_DOCS})`,
  'i',
);
/** Lines before the first prose that never count: blank, headings, front matter, `*Since: …*` stamps. */
const PAGE_PREAMBLE = /^\s*(?:$|#|---|[\w-]+:\s|[=\-~^"'`*+]{3,}\s*$|\*?since\b.*\*?$|\{\{.*\}\}\s*$)/i;

/**
 * Whether a page opens by saying that what it documents is deprecated (see DEPRECATED_OPENING), in
 * one of its first three prose lines: it documents an old option on purpose, for those still on it.
 */
export function isDeprecatedPage(text: string): boolean {
  let prose = 0;
  for (const line of text.split('\n', 60)) {
    if (PAGE_PREAMBLE.test(line) && !DEPRECATED_OPENING.test(line)) continue;
    if (DEPRECATED_OPENING.test(line)) return true;
    if (++prose >= 3) return false;
  }
  return false;
}

/** A folder named by a version: `v1`, `v2.x`, `1.x`, `version-2`, Docusaurus's `version-0.18.0` (the patch level is ignored). */
const VERSION_FOLDER = /^(?:v|version[-_]?)?(\d+)(?:\.(\d+|x))?(?:\.(?:\d+|x))?$/i;

/**
 * Docs kept for older major versions beside the current one (`docs/v1`, `docs/v2` next to `docs/v3`):
 * of sibling version folders the highest is current, the others document releases that still have
 * the old names. Returns a predicate over paths.
 */
export function olderVersionDocs(paths: readonly string[]): (filePath: string) => boolean {
  const highest = new Map<string, number>(); // parent folder → highest version among its version folders
  const versionOf = (segment: string): number | undefined => {
    const m = VERSION_FOLDER.exec(segment);
    return m === null ? undefined : Number(m[1]) * 1000 + (m[2] === undefined || m[2] === 'x' ? 0 : Number(m[2]));
  };
  const seen = new Set<string>();
  for (const p of paths) {
    const segments = p.split('/');
    for (let i = 0; i < segments.length - 1; i++) {
      const key = segments.slice(0, i + 1).join('/');
      if (seen.has(key)) continue;
      seen.add(key);
      const version = versionOf(segments[i] ?? '');
      if (version === undefined) continue;
      const parent = segments.slice(0, i).join('/');
      highest.set(parent, Math.max(highest.get(parent) ?? -1, version));
    }
  }
  return (filePath) => {
    const segments = filePath.split('/');
    for (let i = 0; i < segments.length - 1; i++) {
      const version = versionOf(segments[i] ?? '');
      if (version !== undefined && version < (highest.get(segments.slice(0, i).join('/')) ?? version)) return true;
    }
    return false;
  };
}

/** What an API-client generator leaves in the folder it writes (openapi-generator, swagger-codegen). */
const GENERATOR_MARKS = new Set(['.openapi-generator', '.openapi-generator-ignore', '.swagger-codegen', '.swagger-codegen-ignore']);

/**
 * Folders written by an API-client generator: the one holding its marks (`.openapi-generator/`,
 * `.openapi-generator-ignore`) and everything under it. Their README and `docs/` are regenerated
 * with the client (ory/kratos's Makefile deletes the client's `docs/` before each run), so a link
 * there to a page gone since is the generator's business, not a doc left behind. Returns a predicate over paths.
 */
export function generatedClients(paths: readonly string[]): (filePath: string) => boolean {
  const roots = new Set<string>();
  for (const p of paths) {
    // Every path of the tree passes here each cycle: split only the few that can hold a mark.
    if (!p.includes('.openapi-generator') && !p.includes('.swagger-codegen')) continue;
    const segments = p.split('/');
    const mark = segments.findIndex((seg) => GENERATOR_MARKS.has(seg));
    if (mark >= 0) roots.add(mark === 0 ? '' : `${segments.slice(0, mark).join('/')}/`);
  }
  if (roots.size === 0) return () => false;
  const prefixes = [...roots];
  return (filePath) => prefixes.some((root) => filePath.startsWith(root));
}

/** A folder of translated pages: `fr`, `zh`, `zh-CN`, `pt_BR`, `zh-hans`. */
const LOCALE_FOLDER = /^[a-z]{2}(?:[-_](?:[a-z]{2}|hans|hant))?$/i;
/** How many of a folder's pages must open as deprecated, and what share of its untranslated pages, for the whole folder to be history. */
const UNMAINTAINED_SITE_PAGES = 5;
const UNMAINTAINED_SITE_SHARE = 2 / 3;

/**
 * Docs sites kept for an older release: a folder most of whose pages open by saying they are no
 * longer maintained or deprecated (isDeprecatedPage), like xstate's v4 site under `docs/`. Its other
 * pages (an index, a FAQ) and its translations (`docs/fr/…`, which carry no banner of their own) are
 * the same old site. The share is taken over the folder's untranslated pages, so that translations do
 * not dilute it. `deprecated` holds the pages that open so. Returns a predicate over paths.
 */
export function unmaintainedSites(docs: readonly string[], deprecated: ReadonlySet<string>): (filePath: string) => boolean {
  const pages = new Map<string, number>(); // folder → its untranslated pages
  const marked = new Map<string, number>(); // folder → those of them that open as deprecated
  for (const doc of docs) {
    const segments = doc.split('/');
    // A translated page counts only for its locale folder and the folders inside it.
    const locale = segments.findIndex((seg, i) => i < segments.length - 1 && LOCALE_FOLDER.test(seg));
    for (let i = Math.max(1, locale + 1); i < segments.length; i++) {
      const folder = segments.slice(0, i).join('/');
      pages.set(folder, (pages.get(folder) ?? 0) + 1);
      if (deprecated.has(doc)) marked.set(folder, (marked.get(folder) ?? 0) + 1);
    }
  }
  const sites = [...marked].filter(([folder, n]) => n >= UNMAINTAINED_SITE_PAGES && n >= UNMAINTAINED_SITE_SHARE * (pages.get(folder) ?? Infinity)).map(([folder]) => `${folder}/`);
  return (filePath) => sites.some((site) => filePath.startsWith(site));
}

/**
 * Docusaurus's frozen copies of a translation at a release: a numbered `version-…` folder beside the
 * translation's `current` folder (`versioned_docs/` itself is history, see isHistoryDoc). Such a copy
 * documents its release: a name removed after the copy was made is still right there. Returns a
 * predicate over paths.
 */
export function docSnapshots(paths: readonly string[]): (filePath: string) => boolean {
  const withCurrent = new Set<string>(); // folders that hold a `current` folder
  for (const p of paths) {
    const segments = p.split('/');
    const i = segments.indexOf('current');
    if (i > 0) withCurrent.add(segments.slice(0, i).join('/'));
  }
  return (filePath) => {
    const segments = filePath.split('/');
    return segments.slice(0, -1).some((segment, i) => /^version[-_]/i.test(segment) && VERSION_FOLDER.test(segment) && withCurrent.has(segments.slice(0, i).join('/')));
  };
}

/** The words by which a doc says a thing it names was taken away: "renamed", "was named", "was removed". */
const TAKEN_AWAY = String.raw`renamed|(?:was|were) (?:called|named)|(?:was|were|been) removed|removed (?:in|with|as of|since) (?:[a-z][\w.-]*\s+)?v?\d`;

/**
 * A line that names an old thing on purpose: "renamed", "was named", "was removed", "formerly", "deprecated",
 * "no longer", "not needed anymore", "legacy", "before v0.34", "from 2.0 onwards": its names are history, not drift.
 */
const HISTORY_LINE = new RegExp(
  String.raw`\b(?:${TAKEN_AWAY}|there (?:was|were)|merged into|formerly|previously|used to be|no longer|not (?:needed|required|necessary) any ?more|deprecated|deprecation|legacy|older versions?|(?:before|prior to|until|up to)\s+(?:[\w.-]+\s+)?v?\d+\.\d+|v?\d+\.\d+(?:\.\d+)?\s+(?:and\s+)?onwards)\b`,
  'i',
);

/** Words by which a doc says a thing it names was taken away (TAKEN_AWAY, "replaced by", "no longer exists"): fewer than HISTORY_LINE's. */
const ACKNOWLEDGES = new RegExp(String.raw`\b(?:${TAKEN_AWAY}|replaced by|no longer (?:exists?|available|supported))\b`, 'i');

/** The open fence after a fence line: it opens one, closes the open one (same char, as long), or is inside it. */
function fenceAfter(fence: string | null, marker: string): string | null {
  if (fence === null) return marker;
  return marker[0] === fence[0] && marker.length >= fence.length ? null : fence;
}

/** A line that opens a block of its own: a list item, a table row, a heading, a directive, a quote. */
const BLOCK_START = /^\s*(?:[-*+]\s|\d+[.)]\s|\||#|\.\.\s|>|!!!|:::)/;
/** Where a sentence ends: `.`, `!` or `?` before a space (or the paragraph's end). */
const SENTENCE_END = /[.!?](?=\s|$)/g;

/**
 * The lines (0-based) of prose sentences that say they name an old thing (`says`, HISTORY_LINE by default), also when
 * the words that say so sit on the sentence's next line: "note that the `set_test_now()` and
 * `test()`" / "helpers have been removed." (pendulum). A sentence ends at `.`, `!`, `?`, a blank
 * line, a fence or a line that opens a block of its own; only its own lines are marked.
 */
function historySentenceLines(lines: readonly string[], rst: boolean, says: RegExp = HISTORY_LINE): Set<number> {
  const out = new Set<number>();
  let block: number[] = [];
  const flush = (): void => {
    if (block.length > 1) {
      // Joined with one space: offsets map back to lines.
      const starts: number[] = [];
      let text = '';
      for (const i of block) {
        starts.push(text.length);
        text += `${lines[i] ?? ''} `;
      }
      // Asked with offsets that never decrease: one pass over the lines for the whole paragraph.
      let k = 0;
      const lineAt = (offset: number): number => {
        while (k + 1 < starts.length && (starts[k + 1] ?? Infinity) <= offset) k++;
        return k;
      };
      let from = 0;
      const ends = [...text.matchAll(SENTENCE_END)].map((m) => (m.index ?? 0) + 1);
      for (const to of [...ends, text.length]) {
        // The space after the last sentence's end belongs to no sentence.
        while (from < to && text[from] === ' ') from++;
        if (to <= from) continue;
        const first = lineAt(from);
        const last = lineAt(Math.max(from, to - 1));
        if (last > first && says.test(text.slice(from, to))) for (let k = first; k <= last; k++) out.add(block[k] as number);
        from = to;
      }
    }
    block = [];
  };
  let fence: string | null = null;
  lines.forEach((line, index) => {
    const marker = rst ? undefined : FENCE.exec(line)?.[1];
    if (marker !== undefined) {
      flush();
      fence = fenceAfter(fence, marker);
      return;
    }
    if (fence !== null || line.trim() === '') return flush();
    if (BLOCK_START.test(line)) flush();
    block.push(index);
  });
  flush();
  return out;
}

/** Longer code spans are examples, not mentions (and the shape regexes stay cheap). */
const MAX_SPAN_CHARS = 200;
/** Names shorter than this are too ambiguous to check (`id`, `x`). */
const MIN_NAME_LENGTH = 3;

/** Words that look like code but name nothing a project defines: keywords, builtins, primitive types. */
const NOT_NAMES: ReadonlySet<string> = new Set(
  (
    'abstract and any as async await bigint bool boolean break case catch class const continue def default del delete do ' +
    'elif else enum except export extends false final finally float for from function global if implements import in ' +
    'instanceof int interface is lambda let never new nil none null number object of or package pass private protected ' +
    'public raise return self static str string super switch symbol then this throw throws true try type typeof undefined ' +
    'unknown var void while with yield True False None Array Boolean Date Error JSON Map Math Number Object Promise ' +
    'RegExp Set String Symbol TypeError'
  ).split(' '),
);

/**
 * Variables the system, the shell or a toolchain defines: a doc that names them names no code of this
 * project, whatever a CI script once did with them.
 */
const SYSTEM_ENV: ReadonlySet<string> = new Set(
  // The shell's, the system's and the language runtimes' own: a doc that names them names no project code.
  ('PATH HOME USER SHELL PWD OLDPWD TMPDIR TEMP TMP LANG LC_ALL TERM EDITOR VISUAL PAGER CI PS1 PS2 PS4 PROMPT_COMMAND ' +
    'HISTFILE HISTSIZE IFS SHLVL LOGNAME HOSTNAME DISPLAY COLUMNS LINES TZ NO_COLOR FORCE_COLOR CLICOLOR SSH_AUTH_SOCK ' +
    'PYTHONPATH PYTHONHOME PYTHONUNBUFFERED PYTHONDONTWRITEBYTECODE VIRTUAL_ENV GOPATH GOROOT GOOS GOARCH GOFLAGS CGO_ENABLED ' +
    'CARGO_HOME RUSTUP_HOME RUST_BACKTRACE RUST_LOG RUSTFLAGS NODE_ENV NODE_OPTIONS NODE_PATH JAVA_HOME LD_LIBRARY_PATH ' +
    'DYLD_LIBRARY_PATH MANPATH XDG_CONFIG_HOME XDG_DATA_HOME XDG_CACHE_HOME XDG_STATE_HOME XDG_RUNTIME_DIR HTTP_PROXY HTTPS_PROXY NO_PROXY').split(' '),
);

/** Extensions a dotted lowercase word ends with when it is a file name (`config.toml`), not a config key. */
const FILE_EXTENSION_WORDS: ReadonlySet<string> = new Set(
  'txt lock env log html css csv xml ini cfg conf png svg jpg gif rst map d pem crt cer cert key der csr p12 pfx pub sqlite db gz zip tar'.split(' '),
);

// Any indent: a fence inside a list item is indented as deep as the item's text.
const FENCE = /^\s*(`{3,}|~{3,})/;
const CODE_SPAN = /(`+)([^`]+?)\1(?!`)/g;
const INLINE_LINK = /!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+["'(][^)]*)?\)/g;
const REFERENCE_LINK = /^\s{0,3}\[([^\]]+)\]:\s*<?([^\s>]+)>?/;
const RST_LINK = /`[^`<]*<([^>`]+)>`__?/g;
// Kebab-case and camelCase (`--dry-run`, `--maxThreads`): CLIs written in JS often take the latter.
const FLAG = /(?<![\w!-])--([a-z][a-zA-Z0-9]*(?:-[a-zA-Z0-9]+)*)(?![\w-])/g;
/** Flags every option parser makes by itself (clap, argparse, cobra, commander): never removed from a CLI. */
const PARSER_FLAGS: ReadonlySet<string> = new Set(['help', 'version']);
const DOLLAR_ENV = /\$\{?([A-Z][A-Z0-9_]*[A-Z0-9])\}?/g;
const ASSIGNED_ENV = /(?<![\w$.])([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)=/g;
const PATH_SHAPE = /^(?:\.{1,2}\/|\/)?(?:[\w@.-]+\/)+[\w@.-]*\.[A-Za-z0-9]{1,8}$/;
const ENV_SPAN = /^(\$\{?)?([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*)\}?(?:=\S*)?$/;
const CONFIG_KEY = /^[a-z][a-z0-9_-]*(?:\.[a-z][a-z0-9_-]*)+$/;
const CODE_NAME = /^(new\s+)?((?:[A-Za-z_$][\w$]*(?:\.|::|#|->))*)([A-Za-z_$][\w$]*)(\([^]*\))?;?$/;
const ALL_CAPS = /^[A-Z][A-Z0-9_]*$/;
/** `pkg.mod.func` or `pkg.mod.func()`: a dotted path of identifiers. */
const DOTTED = /^([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+)(?:\(\))?$/;

/** A comment in a fenced example (`# …`, `// …`, `/* …`, ` * …`), alone or after code; group 1 is its text. */
const FENCED_COMMENT = /(?:^|\s)(?:#|\/\/|\/\*|^\s*\*)\s(.*)$/;
const ATX_HEADING = /^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$/;
const UNDERLINE = /^([=\-~^"'`#*+])\1+\s*$/;

/**
 * The mentions in a doc's text, in reading order. Inside fenced code blocks only flags, environment
 * variables and the code spans of comments count (every word of an example would otherwise be a
 * "name"). A section whose heading says it is history ("Breaking changes", "Changelog", "Migrating
 * from 1.x") is skipped to the next heading of its level or above: it names old code on purpose, as
 * does a line that says so (HISTORY_LINE).
 */
export function extractMentions(docPath: string, text: string, programs: ReadonlySet<string> = new Set()): Mention[] {
  const out: Mention[] = [];
  const seen = new Set<string>();
  const add = (kind: MentionKind, value: string, raw: string, line: number, column: number, link = false, href?: string): void => {
    const key = `${kind}|${value}|${line}|${column}`;
    if (seen.has(key) || (kind === 'env' && SYSTEM_ENV.has(value))) return;
    seen.add(key);
    out.push({ kind, value, raw, line, column, ...(link ? { link: true as const } : {}), ...(href !== undefined ? { href } : {}) });
  };
  let fence: string | null = null;
  let blockCommand = ''; // the command of the example's last `$ ` prompt
  const lines = text.split('\n').map((l) => l.replace(/\r$/, ''));
  // reStructuredText: underline levels in order of first use; markdown's setext: `=` is 1, `-` is 2.
  const rst = docPath.toLowerCase().endsWith('.rst');
  let references: Map<string, string> | undefined; // read at the first line that needs them
  let history: Set<number> | undefined; // likewise
  const underlineLevels: string[] = rst ? [] : ['=', '-'];
  let historyLevel: number | null = null; // inside a history section of this level
  // What the doc itself says was renamed or removed (ACKNOWLEDGES): its other mentions of it are
  // knowing (a list kept for older versions under "`new_tab_left` … have been removed", wezterm), not
  // left behind. Not every history line says so: "when `where_style` is set to `"Legacy"`" does not.
  const acknowledged = new Set<string>();
  let acknowledging: Set<number> | undefined; // the lines of sentences that say so, read when needed
  // reStructuredText's literal blocks are its examples, as fences are markdown's.
  const literal = rst ? new Set(rstLiteralLines(lines)) : new Set<number>();
  lines.forEach((line, index) => {
    const n = index + 1;
    // reStructuredText has no fences, and `~~~~` there underlines a title.
    const marker = rst ? undefined : FENCE.exec(line)?.[1];
    if (marker !== undefined) {
      fence = fenceAfter(fence, marker);
      blockCommand = '';
      return;
    }
    const code = fence !== null || literal.has(index);
    if (rst && !code) blockCommand = '';
    if (code) blockCommand = promptCommand(line) ?? blockCommand;
    if (!code) {
      const heading = headingAt(lines, index, underlineLevels);
      if (heading !== undefined) {
        if (historyLevel !== null && heading.level <= historyLevel) historyLevel = null;
        if (historyLevel === null && HISTORY_HEADING.test(heading.title)) historyLevel = heading.level;
      }
      if (historyLevel !== null) return;
    } else if (historyLevel !== null) return;
    if (HISTORY_LINE.test(line) || (!code && (history ??= historySentenceLines(lines, rst)).has(index))) {
      const says = !code && (ACKNOWLEDGES.test(line) || (acknowledging ??= historySentenceLines(lines, rst, ACKNOWLEDGES)).has(index));
      if (says) for (const m of line.matchAll(CODE_SPAN)) for (const span of classifySpan(docPath, m[2] ?? '')) acknowledged.add(`${span.kind}|${span.value}`);
      return;
    }
    // In an example, only a comment's code spans are prose about the code ("`rollback_on_shutdown`
    // rolls back…"); the example's own words are not mentions.
    const comment = code ? FENCED_COMMENT.exec(line) : null;
    const prose = code ? (comment?.[1] ?? '') : line;
    const at = comment === null ? 0 : comment.index + comment[0].length - prose.length;
    // Only a line with both a code span and a link can hold a linked name.
    const webLinks = !code && line.includes('`') && line.includes('[') ? webLinkTexts(line, (references ??= rst ? new Map() : referenceTargets(lines))) : [];
    for (const m of prose.matchAll(CODE_SPAN)) {
      const content = m[2] ?? '';
      const start = at + (m.index ?? 0) + (m[1] ?? '').length;
      const href = webLinks.find((l) => start >= l.from && start < l.to)?.href;
      for (const s of classifySpan(docPath, content)) add(s.kind, s.value, s.raw, n, start + s.offset, false, href);
    }
    if (!code) {
      for (const target of linkTargets(line)) {
        const value = resolveLink(docPath, target.raw);
        if (value !== null) add('path', value, target.raw, n, target.column, true);
      }
    }
    for (const m of line.matchAll(FLAG)) {
      const at = m.index ?? 0;
      if (PARSER_FLAGS.has(m[1] ?? '') || cssProperty(line, at, at + m[0].length) || foreignFlag(line, at, code, programs, blockCommand)) continue;
      add('flag', `--${m[1]}`, `--${m[1]}`, n, at);
    }
    for (const m of line.matchAll(DOLLAR_ENV)) {
      const name = m[1] ?? '';
      if (name.length >= MIN_NAME_LENGTH) add('env', name, name, n, (m.index ?? 0) + m[0].indexOf(name));
    }
    for (const m of line.matchAll(ASSIGNED_ENV)) add('env', m[1] ?? '', m[1] ?? '', n, m.index ?? 0);
  });
  return acknowledged.size === 0 ? out : out.filter((m) => !acknowledged.has(`${m.kind}|${m.value}`));
}

/** Whether the `--name` at `from`..`to` of `line` is a CSS custom property (`var(--size)`, `--size: 2em;`), not a flag. */
function cssProperty(line: string, from: number, to: number): boolean {
  return /var\(\s*$/.test(line.slice(0, from)) || /^\s*:[^;]*;/.test(line.slice(to));
}

/**
 * The lines (0-based, in order) of reStructuredText's literal blocks: the indented, non-blank lines
 * after a paragraph ending in `::` or a `code-block`/`code` directive (not a `.. note::`'s body).
 */
function rstLiteralLines(lines: readonly string[]): number[] {
  const out: number[] = [];
  let indent: number | null = null; // inside a literal block deeper than this indent
  let opener = -1;
  lines.forEach((line, i) => {
    const depth = line.length - line.trimStart().length;
    if (indent !== null && line.trim() !== '' && depth <= indent && i > opener + 1) indent = null;
    if (indent !== null && line.trim() !== '' && depth > indent) out.push(i);
    // `.. note::` and other directives end in `::` too: their bodies are prose.
    const directive = /^\s*\.\.\s+([\w:-]+?)::/.exec(line)?.[1];
    if (directive === undefined ? /::\s*$/.test(line) : /^(?:code-block|code|sourcecode)$/.test(directive)) {
      indent = depth;
      opener = i;
    }
  });
  return out;
}

/**
 * The lines of a doc's example code: fenced blocks in markdown; in reStructuredText the literal
 * blocks (indented lines after a line ending in `::` or a `code-block`/`code` directive); in both,
 * doctest lines (`>>> def f():`, `... `), prompt removed.
 */
export function exampleLines(docPath: string, text: string): string[] {
  const lines = text.split('\n').map((l) => l.replace(/\r$/, ''));
  const out: string[] = lines.flatMap((l) => {
    const doctest = /^\s*(?:>>>|\.\.\.)(?: (.*))?$/.exec(l);
    return doctest !== null ? [doctest[1] ?? ''] : [];
  });
  if (docPath.toLowerCase().endsWith('.rst')) {
    for (const i of rstLiteralLines(lines)) if (!/^\s*(?:>>>|\.\.\.)/.test(lines[i] ?? '')) out.push(lines[i] ?? '');
    return out;
  }
  let fence: string | null = null;
  for (const line of lines) {
    const marker = FENCE.exec(line)?.[1];
    if (marker !== undefined) {
      fence = fenceAfter(fence, marker);
      continue;
    }
    if (fence !== null && !/^\s*(?:>>>|\.\.\.)/.test(line)) out.push(line);
  }
  return out;
}

/** The heading on line `index` (ATX `## Title`, or a title over an `====` underline) with its level. */
function headingAt(lines: readonly string[], index: number, underlineLevels: string[]): { level: number; title: string } | undefined {
  const line = lines[index] ?? '';
  const atx = ATX_HEADING.exec(line);
  if (atx) return { level: (atx[1] ?? '#').length, title: atx[2] ?? '' };
  const under = UNDERLINE.exec(lines[index + 1] ?? '');
  if (under === null || line.trim().length < 2 || UNDERLINE.test(line) || (lines[index + 1] ?? '').trim().length < line.trim().length) return undefined;
  const char = under[1] ?? '=';
  if (!underlineLevels.includes(char)) underlineLevels.push(char);
  return { level: underlineLevels.indexOf(char) + 1, title: line.trim() };
}

interface SpanMention {
  kind: MentionKind;
  value: string;
  raw: string;
  /** Offset of `raw` in the span's content. */
  offset: number;
}

/** What one code span names, if its whole content has the shape of a path, variable, key or name. */
function classifySpan(docPath: string, content: string): SpanMention[] {
  // reStructuredText roles write `~pkg.mod.Class` (show the last part) and `!name` (no link).
  const trimmed = content.trim();
  const t = trimmed.replace(/^[~!]/, '');
  const lead = content.indexOf(trimmed) + (trimmed.length - t.length);
  if (t === '' || t.length > MAX_SPAN_CHARS || t.includes('://')) return [];
  if (PATH_SHAPE.test(t)) {
    const value = t.startsWith('./') || t.startsWith('../') ? resolveLink(docPath, t) : normalize(t.replace(/^\/+/, ''));
    return value === null ? [] : [{ kind: 'path', value, raw: t, offset: lead }];
  }
  const dotted = DOTTED.exec(t);
  const module: SpanMention[] = dotted ? [{ kind: 'module_path', value: dotted[1] ?? '', raw: dotted[1] ?? '', offset: lead }] : [];
  return [...module, ...classifyWord(t, lead)];
}

/** One span read as a variable, key or name (the dotted reading, if any, is added by the caller). */
function classifyWord(t: string, lead: number): SpanMention[] {
  const env = ENV_SPAN.exec(t);
  if (env && (env[1] !== undefined || (env[2] ?? '').includes('_'))) {
    const name = env[2] ?? '';
    if (name.length < MIN_NAME_LENGTH) return [];
    return [{ kind: 'env', value: name, raw: name, offset: lead + (env[1] ?? '').length }];
  }
  if (CONFIG_KEY.test(t)) {
    const leaf = t.slice(t.lastIndexOf('.') + 1);
    if (FILE_EXTENSION_WORDS.has(leaf) || detectLanguage(`x.${leaf}`) !== 'text' || leaf.length < MIN_NAME_LENGTH) return [];
    return [{ kind: 'config_key', value: t, raw: t, offset: lead }];
  }
  const m = CODE_NAME.exec(t);
  if (!m) return [];
  const name = m[3] ?? '';
  const offset = lead + (m[1] ?? '').length + (m[2] ?? '').length;
  // A dunder (`__sizeof__`, `__init__`) is the language's protocol: docs name the builtin's as often as the project's.
  if (name.length < MIN_NAME_LENGTH || NOT_NAMES.has(name) || /^__\w+__$/.test(name)) return [];
  if (ALL_CAPS.test(name)) {
    // `process.env.SOUS_FOO` or a bare `SOUS_FOO` is a variable; `JSON`, `README` are not names.
    return name.includes('_') ? [{ kind: 'env', value: name, raw: name, offset }] : [];
  }
  const codeSyntax = m[4] !== undefined || (m[2] ?? '') !== '' || m[1] !== undefined;
  if (!codeSyntax && !looksLikeCode(name)) return [];
  return [{ kind: 'identifier', value: name, raw: name, offset }];
}

/** camelCase, PascalCase, snake_case or `$`: a single word shaped like a program's name, not prose. */
function looksLikeCode(name: string): boolean {
  return /[a-z][A-Z]/.test(name) || /^[A-Z][a-z0-9]/.test(name) || /[A-Za-z0-9]_[A-Za-z0-9]/.test(name) || name.includes('$');
}

/** Link targets on a line (inline, reference definitions, reStructuredText), with their columns. */
function linkTargets(line: string): Array<{ raw: string; column: number }> {
  const out: Array<{ raw: string; column: number }> = [];
  const push = (whole: string, at: number, target: string | undefined, after: number): void => {
    if (target === undefined) return;
    const raw = target.replace(/[?#].*$/, '');
    if (raw !== '') out.push({ raw, column: at + whole.indexOf(target, after) });
  };
  for (const m of line.matchAll(INLINE_LINK)) push(m[0], m.index ?? 0, m[1], m[0].indexOf(']('));
  const ref = REFERENCE_LINK.exec(line);
  if (ref) push(ref[0], ref.index, ref[2], ref[0].indexOf(']:'));
  for (const m of line.matchAll(RST_LINK)) push(m[0], m.index ?? 0, m[1], m[0].lastIndexOf('<'));
  return out;
}

const WEB_ADDRESS = /^https?:\/\//i;
// `[text](https://…)`, `[text][label]` and `[text]` (a label defined elsewhere in the doc); the text may hold code spans.
const LINK_TEXT = /\[((?:[^\[\]]|\[[^\]]*\])*)\](?:\(\s*<?([^)\s>]+)>?[^)]*\)|\[([^\]]*)\])?/g;

/** A markdown doc's reference definitions (`[label]: https://…`), label lowercased → address. */
function referenceTargets(lines: readonly string[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of lines) {
    const m = REFERENCE_LINK.exec(line);
    if (m !== null) out.set((m[1] ?? '').toLowerCase(), m[2] ?? '');
  }
  return out;
}

/** Where a line's link texts sit (columns `from`..`to`) when the link goes to a web address. */
function webLinkTexts(line: string, references: ReadonlyMap<string, string>): Array<{ from: number; to: number; href: string }> {
  const out: Array<{ from: number; to: number; href: string }> = [];
  for (const m of line.matchAll(LINK_TEXT)) {
    const text = m[1] ?? '';
    const at = m.index ?? 0;
    if (line[at + m[0].length] === ':' && m[2] === undefined && m[3] === undefined) continue; // a definition, not a link
    const href = m[2] ?? references.get((m[3] === undefined || m[3] === '' ? text : m[3]).toLowerCase());
    if (href !== undefined && WEB_ADDRESS.test(href)) out.push({ from: at + 1, to: at + 1 + text.length, href });
  }
  return out;
}

/**
 * Whether a web address is the project's own (its docs site, its crate's or package's page, its
 * repository): it names one of the project's modules or commands (`docs.rs/leptos/…`,
 * `pkg.go.dev/github.com/vektra/mockery/…`, `leafletjs.com`). Unknown modules: assumed its own.
 */
export function ownAddress(href: string, own: ReadonlySet<string>): boolean {
  const squash = (text: string): string => text.toLowerCase().replace(/[^a-z0-9]/g, '');
  const names = [...own].map(squash).filter((m) => m.length >= 3);
  if (names.length === 0) return true;
  const address = squash(href);
  return names.some((m) => address.includes(m));
}

/**
 * The repository path a link in `docPath` points at, or null: external (a scheme, `//host`, an
 * anchor), outside the repository, or not a file name with an extension.
 */
export function resolveLink(docPath: string, target: string): string | null {
  if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//') || target.startsWith('#')) return null;
  let decoded = target;
  try {
    decoded = decodeURI(target);
  } catch {
    return null; // a malformed escape is not a path we could check
  }
  if (!/\.[A-Za-z0-9]{1,8}$/.test(decoded)) return null;
  const joined = decoded.startsWith('/') ? decoded.slice(1) : path.posix.join(path.posix.dirname(docPath), decoded);
  return normalize(joined);
}

/** A clean root-relative POSIX path, or null when it leaves the root. */
function normalize(p: string): string | null {
  const normal = path.posix.normalize(p);
  if (normal === '' || normal === '.' || normal === '..' || normal.startsWith('../') || path.posix.isAbsolute(normal)) return null;
  return normal.startsWith('./') ? normal.slice(2) : normal;
}
