import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { applyPatch } from 'diff';
import { defaultConfig } from '@sous/config';
import { buildRepositoryIndex, scopePolicyFromConfig } from '@sous/retrieval';
import { symbolParserPool } from '../../retrieval/src/symbols/parser-pool';
import { createRepositoryView, type RepositoryView } from '../src/view/repository-view';
import { docsDriftDetector, INDIRECT_STRENGTH } from '../src/detectors/docs-drift/docs-drift';
import { detectorOff } from '../src/cycle/held';
import { docSnapshots, exampleLines, extractMentions, generatedClients, isDeprecatedPage, isHistoryDoc, isRecordedDecision, olderVersionDocs, ownAddress, readerCreatesFiles, unmaintainedSites } from '../src/detectors/docs-drift/mentions';
import { projectPrograms } from '../src/detectors/docs-drift/programs';
import type { Candidate } from '../src/work/types';
import { isProjectSource, isUserDoc } from '../src/view/file-roles';
import { buildRemovalIndex } from '../src/view/history-index';
import { ambientGlobal, declaresFlag, derivedRustFlags, docOwnVariable, handedOver, newDependency, readsEnv, saysRemoved } from '../src/detectors/docs-drift/history-facts';
import { parseBlame, type FileDiff } from '../src/view/git-history';
import { importLines, importSources, isOwnModule } from '../src/detectors/docs-drift/imports';
import { collectPackageWords, installedPackages, installsSplitPackage, movedToOwnPackage, splitOutSuffixes } from '../src/detectors/docs-drift/split-packages';
import type { Frontier } from '../src/detectors/types';
import type { DetectorResult } from '../src/detectors/types';
import { git, makeEmptyGitRepo, rmTempDir, writeFile } from '../../../test/support/tmp';

afterAll(() => symbolParserPool().release());

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmTempDir(dir);
});

/** A repository built commit by commit: each step writes (or, with null, deletes) files, then commits. */
function repoWith(steps: Array<{ message: string; files?: Record<string, string | null>; mv?: [string, string] }>): string {
  const dir = makeEmptyGitRepo('sous-docs-drift-');
  dirs.push(dir);
  for (const step of steps) {
    if (step.mv) {
      fs.mkdirSync(path.dirname(path.join(dir, step.mv[1])), { recursive: true });
      git(dir, ['mv', step.mv[0], step.mv[1]]);
    }
    for (const [rel, content] of Object.entries(step.files ?? {})) {
      if (content === null) git(dir, ['rm', '-q', rel]);
      else writeFile(dir, rel, content);
    }
    git(dir, ['add', '-A']);
    git(dir, ['commit', '-q', '-m', step.message]);
  }
  return dir;
}

/** `everything`: the whole tree in scope (`privacy.allowed_paths = ["**\/*"]`), CI configuration included. */
async function viewOf(dir: string, everything = false): Promise<RepositoryView> {
  const config = defaultConfig();
  const policy = scopePolicyFromConfig(everything ? { ...config, privacy: { ...config.privacy, allowed_paths: ['**/*'] } } : config);
  return createRepositoryView(await buildRepositoryIndex(dir, policy), policy);
}

function allFiles(view: RepositoryView): Frontier {
  return { entries: view.paths().map((path) => ({ path, priority: 1 })), priority: () => 1 };
}

/** One run of the detector; `off`: the detector ids `exploration.detectors_off` turns off; `held`: those `exploration.detectors_held` holds. */
async function detect(dir: string, everything = false, off: ReadonlySet<string> = new Set(), held: ReadonlySet<string> = new Set()): Promise<DetectorResult> {
  const view = await viewOf(dir, everything);
  return docsDriftDetector.detect({ view, trigger: { kind: 'warm' }, frontier: allFiles(view), signal: new AbortController().signal, isOff: (id) => off.has(id), isHeld: (id) => detectorOff(id, [...held]) });
}

function headOf(dir: string): string {
  return git(dir, ['rev-parse', 'HEAD']).trim();
}

/** `git apply --check` in the repository (it writes nothing); throws when the patch does not apply. */
function applyCheck(dir: string, patch: string): void {
  execFileSync('git', ['apply', '--check', '-'], { cwd: dir, input: patch, stdio: 'pipe' });
}

const CONFIG_V1 = 'export function parseConfig(text: string): string {\n  return text.trim();\n}\n';
const INDEX_V1 = "import { parseConfig } from './config';\n\nexport const run = (): string => parseConfig(' x ');\n";

describe('extractMentions', () => {
  it("never reads a dunder as the project's name (`bytearray.__sizeof__` is Python's)", () => {
    const names = extractMentions('docs/perf.md', 'Compare with `bytearray.__sizeof__` and `__init__`; call `Encoder.encode_into`.\n')
      .filter((m) => m.kind === 'identifier')
      .map((m) => m.value);
    expect(names).toContain('encode_into');
    expect(names.filter((n) => n.includes('__'))).toEqual([]);
  });

  it('skips a line that names an old thing on purpose ("was named", "deprecated", "before 0.34")', () => {
    const doc = [
      'Enable `deps.optimizer`. Before Vitest 0.34.0, it was named `deps.experimentalOptimizer`.',
      'Types in this folder (e.g. `types/chokidar.d.ts`) are deprecated.',
      '`oldCall()` was renamed; `legacyMode()` still works.',
      'Use `newCall()` now.',
      'In the v5.1 API there were `executeUrl` methods; they are now merged into `import`.',
      'Warning: `quote_plus` was removed in v1.10.2.',
      'Prior to python-gitlab 3.6.0 the argument `as_list` was used instead.',
      'From BullMQ 2.0 onwards, the `QueueScheduler` is not needed anymore.',
    ].join('\n');
    expect(extractMentions('docs/config.md', doc).map((m) => `${m.line}:${m.value}`)).toEqual(['4:newCall']);
    // A page about a thing the project removed says so (strawberry's sentry-tracing page): its heading's name is knowing too.
    const notice = ['# `SentryTracingExtension`', '', '<Warning>', '', 'As of Sentry 1.32.0, Strawberry is supported by the Sentry SDK.', "Therefore, Strawberry's `SentryTracingExtension` has been deprecated in version", '0.210.0 and finally removed with Strawberry 0.249.0 in favor of the SDK.'].join('\n');
    expect(extractMentions('docs/extensions/sentry-tracing.md', notice).map((m) => m.value)).toEqual([]);
    // `legacyMode` is a name, not the word "legacy".
    expect(extractMentions('docs/config.md', 'Turn on `legacyMode()`.').map((m) => m.value)).toEqual(['legacyMode']);
  });

  it('leaves alone every mention of a name the doc itself says was removed (a list kept for older versions)', () => {
    const doc = [
      '# `tab_bar_style`', // 1
      '', // 2
      '`new_tab_left`, `new_tab_right`', // 3
      'have been removed and replaced by the `new_tab` element.', // 4
      '', // 5
      'The available elements are:', // 6
      '', // 7
      '* `new_tab_left`, `new_tab_right` - the sides of the new tab button', // 8
      '* `active_tab_left` - the left side of the active tab', // 9
      '', // 10
      'This only takes effect when `where_style` is set to `"Legacy"`.', // 11
      'See [`where_style`](#where_style).', // 12
    ].join('\n');
    // A history line that does not say the name went ("Legacy" is a value here) leaves its other mentions alone.
    expect(extractMentions('docs/config/tab_bar_style.md', doc).map((m) => `${m.line}:${m.value}`)).toEqual(['1:tab_bar_style', '9:active_tab_left', '12:where_style']);
  });

  it('reads a page that opens by saying its subject is deprecated as kept on purpose; a deprecation further down does not count', () => {
    expect(isDeprecatedPage('# `font_antialias = "Greyscale"`\n\n*Deprecated starting in version 20210314; this option no longer does anything.*\n\nPossible values are `Greyscale`.\n')).toBe(true);
    expect(isDeprecatedPage('---\ntitle: Old API\n---\n\n*Since: 2021*\n\n.. deprecated:: 2.0\n')).toBe(true);
    expect(isDeprecatedPage('# Options\n\nThis option is deprecated; use `colors` instead.\n')).toBe(true);
    expect(isDeprecatedPage('# Options\n\nSet `colors` to pick a theme.\nIt takes a map.\nOr a list.\n\nThe `theme` option is deprecated.\n')).toBe(false);
    expect(isDeprecatedPage('# Guide\n\nThe deprecated `foo()` is gone; use `bar()`.\n')).toBe(false);
  });

  it('reads a page that opens by saying its docs are no longer maintained, or are for an older version, as kept on purpose', () => {
    // xstate's v4 guides under docs/ (set 17).
    expect(isDeprecatedPage('# Actors <Badge text="4.6+"/>\n\n:::warning These XState v4 docs are no longer maintained\n\nXState v5 is out now!\n')).toBe(true);
    expect(isDeprecatedPage('# Guide\n\n> You are viewing the documentation for an older version of Foo.\n')).toBe(true);
    expect(isDeprecatedPage('# Guide\n\n!!! warning\n    This documentation is outdated.\n')).toBe(true);
    // Saying who the docs are for, or a word further down, is not a banner.
    expect(isDeprecatedPage('# Guide\n\nThese docs are written for plugin authors.\nThey are long.\nRead on.\n\nThe old site is no longer maintained.\n')).toBe(false);
  });

  it("reads an API client's folder written by openapi-generator or swagger-codegen as generated, not the project's docs", () => {
    const paths = ['internal/client-go/.openapi-generator/VERSION', 'internal/client-go/README.md', 'internal/client-go/docs/IdentityApi.md', 'sdk/.swagger-codegen-ignore', 'sdk/README.md', 'docs/guide.md', 'internal/client-go-extra/README.md'];
    const generated = generatedClients(paths);
    expect(paths.filter(generated)).toEqual(['internal/client-go/.openapi-generator/VERSION', 'internal/client-go/README.md', 'internal/client-go/docs/IdentityApi.md', 'sdk/.swagger-codegen-ignore', 'sdk/README.md']);
    // No generator's mark: nothing is generated.
    expect(['README.md', 'docs/a.md'].filter(generatedClients(['README.md', 'docs/a.md']))).toEqual([]);
  });

  it('reads a docs folder most of whose pages say they are no longer maintained as an old site: its unmarked pages and translations too', () => {
    const english = ['docs/guides/actors.md', 'docs/guides/actions.md', 'docs/guides/context.md', 'docs/guides/guards.md', 'docs/about/concepts.md', 'docs/about/goals.md'];
    const docs = [...english, 'docs/guides/faqs.md', 'docs/packages/test/index.md', 'docs/fr/guides/actors.md', 'docs/zh-CN/guides/actors.md', 'docs/fr/guides/faqs.md', 'README.md', 'packages/core/README.md'];
    const old = unmaintainedSites(docs, new Set(english));
    // Six of the eight untranslated pages under docs/ carry the banner: the translations do not dilute the share.
    expect(docs.filter(old)).toEqual(docs.filter((d) => d.startsWith('docs/')));
    // Four marked pages are too few to call a whole site old; so is a minority of a folder's pages.
    expect(docs.filter(unmaintainedSites(docs, new Set(english.slice(0, 4))))).toEqual([]);
    const many = [...english, ...['a', 'b', 'c', 'd'].map((n) => `docs/guides/${n}.md`)];
    expect(many.filter(unmaintainedSites(many, new Set(english.slice(0, 5))))).toEqual([]);
  });

  it('skips a sentence that says it names an old thing when the words that say so are on its next line', () => {
    // pendulum's testing page: the warning's sentence runs over two lines.
    const doc = [
      '!!!warning',
      '    If you are migrating from Pendulum 2, note that the `set_test_now()` and `test()`',
      '    helpers have been removed.',
      '',
      'Use `travel_to()` to freeze time. It replaces the',
      'helpers of older releases; `freeze()` still works.',
      '- `travel_back()` returns to the present;',
      '  the old helpers were removed in 3.0.',
      '- `travel()` moves the clock.',
    ].join('\n');
    // A sentence that ends on its line takes nothing of the next one; a list item is a block of its own.
    expect(extractMentions('docs/testing.md', doc).map((m) => `${m.line}:${m.value}`)).toEqual(['5:travel_to', '6:freeze', '9:travel']);
  });

  it("never takes another tool's flags for the project's (`cargo run --bin`, `mypy --warn-unreachable`, `git commit --amend`)", () => {
    const doc = [
      'Use `cargo run --bin rustfmt -- --check src` or `cargo fmt --emit files`.', // 1
      '```', // 2
      'mypy -p rich --warn-unreachable', // 3
      '$ sudo FOO=1 git commit --amend && tool --fast', // 4
      'python -m uvicorn main:app --workers 4', // 5
      'flit install --deps develop --symlink', // 6
      '```', // 7
      'Serve it with `key.pem` and `cert.pem` (made by `openssl req -keyout key.pem`).', // 8
    ].join('\n');
    // `key.pem` is a file name, not a dotted config key (its Python-path reading is kept only for the repository's own packages).
    expect(extractMentions('CONTRIBUTING.md', doc).filter((m) => m.kind !== 'module_path').map((m) => `${m.line}:${m.value}`)).toEqual(['1:--check', '1:--emit', '4:--fast', '5:--workers']);
  });

  it("keeps a command line's flags only for the project's own commands, once its manifests name them", () => {
    const doc = [
      '```sh', // 1
      'rg --column --line-number | fzf --height 40%', // 2
      '```', // 3
      'Pass `--exact` to narrow it; run `emerge --sync` first.', // 4
      '$ ./target/release/fzf --tac', // 5
      'Or `hatch env create --verbose`.', // 6
      'Release with `./bin/publish --dry-run` or `scripts/release.sh --tag`.', // 7
    ].join('\n');
    const flags = (programs?: ReadonlySet<string>) => extractMentions('README.md', doc, programs).filter((m) => m.kind === 'flag').map((m) => `${m.line}:${m.value}`);
    // ripgrep's flags in fzf's README, Gentoo's in an install line: not fzf's. Prose and fzf's own command lines are.
    // The repository's own scripts, run by their path, are the project's too.
    expect(flags(new Set(['fzf']))).toEqual(['2:--height', '4:--exact', '5:--tac', '7:--dry-run', '7:--tag']);
    // A project whose own command is also a well-known tool keeps its flags.
    expect(flags(new Set(['hatch']))).toContain('6:--verbose');
    // No manifest read: nothing is known to be the project's, so only well-known tools are set apart.
    expect(flags()).toEqual(['2:--column', '2:--line-number', '2:--height', '4:--exact', '4:--sync', '5:--tac', '7:--dry-run', '7:--tag']);
  });

  it("gives the flags after ` -- ` of `cargo bench` or `cargo test` to the test harness, and those of `cargo run` to the project", () => {
    const doc = ['```bash', 'cargo bench --bench js_parser -- --save-baseline main', 'cargo test -- --nocapture', 'cargo run -- --max-width 80', '```'].join('\n');
    expect(extractMentions('xtask/bench/README.md', doc, new Set(['biome'])).filter((m) => m.kind === 'flag').map((m) => m.value)).toEqual(['--max-width']);
  });

  it('gives a flag inside a string of an example (a package.json hook, a YAML step) to the command the string runs', () => {
    const programs = new Set(['lint-staged']);
    const doc = '```json\n{\n  "hooks": {\n    "pre-commit": "lint-staged --relative",\n    "post-commit": "git update-index --again"\n  }\n}\n```\n\n```yaml\n- run: rg --column x\n- run: lint-staged --quiet\n```\n';
    expect(extractMentions('README.md', doc, programs).filter((m) => m.kind === 'flag').map((m) => m.value)).toEqual(['--relative', '--quiet']);
  });

  it("reads a list item's indented fence and reStructuredText's literal blocks as examples: another program's flags there are not the project's", () => {
    const md = ['1. Log in:', '', '    ```bash', '    aws ecr-public get-login-password --region us-east-1 \\', '    ```', '', '2. Run `fc --jailer` or `fc --region`.'].join('\n');
    expect(extractMentions('docs/devctr.md', md, new Set(['fc'])).filter((m) => m.kind === 'flag').map((m) => `${m.line}:${m.value}`)).toEqual(['7:--jailer', '7:--region']);
    const rst = [
      'Start four workers with the following command::', // 1
      '', // 2
      '    docker-compose up --scale worker=4', // 3
      '', // 4
      '.. code-block:: console', // 5
      '', // 6
      '    $ ./manage.py runprofileserver --use-cprofile', // 7
      '', // 8
      '.. note::', // 9
      '', // 10
      '   Pass ``--headless`` to skip the UI.', // 11
    ].join('\n');
    // A `.. note::` body is prose, and a script run by its path (`./manage.py`) is the project's own.
    expect(extractMentions('docs/docker.rst', rst, new Set(['locust'])).filter((m) => m.kind === 'flag').map((m) => `${m.line}:${m.value}`)).toEqual(['7:--use-cprofile', '11:--headless']);
    expect(exampleLines('docs/docker.rst', rst)).toEqual(['    docker-compose up --scale worker=4', '    $ ./manage.py runprofileserver --use-cprofile']);
  });

  it("never takes a CSS custom property for a flag (`var(--size)`, `--size: 2em;`)", () => {
    const doc = ['```svelte', '<style>', '  div { --size: 2em; width: var(--size); }', '</style>', '```', 'Run `kit build --size` to see it.'].join('\n');
    expect(extractMentions('docs/styling.md', doc, new Set(['kit'])).filter((m) => m.kind === 'flag').map((m) => `${m.line}:${m.value}`)).toEqual(['6:--size']);
  });

  it("gives a help text's flags to the command its example ran at a `$ ` prompt", () => {
    const doc = ['```console', '$ cobra-cli help', 'Flags:', '  -a, --author string   author name', '      --viper           use Viper', '$ cobra build --tags x', '  --race', '```'].join('\n');
    expect(extractMentions('docs/guide.md', doc, new Set(['cobra'])).map((m) => `${m.line}:${m.value}`)).toEqual(['6:--tags', '7:--race']);
  });

  it("never takes the shell's or a language runtime's variables for the project's (`PS1`, `RUST_BACKTRACE`)", () => {
    const doc = 'Set `$PS1` and `PROMPT_COMMAND`; debug with `RUST_BACKTRACE=1 just test`, or set `JUST_LOG`.\n';
    expect(extractMentions('README.md', doc).filter((m) => m.kind === 'env').map((m) => m.value)).toEqual(['JUST_LOG']);
  });

  it("reads the project's commands from its manifests: package bins, Cargo binaries, Go modules and cmd folders, Python scripts; not a fixture's", () => {
    const files: Record<string, string> = {
      'package.json': JSON.stringify({ name: '@webpack/webpack-cli', bin: { wp: 'bin/wp.js' } }),
      'crates/core/Cargo.toml': '[package]\nname = "ripgrep"\n\n[[bin]]\nname = "rg"\npath = "src/main.rs"\n',
      'go.mod': 'module github.com/caddyserver/caddy/v2\n\ngo 1.22\n',
      'cmd/task/main.go': 'package main\n',
      'pyproject.toml': '[project]\nname = "hatch"\n\n[project.scripts]\nhatchling = "hatchling.cli:main"\n',
      'tests/fixtures/app/package.json': JSON.stringify({ name: 'fixture-app', bin: 'x.js' }),
    };
    const programs = projectPrograms({ paths: () => Object.keys(files), text: (p) => files[p] });
    expect([...programs].sort()).toEqual(['caddy', 'hatch', 'hatchling', 'rg', 'ripgrep', 'task', 'webpack', 'webpack-cli', 'wp']);
  });

  it('skips sections that record history, in markdown and reStructuredText (where ~~~~ underlines a title)', () => {
    const md = ['# Tool', 'Use `fooBar()`.', '## Breaking changes', '- `oldName` is now `newName`', '### Details', '`deepOld()` too', '## Usage', 'Call `useThis()`.'].join('\n');
    expect(extractMentions('README.md', md).map((m) => m.value)).toEqual(['fooBar', 'useThis']);
    // Levels in order of first use: `=` 1, `~` 2, `-` 3 (a subsection of the history section).
    const rst = ['Tool', '====', 'Use `fooBar()`.', '', 'Migrating from 1.x', '~~~~~~~~~~~~~~~~~~', '`gone_func` was replaced', '', 'Details', '-------', '`old_detail`', '', 'Usage', '~~~~~', '`still_here`'].join('\n');
    expect(extractMentions('docs/index.rst', rst).map((m) => m.value)).toEqual(['fooBar', 'still_here']);
    const note = ['# Errors', 'Raise `ExceptionGroup`.', '## Historical note', 'We used `MultiError` before.', '## Usage', 'Catch `still_here`.'].join('\n');
    expect(extractMentions('docs/errors.md', note).map((m) => m.value)).toEqual(['ExceptionGroup', 'still_here']);
  });

  it('finds names, paths, flags, variables and keys, and leaves prose alone', () => {
    const doc = [
      'Call `Store.open()` then `parseConfig` to `install` the `cache`.', // 1
      'See [the parser](../src/parse.ts#L3) and `src/x.ts`.', // 2
      'Run `sous sync --dry-run` with `$API_URL` or `SOUS_FOO` set; tune `compute.max_cycle_seconds`.', // 3
      '```sh', // 4
      'SOUS_BAR=1 sous run --fast', // 5
      'notAMention()', // 6
      '```', // 7
      'Not `id`, `null`, `config.toml` or `JSON`.', // 8
    ].join('\n');
    const got = extractMentions('docs/guide.md', doc).map((m) => `${m.line}:${m.kind}:${m.value}`);
    // A dotted span is also read as a Python path; the detector keeps that reading only for the repository's own packages.
    expect(got).toEqual([
      '1:module_path:Store.open',
      '1:identifier:open',
      '1:identifier:parseConfig',
      '2:path:src/x.ts',
      '2:path:src/parse.ts',
      '3:env:API_URL',
      '3:env:SOUS_FOO',
      '3:module_path:compute.max_cycle_seconds',
      '3:config_key:compute.max_cycle_seconds',
      '3:flag:--dry-run',
      '5:flag:--fast',
      '5:env:SOUS_BAR',
      '8:module_path:config.toml',
    ]);
  });
  it('reads code spans in the comments of fenced examples, never the example\'s own words', () => {
    const doc = ['```python', '# With `rollback_on_shutdown` set, each test starts clean.', 'app = make_app(debug=True)', 'client.get(url)  // see `fetchUrl` too', '```', '```js', 'const s = `${notAMention}`;', '```'].join('\n');
    expect(extractMentions('docs/testing.md', doc).map((m) => `${m.line}:${m.column}:${m.value}`)).toEqual(['2:8:rollback_on_shutdown', '4:25:fetchUrl']);
  });

  it('reads docs of older major versions beside the current one as history (`docs/v1`, `docs/v2` next to `docs/v3`)', () => {
    const older = olderVersionDocs(['docs/v1/guide.md', 'docs/v2/guide.md', 'docs/v3/guide.md', 'docs/index.md', 'site/2.x/a.md', 'site/10.x/a.md', 'api/v2/x.md']);
    expect(['docs/v1/guide.md', 'docs/v2/guide.md', 'site/2.x/a.md'].filter(older)).toHaveLength(3);
    // The highest is current; a version folder without siblings is the only one.
    expect(['docs/v3/guide.md', 'docs/index.md', 'site/10.x/a.md', 'api/v2/x.md'].filter(older)).toEqual([]);
    // Docusaurus's translated versions (yew's website/i18n/…/version-0.18.0 beside version-0.21).
    const i18n = 'website/i18n/zh-Hans/docusaurus-plugin-content-docs';
    const translated = olderVersionDocs([`${i18n}/version-0.18.0/a.md`, `${i18n}/version-0.21/a.md`, `${i18n}/current/a.md`]);
    expect([`${i18n}/version-0.18.0/a.md`, `${i18n}/version-0.21/a.md`, `${i18n}/current/a.md`].map(translated)).toEqual([true, false, false]);
  });

  it('reads proposals and decision records as history, and never takes the system\'s variables for the project\'s', () => {
    for (const doc of ['sep/sep-007.rst', 'peps/pep-0008.rst', 'docs/rfcs/0012-cache.md', 'docs/adr/0001-store.md', 'docs/proposals/cache.md', 'peeps/PEEP-044.md', 'docs/_docs/05_rfc/for_each_iteration.md']) expect(isHistoryDoc(doc)).toBe(true);
    expect(isHistoryDoc('docs/guide/separators.md')).toBe(false);
    expect(isHistoryDoc('docs/05-community/01-contributing.mdx')).toBe(false);
    // A changelog named by its end, towncrier's news fragments and the change files of changesets and
    // covector (tauri's `.changes/`), wherever they are kept.
    for (const doc of ['.changes/internal-default-args.md', '.changeset/brave-cats.md', 'BFG_HISTORY.rst', 'docs/OLD-CHANGES.txt', 'docs/_newsfragments/1853.breakingchange.rst', 'newsfragments/412.feature.md', 'changes/2101.bugfix.1.rst', 'docs/community/3.9-announcement.md', 'docs/3.x-announcement.md', 'loadtesting/2016-09-06/README.rst']) expect(isHistoryDoc(doc)).toBe(true);
    for (const doc of ['docs/browser-history-api.md', 'docs/newsletter.md', 'content/1.guide/2.installation.md']) expect(isHistoryDoc(doc)).toBe(false);
    // Pages put aside in a folder of their own (dioxus's `__unused/`, an archive), not a page about a command of that name.
    for (const doc of ['docs/guide/src/en/__unused/advanced-guides/custom-renderer.md', 'docs/archive/setup.md', 'docs/archived/v1.md', 'docs/obsolete/api.rst']) expect(isHistoryDoc(doc)).toBe(true);
    for (const doc of ['docs/commands/outdated.md', 'docs/unused-imports.md', 'docs/rules/no-unused-vars.md', 'docs/archive.md']) expect(isHistoryDoc(doc)).toBe(false);
    // Plans, roadmaps and inventories describe the code as it was meant or found at the time.
    for (const doc of ['docs/dev/initiative-d-inventory.md', 'docs/dev/modernization-plan.md', 'ROADMAP.md', 'docs/roadmaps/cache.md', 'TODO.md', 'REFACTOR.md']) expect(isHistoryDoc(doc)).toBe(true);
    for (const doc of ['docs/planets.md', 'plans/TEST_PORTING.md', 'docs/explanation.md', 'docs/inventory-api.rst', 'docs/tutorial/todo-app.md', 'docs/guides/refactoring.md']) expect(isHistoryDoc(doc)).toBe(false);
    // A vendored library's README (Python's `_vendor/`) is that library's, not the project's.
    expect(isUserDoc('pipenv/patched/pip/_vendor/README.rst')).toBe(false);
    expect(isUserDoc('docs/vendoring.md')).toBe(true);
    // What a test run writes is no code of the project's: a removal there took nothing away.
    for (const file of ['integration/playwright-report/index.html', 'coverage/lcov-report/index.html', 'packages/app/test-results/data.json', 'htmlcov/index.html']) expect(isProjectSource(file)).toBe(false);
    for (const file of ['src/coverage/report.ts', 'packages/reporters/src/playwright.ts']) expect(isProjectSource(file)).toBe(true);
    expect(extractMentions('docs/install.md', 'Add it to your `PATH` (`$HOME/.local/bin`), or set `SOUS_HOME`.').map((m) => m.value)).toEqual(['SOUS_HOME']);
  });
});

/**
 * What a card names, one line per (doc, name): `detector doc|kind|name` (kind `rename` for a patch).
 * One card covers a removing commit, so its evidence, not its claim, says which docs and names.
 */
function named(c: Candidate): string[] {
  const kind = c.claim.split('|')[1] ?? '';
  return [...new Set(c.evidence.flatMap((e) => (/^mentions `(.+)`$/.exec(e.note) ? [`${c.detector} ${e.path}|${kind}|${/^mentions `(.+)`$/.exec(e.note)?.[1] ?? ''}`] : [])))];
}

describe('importSources', () => {
  it.each([
    ['Python', ['from django.db.models.signals import post_save, pre_save as before'], 'post_save', ['django.db.models.signals']],
    ['Python over several lines', ['from logging.config import (', '    dictConfig,', '    fileConfig,  # old', ')'], 'fileConfig', ['logging.config']],
    ['JS named', ["import { writeFile, readFile as read } from 'node:fs/promises';"], 'writeFile', ['node:fs/promises']],
    ['JS over several lines', ['import {', '  defineConfig,', "} from 'vite'"], 'defineConfig', ['vite']],
    ['JS default and namespace', ["import Koa from 'koa'", "import * as path from 'path'"], 'path', ['path']],
    ['require', ["const { join } = require('path')"], 'join', ['path']],
    ['Rust', ['use tower::{ServiceBuilder, Layer};', 'use crate::routing::Router;'], 'ServiceBuilder', ['tower']],
    ['Rust, own', ['use crate::routing::Router;'], 'Router', ['crate::routing']],
  ])('reads %s imports', (_, lines, name, sources) => {
    expect(importSources(importLines(lines), name)).toEqual(sources);
  });

  it('reads no import where the name is only mentioned or only a prefix', () => {
    expect(importSources(importLines(['from app import post_save_hook', 'Import `post_save` yourself.', 'use std::io;']), 'post_save')).toEqual([]);
  });

  it("tells the repository's own modules from other projects'", () => {
    const own = new Set(['app', 'vite', 'serde_json']);
    for (const m of ['.models', './util', '../lib/x', 'crate::routing', 'super::x', 'app.hooks', 'vite', '@vitejs/vite/dist', 'serde-json']) expect(isOwnModule(m, own)).toBe(true);
    for (const m of ['django.db', 'node:fs', 'fs', 'tower', '@babel/core', 'logging.config']) expect(isOwnModule(m, own)).toBe(false);
  });
});

describe('movedToOwnPackage', () => {
  const words = new Set<string>();
  const doc = [
    'Install it with `npm install --save winston-couchdb@1.2 cradle`, see [the repo](https://github.com/winstonjs/winston-redis).',
    "```js\nimport { atomWithMachine } from 'winston-xstate/utils'\nconst rotate = require('winston-daily-rotate-file');\n```",
    'Also my-winston-mongo (`pip install my-winston-mongo`), and `npm i winston-cli`.',
    // Spelled like packages, but not named where a package goes: a directive and a file.
    'Use the `winston-config` directive; edit `winston-workspace.yaml`.',
  ].join('\n');
  collectPackageWords(doc, installedPackages(doc), words);
  const suffixes = splitOutSuffixes(words, new Set(['winston', 'winston_cli']));
  const gone = (file: string) => ({ file, folderExists: (folder: string) => folder === 'src/config' });

  it('reads packages from install commands, imports and package addresses only, and keeps the suffixes of those named after the project', () => {
    expect([...words].sort()).toEqual(['cradle', 'my_winston_mongo', 'winston_cli', 'winston_couchdb', 'winston_daily_rotate_file', 'winston_redis', 'winston_xstate']);
    expect([...suffixes].sort()).toEqual(['couchdb', 'daily_rotate_file', 'redis', 'xstate']);
  });

  it.each([
    ['Couchdb', undefined, true],
    ['transports.Couchdb', undefined, true],
    ['DailyRotateFile', undefined, true],
    ['getMachine', 'src/xstate/atomWithMachine.ts', true],
    // The folder is still there: not moved out.
    ['parse', 'src/config/parse.ts', false],
    ['Mongo', 'lib/transports/mongo.js', false],
    ['run', 'packages/cli/run.js', false],
    ['Console', undefined, false],
  ])('%s (removed from %s) → %s', (name, file, expected) => {
    expect(movedToOwnPackage(name, suffixes, file === undefined ? undefined : gone(file))).toBe(expected);
  });

  it('needs the project to be part of the package name, first or last', () => {
    expect(movedToOwnPackage('Couchdb', splitOutSuffixes(words, new Set(['logform'])))).toBe(false);
    const after = new Set<string>();
    const page = '```sh\npip install tika-haystack farm-haystack-extras\n```\n';
    collectPackageWords(page, installedPackages(page), after);
    expect([...splitOutSuffixes(after, new Set(['haystack']))].sort()).toEqual(['tika']);
  });

  it('tells a page that installs a package split out of the project from one that installs other packages or the project itself', () => {
    const own = new Set(['haystack', 'haystack_ai']);
    expect(installsSplitPackage(installedPackages('Install it:\n\n```sh\npip install tika-haystack\n```\n'), own)).toBe(true);
    expect(installsSplitPackage(installedPackages('`npm i haystack-xstate`'), own)).toBe(true);
    // Only an install command counts: a link or an import names a package in passing.
    expect(installsSplitPackage(installedPackages('See https://github.com/deepset-ai/tika-haystack and `from tika_haystack import x`.'), own)).toBe(false);
    expect(installsSplitPackage(installedPackages('pip install haystack-ai pandas'), own)).toBe(false);
  });
});

describe('parseBlame', () => {
  it("maps each blamed line to its commit from git's porcelain output", () => {
    const a = 'a'.repeat(40);
    const b = 'b'.repeat(40);
    const text = `${a} 3 5 1\nauthor X\nfilename docs/x.md\n\tline five\n${b} 9 12 1\nauthor Y\nfilename docs/x.md\n\tline twelve\n`;
    expect([...parseBlame(text)]).toEqual([
      [5, a],
      [12, b],
    ]);
  });
});

describe('isRecordedDecision', () => {
  it.each([
    ['a status line', '# Cache layers\n\nStatus: Rejected\n\nWe would add `CacheLayer`.\n'],
    ['a bold field', '# Lazy loading\n\n**Status**: Draft\n'],
    ['a metadata table', '| Field | Value |\n|---|---|\n| Status | Won\'t implement |\n'],
    ['front matter', '---\ntitle: Streams\nstatus: accepted\n---\n# Streams\n'],
  ])("reads %s near the top as a proposal's or decision's record", (_, text) => {
    expect(isRecordedDecision(text)).toBe(true);
  });

  it('leaves alone a doc that only talks about status, or says it far down', () => {
    expect(isRecordedDecision('# Jobs\n\nThe `status` field: `active` or `done`.\n\nA status of active is the default.\n')).toBe(false);
    expect(isRecordedDecision(`# Guide\n${'text\n'.repeat(60)}Status: accepted\n`)).toBe(false);
  });
});

describe('direct evidence of a removed flag or variable', () => {
  const removed = (...lines: string[]): FileDiff[] => [{ path: 'src/cli.ts', status: 'modified', hunks: [{ oldStart: 1, oldLines: lines.length, newStart: 1, newLines: 0, lines: lines.map((l) => `-${l}`) }] }];

  it.each([
    ['argparse / click / commander', "parser.add_argument('--dry-run', action='store_true')", 'dry-run'],
    ['a short and long flag in one string', "program.option('-d, --dry-run <mode>', 'print only')", 'dry-run'],
    ['clap builder', '    Arg::new("verbose").long("verbose"),', 'verbose'],
    ['getopts, the declaration split over lines', '        "config-help",', 'config-help'],
    ['getopts, read back', '    if matches.opt_present("config-help") {', 'config-help'],
    ['cobra', '\tcmd.Flags().BoolVarP(&dry, "dry-run", "d", false, "print only")', 'dry-run'],
    ['an option table', "      name: 'firewall',", 'firewall'],
    ['an option map key', "  'watch-extensions': ['js'],", 'watch-extensions'],
    ['a field the parser derives it from', '    pub dry_run: bool,', 'dry-run'],
    ["the project's own usage line", '\t\treturn fmt.Errorf("usage: caddy adapt --adapter <name> --input <file>")', 'input'],
  ])('a removed declaration: %s', (_label, line, flag) => {
    expect(declaresFlag(removed(line), flag, new Set(['caddy']))).toBe(true);
  });

  it.each([
    ["another program's flags in a command line", 'rg --column --line-number "$1"', 'column'],
    ['a help text naming a player option', "    help='e.g. --player \"vlc --file-caching=5000\"',", 'file-caching'],
    ['a comment', "    // parser.add_argument('--dry-run')", 'dry-run'],
    ["another program's usage line", '\t\treturn fmt.Errorf("usage: nix-env --install <file>")', 'install'],
  ])('no declaration: %s', (_label, line, flag) => {
    expect(declaresFlag(removed(line), flag, new Set(['caddy']))).toBe(false);
  });

  it('a variable read is direct; one set for another program is not', () => {
    expect(readsEnv(removed('const url = os.Getenv("SOUS_API_URL")'), 'SOUS_API_URL')).toBe(true);
    expect(readsEnv(removed('\tPassword string `env:"BLUESKY_ACCOUNT_PASSWORD,notEmpty"`'), 'BLUESKY_ACCOUNT_PASSWORD')).toBe(true);
    expect(readsEnv(removed('const url = process.env.SOUS_API_URL;'), 'SOUS_API_URL')).toBe(true);
    expect(readsEnv(removed('echo "${SOUS_HOME:-$HOME/.sous}"'), 'SOUS_HOME')).toBe(true);
    expect(readsEnv(removed('\tdocker run -e RUN_LOCAL=true github/super-linter'), 'RUN_LOCAL')).toBe(false);
    expect(readsEnv(removed('export RUST_LOG := "debug"'), 'RUST_LOG')).toBe(false);
  });
});

describe('what keeps a flag or variable alive, or weakens its removal', () => {
  const diff = (file: string, minus: string[], plus: string[]): FileDiff => ({ path: file, status: 'modified', hunks: [{ oldStart: 1, oldLines: minus.length, newStart: 1, newLines: plus.length, lines: [...minus.map((l) => `-${l}`), ...plus.map((l) => `+${l}`)] }] });

  it("reads a runtime's global in a copy of its typings as the runtime's, not an export of the project's typings", () => {
    expect(ambientGlobal([diff('packages/deno/deno.d.ts', ['declare var localStorage: Storage;', '  localStorage: Storage;'], [])], 'localStorage')).toBe(true);
    expect(ambientGlobal([diff('types/index.d.ts', ['export declare const version: string;'], [])], 'version')).toBe(false);
    expect(ambientGlobal([diff('src/storage.ts', ['declare var localStorage: Storage;'], [])], 'localStorage')).toBe(false);
  });

  it('reads the flags a clap or argh derive makes of struct fields, not those it names itself', () => {
    const args = [
      '#[derive(Parser)]',
      'pub struct Args {',
      '    /// A socket to listen to for commands',
      '    #[cfg(unix)]',
      '    #[clap(long, value_parser)]',
      '    pub listen: Option<String>,',
      '    #[arg(',
      "        short = 'C',",
      '        long,',
      '        value_name = "CONFIG PATH",',
      '        help = "Sets the location (of the config file)."',
      '    )]',
      '    pub config_location: Option<PathBuf>,',
      '    #[arg(long = "cmd")]',
      '    commands: Vec<String>,',
      '    #[arg(short)]',
      '    verbose: bool,',
      '    #[argh(switch)]',
      '    dry_run: bool,',
      '}',
    ].join('\n');
    expect(derivedRustFlags(args)).toEqual(['listen', 'config-location', 'dry-run']);
  });

  it('weakens a removal whose commit added a dependency (it may read the variable now); a version bump does not', () => {
    expect(newDependency([diff('Cargo.toml', ['simplelog = "0.7"'], ['cli-log = "0.1"'])])).toMatch(/cli-log/);
    expect(newDependency([diff('pyproject.toml', [], ['  "python-discovery>=1",'])])).toMatch(/python-discovery/);
    expect(newDependency([diff('go.mod', [], ['\tk8s.io/cli-runtime v0.26.1'])])).toMatch(/k8s.io\/cli-runtime/);
    expect(newDependency([diff('requirements.txt', [], ['rich>=13'])])).toMatch(/rich/);
    expect(newDependency([diff('package.json', ['    "yargs": "^16.0.0",', '  "version": "1.0.0",'], ['    "yargs": "^17.0.0",', '  "version": "1.1.0",', '    "lint": "eslint ."'])])).toBeUndefined();
    expect(newDependency([diff('src/main.rs', [], ['use cli_log::*;'])])).toBeUndefined();
    // A manifest the commit created lists old packages, not new ones.
    expect(newDependency([{ ...diff('pyproject.toml', [], ['  "typing-extensions>=4.0",']), status: 'added' }])).toBeUndefined();
    // A feature turned on, and an exclude list grown: no new package.
    expect(newDependency([diff('Cargo.toml', ['clap = { version = "4.5.4", features = ["cargo"] }'], ['clap = { version = "4.5.4", features = ["cargo", "derive"] }', '    "schema",'])])).toBeUndefined();
  });

  it('weakens the removal of a name or flag whose commit says it handed the code to a new dependency; a swapped library keeps its flags', () => {
    const gulp = [diff('package.json', ['    "liftoff": "^2.0.0",'], ['    "gulp-cli": "^1.0.0",'])];
    expect(handedOver('flag', 'Update: Replace inline CLI code with gulp-cli dependency', gulp, new Set(['gulp']))).toMatch(/gulp-cli/);
    const nbclient = [diff('setup.py', [], ["    'nbclient>=0.2',"])];
    expect(handedOver('identifier', 'Replaced execute preprocessor internals with nbclient', nbclient, new Set(['nbconvert']))).toMatch(/nbclient/);
    // mdBook swapped iron for warp: its own flags went with the old server code, not into warp.
    const warp = [diff('Cargo.toml', ['iron = "0.6"'], ['warp = "0.2"'])];
    expect(handedOver('flag', 'Switch from iron to warp', warp, new Set(['mdbook']))).toBeUndefined();
    // The subject must name the new package; variables have their own rule (newDependency).
    expect(handedOver('identifier', 'Refactor the executor', nbclient, new Set(['nbconvert']))).toBeUndefined();
    expect(handedOver('env', 'Replaced internals with nbclient', nbclient, new Set(['nbconvert']))).toBeUndefined();
  });

  it("takes a variable the doc both assigns and expands for the doc's own shell variable", () => {
    expect(docOwnVariable('```bash\nNAME="cargo-deny"\nDIR="/tmp/$NAME"\n```\n', 'NAME')).toBe(true);
    expect(docOwnVariable('e.g. VERSION=v4.2.0 and BINARY=yq_linux_amd64\n\n    wget .../${BINARY}.tar.gz\n', 'BINARY')).toBe(true);
    expect(docOwnVariable('```just\nexport WORLD := "earth"\n\nhello:\n  echo "hello $WORLD"\n```\n', 'WORLD')).toBe(true);
    expect(docOwnVariable('```sh\nfor SEED in $(seq 0 255); do\n  echo "Trying seed: $SEED"\ndone\n```\n', 'SEED')).toBe(true);
    expect(docOwnVariable('Start it with `BROOT_LOG=debug br`.\n', 'BROOT_LOG')).toBe(false);
    expect(docOwnVariable('The tool reads `$SOUS_HOME`.\n', 'SOUS_HOME')).toBe(false);
  });
});

describe('docsDriftDetector', () => {
  it('notes a renamed function and prepares a patch for the doc', async () => {
    const dir = repoWith([
      { message: 'config parser', files: { 'src/config.ts': CONFIG_V1, 'src/index.ts': INDEX_V1 } },
      { message: 'document the parser', files: { 'docs/api.md': '# API\n\nCall `parseConfig()` to read it.\n\nOr `Config.parseConfig` in old code.\n' } },
      {
        message: 'Rename parseConfig to loadConfig',
        files: { 'src/config.ts': CONFIG_V1.replace('parseConfig', 'loadConfig'), 'src/index.ts': INDEX_V1.replace(/parseConfig/g, 'loadConfig') },
      },
    ]);
    const sha = headOf(dir);
    const { candidates, covered } = await detect(dir);
    expect(covered).toEqual(['docs/api.md']);
    expect(candidates.map((c) => c.kind)).toEqual(['docs_drift', 'virtual_diff']);
    expect(candidates.flatMap(named)).toEqual(['docs_drift.removed_name docs/api.md|identifier|parseConfig', 'docs_drift.rename_diff docs/api.md|rename|parseConfig']);
    const [drift, diff] = candidates;
    expect(drift?.title).toContain('docs/api.md line 3');
    expect(drift?.title).toContain(`${sha.slice(0, 7)} "Rename parseConfig to loadConfig"`);
    expect(drift?.evidence.map((e) => [e.path, e.lineStart, e.commit])).toEqual([
      ['docs/api.md', 3, undefined],
      ['docs/api.md', 5, undefined],
      ['src/config.ts', 1, sha], // where `loadConfig` is defined now
    ]);
    expect(drift?.evidence[2]?.note).toBe('renamed `parseConfig` to `loadConfig`');
    expect(drift?.evidence[2]?.contentHash).toEqual(expect.stringMatching(/^[0-9a-f]{64}$/));
    expect(diff?.strength).toBeGreaterThanOrEqual(0.9);
    const patch = diff?.diff?.patch ?? '';
    applyCheck(dir, patch);
    const after = applyPatch('# API\n\nCall `parseConfig()` to read it.\n\nOr `Config.parseConfig` in old code.\n', patch);
    expect(after).toBe('# API\n\nCall `loadConfig()` to read it.\n\nOr `Config.loadConfig` in old code.\n');
  });

  it("leaves alone a one-word name whose package is still a folder of the code (`Lexer` beside `lexer/`), but notes one without", async () => {
    const lexer = 'package lexer\n\ntype Lexer struct{}\n\nfunc Tokenize(src string) []string { return nil }\n';
    const scanner = 'package scan\n\ntype Scanner struct{}\n\nfunc Scan() {}\n';
    const dir = repoWith([
      { message: 'lexer and scanner', files: { 'src/lexer/lexer.go': lexer, 'src/scan/scan.go': scanner } },
      { message: 'docs', files: { 'docs/api.md': 'Supports `Lexer` and `Scanner` as public API.\n' } },
      { message: 'Fold the types into functions', files: { 'src/lexer/lexer.go': lexer.replace('type Lexer struct{}\n\n', ''), 'src/scan/scan.go': scanner.replace('type Scanner struct{}\n\n', '') } },
    ]);
    const { candidates } = await detect(dir);
    expect(candidates.flatMap(named)).toEqual(['docs_drift.removed_name docs/api.md|identifier|Scanner']);
  });

  it('leaves alone a docs site kept for an older release (most pages say so), its unmarked pages and translations included', async () => {
    const banner = ':::warning These Foo v4 docs are no longer maintained\n\nFoo v5 is out now.\n:::\n\n';
    const site = (marked: boolean): Record<string, string> => {
      const files: Record<string, string> = { 'docs/faq.md': '# FAQ\n\nCall `onTransition()` to watch it.\n', 'docs/fr/guides/states.md': '# États\n\nAppelez `onTransition()`.\n' };
      for (const n of ['states', 'actions', 'guards', 'context', 'actors']) files[`docs/guides/${n}.md`] = `# ${n}\n\n${marked ? banner : ''}Call \`onTransition()\` to watch it.\n`;
      return files;
    };
    for (const marked of [true, false]) {
      const dir = repoWith([
        { message: 'machine', files: { 'src/machine.ts': `${CONFIG_V1}\nexport function onTransition(): void {}\n` } },
        { message: 'docs', files: site(marked) },
        { message: 'Remove onTransition', files: { 'src/machine.ts': CONFIG_V1 } },
      ]);
      const { candidates } = await detect(dir);
      const docs = candidates.flatMap((c) => c.evidence.filter((e) => e.commit === undefined).map((e) => e.path));
      // Unmarked, every page (the translation too) still names the removed function.
      expect(docs.sort()).toEqual(marked ? [] : ['docs/faq.md', 'docs/fr/guides/states.md', ...['actions', 'actors', 'context', 'guards', 'states'].map((n) => `docs/guides/${n}.md`)]);
    }
  });

  it('notes a name removed without a replacement, with no patch', async () => {
    const dir = repoWith([
      { message: 'config', files: { 'src/config.ts': `${CONFIG_V1}\nexport function legacyMode(): boolean {\n  return false;\n}\n`, 'src/index.ts': INDEX_V1 } },
      { message: 'docs', files: { 'docs/modes.md': 'Turn on `legacyMode()` for old repositories.\n' } },
      { message: 'Drop legacy mode', files: { 'src/config.ts': CONFIG_V1 } },
    ]);
    const { candidates } = await detect(dir);
    expect(candidates).toHaveLength(1);
    expect(candidates[0]?.detector).toBe('docs_drift.removed_name');
    expect(candidates[0]?.title).toContain('docs/modes.md line 1');
    expect(candidates[0]?.title).toContain('"Drop legacy mode"');
    expect(candidates[0]?.evidence[1]).toMatchObject({ path: 'src/config.ts', commit: headOf(dir), note: 'removed `legacyMode`' });
  });

  it('notes a link to a moved file and prepares the new link', async () => {
    const doc = '# Guide\n\nThe [parser](../src/parser.ts) reads input.\n';
    const dir = repoWith([
      { message: 'parser and guide', files: { 'src/parser.ts': 'export const parse = (s: string): string[] => s.split(",");\n', 'docs/guide.md': doc } },
      { message: 'Move the parser', mv: ['src/parser.ts', 'src/parse/parser.ts'] },
    ]);
    const { candidates } = await detect(dir);
    expect(candidates.map((c) => c.detector)).toEqual(['docs_drift.moved_path', 'docs_drift.rename_diff']);
    expect(candidates[0]?.evidence[1]).toMatchObject({ path: 'src/parse/parser.ts', commit: headOf(dir), note: 'moved `src/parser.ts` to `src/parse/parser.ts`' });
    const patch = candidates[1]?.diff?.patch ?? '';
    applyCheck(dir, patch);
    expect(applyPatch(doc, patch)).toBe('# Guide\n\nThe [parser](../src/parse/parser.ts) reads input.\n');
  });

  it('notes a removed CLI flag and a removed environment variable', async () => {
    const cli = "program.option('--dry-run', 'print only');\nconst url = process.env.SOUS_API_URL;\nexport const main = (): string | undefined => url;\n";
    const dir = repoWith([
      { message: 'cli', files: { 'src/cli.ts': cli } },
      { message: 'cli docs', files: { 'docs/cli.md': 'Run `sous sync --dry-run` first.\n\nSet `SOUS_API_URL` to the server.\n' } },
      { message: 'Simplify the CLI', files: { 'src/cli.ts': 'export const main = (): string | undefined => undefined;\n' } },
    ]);
    const { candidates } = await detect(dir);
    expect(candidates.flatMap(named).sort()).toEqual([
      'docs_drift.removed_env docs/cli.md|env|SOUS_API_URL',
      'docs_drift.removed_flag docs/cli.md|flag|--dry-run',
    ]);
    for (const c of candidates) expect(c.title).toContain('"Simplify the CLI"');
  });

  it('leaves alone a flag the code still reads from its parsed command line (`this.options.conceal`), though a schema declares it as a bare key; an API option (`options.watch`) does not count', async () => {
    const cli = "program.option('--conceal', 'hide secrets');\nprogram.option('--verbose', 'talk');\nprogram.option('--watch', 'rerun');\n";
    const api = 'export function run(options: { watch?: boolean }): boolean {\n  return options.watch === true;\n}\n';
    const display = 'export function show(this: { options: { conceal?: boolean } }): boolean {\n  return this.options.conceal === true;\n}\n';
    const dir = repoWith([
      { message: 'cli', files: { 'src/cli.ts': cli, 'src/display.ts': display, 'src/api.ts': api } },
      { message: 'cli docs', files: { 'docs/cli.md': 'Run `sous deploy --conceal` or `sous deploy --verbose`; `sous deploy --watch` reruns.\n' } },
      { message: 'Move the options into a schema', files: { 'src/cli.ts': 'export const schema = { conceal: { type: "boolean" } };\n' } },
    ]);
    const { candidates } = await detect(dir);
    expect(candidates.flatMap(named).sort()).toEqual(['docs_drift.removed_flag docs/cli.md|flag|--verbose', 'docs_drift.removed_flag docs/cli.md|flag|--watch']);
  });

  it('keeps as candidates what rests on indirect evidence: a flag passed on, a variable set for another tool, a deleted file named in prose', async () => {
    const dir = repoWith([
      {
        message: 'tools',
        files: {
          'src/tools/search.sh': 'rg --column --line-number "$1"\nLINT_LOCAL=1 cargo test\n',
          'src/cli.ts': "program.option('--dry-run', 'print only');\nconst url = process.env.SOUS_API_URL;\nexport const main = (): string | undefined => url;\n",
          'src/pre.json': '{}\n',
        },
      },
      {
        message: 'docs',
        files: {
          'docs/guide.md': 'Search with `--column`; set `LINT_LOCAL`. Your state lives in `src/pre.json`.\n\nPass `--dry-run`, set `SOUS_API_URL`.\n',
          'docs/links.md': 'See [the state](../src/pre.json).\n',
        },
      },
      { message: 'Drop the scripts', files: { 'src/tools/search.sh': 'cargo test\n', 'src/cli.ts': 'export const main = (): string | undefined => undefined;\n', 'src/pre.json': null } },
    ]);
    const { candidates } = await detect(dir);
    const byStrength = (c: Candidate): string => `${c.strength < 0.5 ? 'indirect' : 'direct'} ${c.claim.split('|')[1]}`;
    expect(candidates.map(byStrength).sort()).toEqual(['direct env', 'direct flag', 'direct path', 'indirect env', 'indirect flag', 'indirect path']);
    const indirect = candidates.filter((c) => c.strength < 0.5);
    for (const c of indirect) {
      expect(c.strength).toBe(INDIRECT_STRENGTH);
      expect(c.claim).toMatch(/\|indirect$/);
      expect(c.body).toContain('**Indirect evidence:**');
    }
    // The direct cards are the project's own flag and variable, and the broken link.
    const direct = candidates.filter((c) => c.strength >= 0.5).map((c) => c.evidence.map((e) => e.note).join(' '));
    expect(direct.join(' ')).toContain('`--dry-run`');
    expect(direct.join(' ')).toContain('`SOUS_API_URL`');
    expect(indirect.map((c) => c.evidence.map((e) => e.note).join(' ')).join(' ')).toContain('`--column`');
    // Indirect evidence never makes a patch.
    expect(candidates.filter((c) => c.kind === 'virtual_diff')).toEqual([]);
  });

  it("holds back a deleted entry file every project has (`src/index.ts`) when the doc names it without a link: it may be the reader's", async () => {
    // TypeDoc's option docs show `src/index.ts` as the reader's entry point; TypeDoc's own had just been bundled away.
    const dir = repoWith([
      { message: 'sources', files: { 'src/index.ts': 'export const run = (): number => 1;\n', 'scripts/build_site.ts': 'export const build = (): number => 2;\n', 'src/other.ts': 'export const keep = 3;\n' } },
      { message: 'docs', files: { 'site/options/output.md': 'Given `src/index.ts` as the entry point, pages go to `docs/`.\n\nThe site is built by `scripts/build_site.ts`.\n' } },
      { message: 'Bundle the sources', files: { 'src/index.ts': null, 'scripts/build_site.ts': null } },
    ]);
    const { candidates } = await detect(dir, true);
    const byStrength = (c: Candidate): string => `${c.strength < 0.5 ? 'indirect' : 'direct'} ${c.evidence.filter((e) => e.commit === undefined).map((e) => e.note).join(' ')}`;
    expect(candidates.filter((c) => c.kind === 'docs_drift').map(byStrength)).toEqual(['direct mentions `scripts/build_site.ts`', 'indirect mentions `src/index.ts`']);
  });

  it('never takes generated pages a commit took out of the repository for a broken link: the docs build makes them', async () => {
    // mathjs's "Remove generated docs from repo": its function reference pages are built with the site.
    const dir = repoWith([
      { message: 'sources', files: { 'src/index.ts': 'export const run = (): number => 1;\n', 'docs/reference/functions/format.md': '# format\n', 'docs/old-guide.md': '# Old guide\n' } },
      { message: 'docs', files: { 'docs/index.md': 'See [format](reference/functions/format.md) and [the old guide](old-guide.md).\n' } },
      { message: 'Remove generated docs from repo', files: { 'docs/reference/functions/format.md': null } },
      { message: 'Drop the old guide', files: { 'docs/old-guide.md': null } },
    ]);
    const { candidates } = await detect(dir, true);
    expect(candidates.filter((c) => c.kind === 'docs_drift').map((c) => c.evidence.filter((e) => e.commit === undefined).map((e) => e.note))).toEqual([['mentions `docs/old-guide.md`']]);
  });

  it('follows a renamed flag and config key to patches', async () => {
    const doc = 'Pass `--dry-run` or set `compute.max_cycle_seconds`.\n';
    const dir = repoWith([
      { message: 'cli', files: { 'src/cli.ts': "program.option('--dry-run', 'print only');\nexport const defaults = { compute: { max_cycle_seconds: 300 } };\n" } },
      { message: 'docs', files: { 'docs/cli.md': doc } },
      { message: 'Shorter names', files: { 'src/cli.ts': "program.option('--preview', 'print only');\nexport const defaults = { compute: { max_cycle_secs: 300 } };\n" } },
    ]);
    const { candidates } = await detect(dir);
    expect(candidates.flatMap(named).sort()).toEqual([
      'docs_drift.removed_config_key docs/cli.md|config_key|compute.max_cycle_seconds',
      'docs_drift.removed_flag docs/cli.md|flag|--dry-run',
      'docs_drift.rename_diff docs/cli.md|rename|--dry-run',
      'docs_drift.rename_diff docs/cli.md|rename|compute.max_cycle_seconds',
    ]);
    // One commit renamed both: one card per kind of mention, one patch for the commit.
    const patches = candidates.filter((x) => x.kind === 'virtual_diff');
    expect(patches).toHaveLength(1);
    applyCheck(dir, patches[0]?.diff?.patch ?? '');
    expect(applyPatch(doc, patches[0]?.diff?.patch ?? '')).toBe('Pass `--preview` or set `compute.max_cycle_secs`.\n');
  });

  it('proposes nothing when the docs mention only what exists (or what never existed here)', async () => {
    const dir = repoWith([
      { message: 'code', files: { 'src/config.ts': CONFIG_V1, 'src/index.ts': INDEX_V1, 'src/cli.ts': "program.option('--dry-run');\n" } },
      { message: 'docs', files: { 'docs/api.md': 'Use `parseConfig()` from [config](../src/config.ts) or `src/index.ts`; pass `--dry-run`. React has `useState`; set `$HOME`.\n' } },
      { message: 'more code', files: { 'src/extra.ts': 'export const extra = 1;\n' } },
    ]);
    const { candidates, covered } = await detect(dir);
    expect(candidates).toEqual([]);
    expect(covered).toEqual(['docs/api.md']);
  });

  it('notes a mention left behind even when the doc was edited elsewhere after the removal', async () => {
    const dir = repoWith([
      { message: 'config', files: { 'src/config.ts': `${CONFIG_V1}\nexport function legacyMode(): boolean {\n  return false;\n}\n`, 'src/index.ts': INDEX_V1 } },
      { message: 'docs', files: { 'docs/modes.md': '# Modes\n\nTurn on `legacyMode()` for old repositories.\n' } },
      { message: 'Drop legacy mode', files: { 'src/config.ts': CONFIG_V1 } },
      { message: 'Fix a typo in the docs', files: { 'docs/modes.md': '# Modes.\n\nTurn on `legacyMode()` for old repositories.\n' } },
    ]);
    const { candidates } = await detect(dir);
    expect(candidates.flatMap(named)).toEqual(['docs_drift.removed_name docs/modes.md|identifier|legacyMode']);
    expect(candidates[0]?.title).toContain('"Drop legacy mode"');
  });

  it('never flags changelogs, release notes, migration guides or dated docs: they record history', async () => {
    const doc = 'Removed `legacyMode()`; see [the parser](../src/parser.ts).\n';
    const dir = repoWith([
      { message: 'code', files: { 'src/config.ts': `${CONFIG_V1}export function legacyMode(): boolean {\n  return false;\n}\n`, 'src/parser.ts': 'export const parse = 1;\n' } },
      {
        message: 'notes',
        files: { 'CHANGELOG.md': doc, 'docs/release/release_2.5.rst': doc, 'docs/migration-guide.md': doc, 'docs/2021-05-03-post.md': doc, 'docs/whatsnew/3.2.md': doc, 'docs/guide.md': doc },
      },
      { message: 'Drop legacy mode', files: { 'src/config.ts': CONFIG_V1, 'src/parser.ts': null } },
    ]);
    const { candidates, covered } = await detect(dir);
    expect([...new Set(candidates.flatMap(named).map((n) => n.split(' ')[1]?.split('|')[0]))]).toEqual(['docs/guide.md']);
    expect(covered).toEqual(['docs/guide.md']);
  });

  it('follows Python dotted paths: a moved module and a function moved to another module give patches; other projects\' paths are left alone', async () => {
    const doc = 'API\n===\n\nUse :func:`~mypkg.old.helper` or ``mypkg.util.parse()``; see ``os.path.join`` and ``mypkg.util.keep``.\n';
    const dir = repoWith([
      {
        message: 'package',
        files: {
          'src/mypkg/__init__.py': '',
          'src/mypkg/old.py': 'def helper(x):\n    return x\n',
          'src/mypkg/util.py': 'def parse(text):\n    return text\n\n\ndef keep():\n    return 1\n',
          'src/mypkg/io.py': 'def read():\n    return 1\n',
        },
      },
      { message: 'docs', files: { 'docs/api.rst': doc } },
      { message: 'Rename old to new', mv: ['src/mypkg/old.py', 'src/mypkg/new.py'] },
      { message: 'Move parse to io', files: { 'src/mypkg/util.py': 'def keep():\n    return 1\n', 'src/mypkg/io.py': 'def read():\n    return 1\n\n\ndef parse(text):\n    return text\n' } },
    ]);
    const { candidates } = await detect(dir);
    expect(candidates.flatMap(named).sort()).toEqual([
      'docs_drift.moved_module_path docs/api.rst|module_path|mypkg.old.helper',
      'docs_drift.moved_module_path docs/api.rst|module_path|mypkg.util.parse',
      'docs_drift.rename_diff docs/api.rst|rename|mypkg.old.helper',
      'docs_drift.rename_diff docs/api.rst|rename|mypkg.util.parse',
    ]);
    const patches = candidates.filter((c) => c.kind === 'virtual_diff').map((c) => c.diff?.patch ?? '');
    let after = doc;
    for (const patch of patches) after = applyPatch(after, patch) || after;
    expect(applyPatch(doc, patches[0] ?? '')).not.toBe(false);
    expect(after.includes('mypkg.new.helper') || after.includes('mypkg.io.parse')).toBe(true);
    for (const patch of patches) applyCheck(dir, patch);
    expect(patches.join('\n')).toContain('+Use :func:`~mypkg.new.helper`');
    expect(patches.join('\n')).toContain('``mypkg.io.parse()``');
  });

  it('proposes nothing for a doc written after the name was removed', async () => {
    const dir = repoWith([
      { message: 'code', files: { 'src/config.ts': `${CONFIG_V1}export function oldHelper(): void {}\n` } },
      { message: 'Remove oldHelper', files: { 'src/config.ts': CONFIG_V1 } },
      { message: 'docs', files: { 'docs/api.md': 'Mentions `oldHelper` from memory.\n' } },
    ]);
    expect((await detect(dir)).candidates).toEqual([]);
  });

  it('never examines out-of-scope or excluded docs, nor a doc that was never committed', async () => {
    const dir = repoWith([
      { message: 'code', files: { 'src/config.ts': `${CONFIG_V1}export function oldHelper(): void {}\n` } },
      { message: 'docs', files: { 'README.md': 'Call `oldHelper()`.\n', 'docs/secrets.md': 'Call `oldHelper()`.\n' } },
      { message: 'Remove oldHelper', files: { 'src/config.ts': CONFIG_V1 } },
    ]);
    writeFile(dir, 'docs/draft.md', 'Call `oldHelper()`.\n'); // untracked: never committed
    const { candidates, covered } = await detect(dir);
    expect(candidates).toEqual([]);
    expect(covered).toEqual(['docs/draft.md']);
  });

  it('proposes nothing in a repository without commits', async () => {
    const dir = makeEmptyGitRepo('sous-docs-drift-');
    dirs.push(dir);
    writeFile(dir, 'docs/api.md', 'Call `parseConfig()`.\n');
    expect((await detect(dir)).candidates).toEqual([]);
  });

  it.each<[string, Array<{ message: string; files: Record<string, string> }>]>([
    [
      'a variable the code reads through a prefix ("TASK_" + "TEMP_DIR")',
      [
        { message: 'env', files: { 'src/env.ts': 'export const tempDir = (): string | undefined => process.env["TASK_TEMP_DIR"];\n' } },
        { message: 'docs', files: { 'docs/env.md': 'Set `TASK_TEMP_DIR` to move the cache.\n' } },
        { message: 'One prefix for every variable', files: { 'src/env.ts': 'const PREFIX = "TASK_";\nconst taskEnv = (name: string): string | undefined => process.env[PREFIX + name];\nexport const tempDir = (): string | undefined => taskEnv("TEMP_DIR");\n' } },
      ],
    ],
    [
      'a variable the code builds from a prefix (`f"CIBW_{name.upper()}"`), though its spelled-out name went',
      [
        { message: 'options', files: { 'src/options.py': 'import os\nSETTINGS = os.environ.get("CIBW_CONFIG_SETTINGS_MACOS")\n' } },
        { message: 'docs', files: { 'docs/options.md': 'Set `CIBW_CONFIG_SETTINGS_MACOS` for macOS only.\n' } },
        { message: 'Build variable names from option names', files: { 'src/options.py': 'import os\n\ndef read(name, platform):\n    return os.environ.get(f"CIBW_{name.upper()}_{platform.upper()}")\n' } },
      ],
    ],
    [
      'a flag a clap derive makes of a field, after the move from the builder',
      [
        { message: 'cli', files: { 'src/args.rs': 'pub fn args() -> Command {\n    Command::new("br").arg(Arg::new("listen").long("listen"))\n}\n' } },
        { message: 'docs', files: { 'docs/remote.md': 'Start a server with `br --listen <name>`.\n' } },
        { message: 'use clap derive', files: { 'src/args.rs': '#[derive(Parser)]\npub struct Args {\n    /// A socket to listen to\n    #[clap(long, value_parser)]\n    pub listen: Option<String>,\n}\n' } },
      ],
    ],
  ])('leaves alone what still exists: %s', async (_label, steps) => {
    expect((await detect(repoWith(steps))).candidates).toEqual([]);
  });

  it("holds back a variable whose reading went with a new dependency, and never reads the doc's own shell variables", async () => {
    const dir = repoWith([
      { message: 'log', files: { 'Cargo.toml': '[package]\nname = "broot"\n\n[dependencies]\nsimplelog = "0.7"\n', 'src/log.rs': 'pub fn level() -> Option<String> {\n    std::env::var("BROOT_LOG").ok()\n}\n', 'src/install.rs': 'pub fn name() -> Option<String> {\n    std::env::var("BINARY").ok()\n}\n' } },
      { message: 'docs', files: { 'docs/community.md': 'Start broot with `BROOT_LOG=debug br`.\n\nBINARY=broot_linux\n\n    wget https://example.com/${BINARY}.tar.gz\n' } },
      { message: 'use cli-log for logging', files: { 'Cargo.toml': '[package]\nname = "broot"\n\n[dependencies]\ncli-log = "0.1"\n', 'src/log.rs': 'pub fn init() {\n    cli_log::init("broot");\n}\n', 'src/install.rs': 'pub fn name() -> &\'static str {\n    "broot"\n}\n' } },
    ]);
    const { candidates } = await detect(dir, true); // Cargo.toml in scope
    // One card, for BROOT_LOG, held back as indirect; BINARY is the doc's own.
    expect(candidates.map((c) => `${c.detector} ${c.claim.split('|').slice(1).join('|')} ${c.strength}`)).toEqual([`docs_drift.removed_env env|indirect ${INDIRECT_STRENGTH}`]);
    expect(candidates[0]?.title).toContain('`BROOT_LOG`');
    expect(candidates[0]?.body).toContain('cli-log');
  });

  it('looks for no flag or variable whose cards are off (`exploration.detectors_off`)', async () => {
    const cli = "program.option('--dry-run', 'print only');\nconst url = process.env.SOUS_API_URL;\nexport function helper(): string | undefined {\n  return url;\n}\n";
    const dir = repoWith([
      { message: 'cli', files: { 'src/cli.ts': cli } },
      { message: 'cli docs', files: { 'docs/cli.md': 'Run `sous sync --dry-run` first.\n\nSet `SOUS_API_URL` to the server, or call `helper()`.\n' } },
      { message: 'Simplify the CLI', files: { 'src/cli.ts': 'export const main = (): string | undefined => undefined;\n' } },
    ]);
    const { candidates } = await detect(dir, false, new Set(['docs_drift.removed_flag', 'docs_drift.removed_env']));
    expect(candidates.map((c) => c.detector)).toEqual(['docs_drift.removed_name']);
  });

  /** A doc naming `--dry-run` (renamed to `--preview`) and linking src/defaults.ts (moved) in one commit. */
  function renamedFlagMovedFile(): { doc: string; dir: string } {
    const doc = 'Pass `--dry-run` first. See [the defaults](../src/defaults.ts).\n';
    const dir = repoWith([
      { message: 'cli', files: { 'src/cli.ts': "program.option('--dry-run', 'print only');\n", 'src/defaults.ts': 'export const D = 1;\n' } },
      { message: 'docs', files: { 'docs/cli.md': doc } },
      { message: 'Shorter names', files: { 'src/cli.ts': "program.option('--preview', 'print only');\n" }, mv: ['src/defaults.ts', 'src/config-defaults.ts'] },
    ]);
    return { doc, dir };
  }

  it("patches a renamed flag only while flags' cards are on; a moved file's patch needs only patches on", async () => {
    const { doc, dir } = renamedFlagMovedFile();
    const flagOn = await detect(dir, false, new Set(['docs_drift.removed_path', 'docs_drift.moved_path']));
    expect(applyPatch(doc, flagOn.candidates.find((c) => c.kind === 'virtual_diff')?.diff?.patch ?? '')).toBe('Pass `--preview` first. See [the defaults](../src/config-defaults.ts).\n');
    // Flags off: no flag card and no flag patch; the move is still patched.
    const flagOff = await detect(dir, false, new Set(['docs_drift.removed_flag']));
    expect(flagOff.candidates.map((c) => c.detector)).toEqual(['docs_drift.moved_path', 'docs_drift.rename_diff']);
    expect(applyPatch(doc, flagOff.candidates[1]?.diff?.patch ?? '')).toBe('Pass `--dry-run` first. See [the defaults](../src/config-defaults.ts).\n');
  });

  it("still finds a held kind's drift, but patches none of it: the patch covers only what the feed may show", async () => {
    const { doc, dir } = renamedFlagMovedFile();
    // Flags held, as by default: the flag's card is made (the cycle keeps it a candidate), its rename is not patched.
    const { candidates } = await detect(dir, false, new Set(), new Set(['docs_drift.removed_flag']));
    expect(candidates.map((c) => c.detector).sort()).toEqual(['docs_drift.moved_path', 'docs_drift.removed_flag', 'docs_drift.rename_diff']);
    expect(candidates.find((c) => c.detector === 'docs_drift.removed_flag')?.title).toContain('`--dry-run`, renamed to `--preview`');
    expect(applyPatch(doc, candidates.find((c) => c.kind === 'virtual_diff')?.diff?.patch ?? '')).toBe('Pass `--dry-run` first. See [the defaults](../src/config-defaults.ts).\n');
    // A held family holds every kind in it: docs drift's own cards stay, and no patch rests on any of them.
    const family = await detect(dir, false, new Set(), new Set(['docs_drift']));
    expect(family.candidates.map((c) => c.detector).sort()).toEqual(['docs_drift.moved_path', 'docs_drift.removed_flag']);
  });

  it('finds the removal when the clone lacks the blob of a binary file (a partial clone)', async () => {
    const dir = repoWith([
      { message: 'cli', files: { 'src/cli.ts': "program.option('--dry-run', 'print only');\n", 'build/debug.test': 'compiled test binary\n' } },
      { message: 'docs', files: { 'docs/cli.md': 'Run `sous sync --dry-run` first.\n' } },
      { message: 'No test binaries in git', files: { 'build/debug.test': null } },
      { message: 'Drop the dry run', files: { 'src/cli.ts': 'export {};\n' } },
    ]);
    // What a partial clone looks like to git: the blob is not there, and reading it fails.
    const blob = git(dir, ['rev-parse', 'HEAD~3:build/debug.test']).trim();
    fs.rmSync(path.join(dir, '.git', 'objects', blob.slice(0, 2), blob.slice(2)));
    const { candidates } = await detect(dir);
    expect(candidates.flatMap(named)).toEqual(['docs_drift.removed_flag docs/cli.md|flag|--dry-run']);
    expect(candidates[0]?.title).toContain('"Drop the dry run"');
  });

  it('searches the newest commits only: a removal older than the window is not read', async () => {
    const dir = repoWith([
      { message: 'code', files: { 'src/config.ts': `${CONFIG_V1}export function legacyMode(): void {}\n` } },
      { message: 'Drop legacy mode', files: { 'src/config.ts': CONFIG_V1, 'src/legacy.ts': 'export const legacy = 1;\n' } },
      { message: 'later 1', files: { 'src/a.ts': 'export const a = 1;\n', 'src/legacy.ts': null } },
      { message: 'later 2', files: { 'src/b.ts': 'export const b = 1;\n' } },
    ]);
    const policy = scopePolicyFromConfig(defaultConfig());
    const inWindow = await buildRemovalIndex(dir, policy, (t) => t, ['legacyMode'], 3);
    expect(inWindow.removing('legacyMode').map((c) => c.subject)).toEqual(['Drop legacy mode']);
    // The same read knows which commit deleted a file (docs link files; one log answers every link).
    expect(inWindow.deleting('src/legacy.ts')?.subject).toBe('later 1');
    expect(inWindow.deleting('src/a.ts')).toBeUndefined();
    const outside = await buildRemovalIndex(dir, policy, (t) => t, ['legacyMode'], 2);
    expect(outside.removing('legacyMode')).toEqual([]);
  });

  it('never takes a CI script that stopped passing a flag for the code removing it', async () => {
    const dir = repoWith([
      { message: 'ci', files: { '.github/workflows/ci.yml': 'steps:\n  - run: npx tool --legacy-peer\n', 'src/index.ts': INDEX_V1, 'src/config.ts': CONFIG_V1 } },
      { message: 'docs', files: { 'docs/ci.md': 'CI runs `tool --legacy-peer`.\n' } },
      { message: 'Simpler CI', files: { '.github/workflows/ci.yml': 'steps:\n  - run: npx tool\n' } },
    ]);
    expect((await detect(dir, true)).candidates).toEqual([]);
  });

  it("leaves alone a flag the doc's own example program declares, but notes the project's removed flag beside it", async () => {
    const cli = "program.option('--dry-run', 'print only');\nprogram.option('--author <name>', 'who');\nexport const main = (): number => 1;\n";
    const guide = ['```go', 'rootCmd.PersistentFlags().StringVar(&author, "author", "", "author name")', '```', '', 'The `--author` flag sets it; `--dry-run` prints only.', ''].join('\n');
    const dir = repoWith([
      { message: 'cli', files: { 'src/cli.ts': cli } },
      { message: 'guide', files: { 'docs/guide.md': guide } },
      { message: 'Drop two options', files: { 'src/cli.ts': 'export const main = (): number => 1;\n' } },
    ]);
    expect((await detect(dir)).candidates.flatMap(named)).toEqual(['docs_drift.removed_flag docs/guide.md|flag|--dry-run']);
  });

  it("never reads a vendored project's docs, nor takes vendored code, a tool's rc file, a `*.config.js` or the docs site's scripts dropping a word for a removal; never flags `--help`", async () => {
    const dir = repoWith([
      {
        message: 'start',
        files: {
          'src/index.ts': INDEX_V1,
          'src/config.ts': CONFIG_V1,
          'src/cli.ts': "program.option('--help', 'help');\nexport const x = 1;\n",
          'vendor/github.com/acme/log/entry.go': 'package log\n\nfunc WithRequestField() {}\n',
          'vendor/github.com/acme/log/README.md': 'Call `WithRequestField`.\n',
          '.yaspellerrc': '{ "dictionary": ["Autoprefixer"] }\n',
          'jest.config.js': 'module.exports = { cacheDirectory: "/tmp/jest" };\n',
          'docs/api/generate.js': 'export function writeFile(name) { return name; }\n',
        },
      },
      { message: 'docs', files: { 'docs/guide.md': 'See `WithRequestField`, `Autoprefixer`, `cacheDirectory` and `writeFile`; run `tool --help`.\n' } },
      {
        message: 'Drop the old parts',
        files: {
          'src/cli.ts': 'export const x = 1;\n',
          'vendor/github.com/acme/log/entry.go': 'package log\n',
          '.yaspellerrc': '{ "dictionary": [] }\n',
          'jest.config.js': 'module.exports = {};\n',
          'docs/api/generate.js': null,
        },
      },
    ]);
    expect((await detect(dir, true)).candidates).toEqual([]);
  });

  it('never takes a man page, an AsciiDoc copy of the README, a template or a CI script dropping a word for the code removing it; nor examines docs inside templates', async () => {
    const dir = repoWith([
      {
        message: 'start',
        files: {
          'src/index.ts': INDEX_V1,
          'src/config.ts': CONFIG_V1,
          'man/man1/tool.1': '.TP\n\\fB--tac\\fR\nReverse.\n',
          'README.adoc': 'Run `tool --sync`. Set WORLD_NAME.\n',
          'src/tool/template/files.py': 'ARGS = "--cov-config"\n',
          'ci/install.sh': 'nix-env --install tool\n',
          'templates/fish.txt': 'function f --on-event fish_prompt\nend\n',
        },
      },
      { message: 'docs', files: { 'docs/usage.md': 'Use `--tac`, `--sync`, `--cov-config` and `--install`; set `WORLD_NAME`.\n' } },
      {
        message: 'Drop the old copies',
        files: { 'man/man1/tool.1': null, 'README.adoc': null, 'src/tool/template/files.py': 'ARGS = ""\n', 'ci/install.sh': 'echo\n', 'src/init.ts': 'export const x = 1;\n' },
      },
      { message: 'fish template', files: { 'templates/fish.txt': 'Use `--on-event`.\n' } },
    ]);
    expect((await detect(dir, true)).candidates).toEqual([]);
  });

  it("never flags another project's name the code stopped using, nor a name or flag a settings file dropped; the project's own removed method still counts", async () => {
    const settings = '#!/usr/bin/env python3\nimport os\n\ntoken = os.getenv("TOKEN")\n';
    const engine = 'export class Engine {\n  executeOnFiles(patterns: string[]): number {\n    return patterns.length;\n  }\n}\n';
    const dir = repoWith([
      {
        message: 'bot, engine, settings',
        files: {
          'scripts/bot.py': settings,
          'src/engine.ts': engine,
          'tsconfig.json': '{ "compilerOptions": { "noImplicitThis": true } }\n',
          'tools/plugins.json': '{ "install": ["npm", "install", "--legacy-peer-deps"] }\n',
        },
      },
      { message: 'docs', files: { 'docs/setup.md': 'Read it with `getenv()`; we build with `noImplicitThis` and `npm install --legacy-peer-deps`.\n\nCall `executeOnFiles()` to lint.\n' } },
      {
        message: 'Drop the bot and the old API',
        files: { 'scripts/bot.py': null, 'src/engine.ts': 'export class Engine {}\n', 'tsconfig.json': '{}\n', 'tools/plugins.json': '{ "install": ["npm", "install"] }\n' },
      },
    ]);
    const { candidates } = await detect(dir, true);
    expect(candidates.flatMap(named)).toEqual(['docs_drift.removed_name docs/setup.md|identifier|executeOnFiles']);
  });

  it("never takes a keyword argument a call stopped passing for a removed name (`package_data=` in `setup(`), but a `def`'s parameter is one", async () => {
    const setup = 'from setuptools import setup\n\nsetup(\n    name="app",\n    package_data={"app": ["templates/*.html"]},\n)\n';
    const api = 'def render(\n    template,\n    auto_escape=True,\n):\n    return template\n';
    const dir = repoWith([
      { message: 'app', files: { 'setup.py': setup, 'app/render.py': api } },
      { message: 'docs', files: { 'docs/plugins.md': 'List your templates in `package_data`.\n\nTurn escaping off with `auto_escape`.\n' } },
      { message: 'Port setup.py to pyproject.toml; always escape', files: { 'setup.py': null, 'pyproject.toml': '[project]\nname = "app"\n', 'app/render.py': 'def render(template):\n    return template\n' } },
    ]);
    const { candidates } = await detect(dir, true);
    expect(candidates.flatMap(named)).toEqual(['docs_drift.removed_name docs/plugins.md|identifier|auto_escape']);
  });

  it("never takes another project's name for the repository's: one its code imported, or the doc's example imports", async () => {
    // pyramid once took `fileConfig` from the standard library as a parameter's default; DRF's docs show Django's `post_save`.
    const paster = 'from logging.config import fileConfig\n\ndef setup_logging(uri, fileConfig=fileConfig):\n    fileConfig(uri)\n\ndef post_save(obj):\n    return obj\n';
    const dir = repoWith([
      { message: 'app', files: { 'app/__init__.py': '', 'app/paster.py': paster, 'app/hooks.py': 'def pre_save(obj):\n    return obj\n' } },
      {
        message: 'docs',
        files: {
          'docs/logging.md': '`setup_logging` calls `fileConfig` for you.\n',
          'docs/tokens.md': 'Catch the `post_save` signal:\n\n    from django.db.models.signals import post_save\n    from app.hooks import pre_save\n\nand `pre_save` too.\n',
        },
      },
      { message: 'Read the config with plaster', files: { 'app/paster.py': 'def setup_logging(uri):\n    return uri\n', 'app/hooks.py': '' } },
    ]);
    const { candidates } = await detect(dir, true);
    // `pre_save` the doc imports from the project itself: still the project's, and gone.
    expect(candidates.flatMap(named)).toEqual(['docs_drift.removed_name docs/tokens.md|identifier|pre_save']);
  });

  it('never takes a member of a long import list for a removed name, though the list opens above what the diff shows', async () => {
    const link = (names: string[]): string => `import {\n  type Ref,\n  h,\n  inject,\n  provide,\n${names.map((n) => `  ${n},\n`).join('')}  computed,\n} from 'vue'\n\nexport const link = computed\n`;
    const dir = repoWith([
      { message: 'link', files: { 'src/link.ts': link(['RendererNode']), 'src/node.ts': 'export function renderNode(): number {\n  return 1;\n}\n' } },
      { message: 'docs', files: { 'docs/api.md': 'It returns a `RendererNode`; see `renderNode()`.\n' } },
      { message: 'Separate type imports', files: { 'src/link.ts': link([]), 'src/node.ts': 'export const other = 1;\n' } },
    ]);
    const { candidates } = await detect(dir);
    expect(candidates.flatMap(named)).toEqual(['docs_drift.removed_name docs/api.md|identifier|renderNode']);
  });

  it("never takes a name the project moved out into a package of its own (its docs name `<project>-<name>`) for lost code", async () => {
    // winston moved its CouchDB transport to winston-couchdb; its README still lists `Couchdb` among the transports.
    const transport = (name: string) => `class ${name} {\n  log(info) {\n    return info;\n  }\n}\nmodule.exports = { ${name} };\n`;
    const dir = repoWith([
      {
        message: 'transports',
        files: {
          'package.json': '{ "name": "logkit", "version": "1.0.0" }\n',
          'lib/transports/couchdb.js': transport('Couchdb'),
          'lib/transports/redis.js': transport('Redis'),
          'lib/transports/console.js': transport('Console'),
        },
      },
      { message: 'docs', files: { 'README.md': '# logkit\n\nTransports: `Console`, `Couchdb` and `Redis`.\n', 'docs/transports.md': '# Transports\n\nFor CouchDB: `npm install logkit-couchdb`. The `logkit-redis` directive sets Redis options.\n' } },
      { message: 'Move the Couchdb and Redis transports out of core', files: { 'lib/transports/couchdb.js': null, 'lib/transports/redis.js': null } },
    ]);
    const { candidates } = await detect(dir, true);
    // `Redis` has no package of its own in the docs: still the project's code, gone.
    expect(candidates.flatMap(named)).toEqual(['docs_drift.removed_name README.md|identifier|Redis']);
  });

  it('never takes a name removed from a folder named like a package the docs name (`src/xstate/`, `jotai-xstate`) for lost code', async () => {
    const dir = repoWith([
      {
        message: 'atoms',
        files: {
          'package.json': '{ "name": "atomkit", "version": "1.0.0" }\n',
          'src/xstate/atomWithMachine.ts': 'export function atomWithMachine(getMachine: () => unknown) {\n  return getMachine;\n}\n',
          'src/core/provider.ts': 'export function createProvider(initialValues: unknown[]) {\n  return initialValues;\n}\nexport const keep = 1;\n',
        },
      },
      { message: 'docs', files: { 'docs/xstate.md': "Install it:\n\n```sh\nnpm install atomkit-xstate xstate\n```\n\nCall `atomWithMachine` with a `getMachine` function.\n", 'docs/provider.md': 'Pass `initialValues` to `createProvider`.\n' } },
      { message: 'Move xstate out to atomkit-xstate; drop the provider', files: { 'src/xstate/atomWithMachine.ts': null, 'src/core/provider.ts': 'export const keep = 1;\n' } },
    ]);
    const { candidates } = await detect(dir, true);
    expect(candidates.flatMap(named)).toEqual(['docs_drift.removed_name docs/provider.md|identifier|createProvider']);
  });

  it('never takes what a deleted file took for lost code on the page of a package split out of the project (`<name>-<project>`)', async () => {
    // haystack moved its Tika converter to tika-haystack; the converter's page installs it and still
    // names `tika_url`. The page that installs nothing keeps its finding, and so does an edited file.
    const dir = repoWith([
      {
        message: 'converters',
        files: {
          'pyproject.toml': '[project]\nname = "docstack"\nversion = "1.0.0"\n',
          'docstack/converters/tika.py': 'class TikaConverter:\n    def __init__(self, tika_url: str = "http://localhost:9998"):\n        self.tika_url = tika_url\n',
          'docstack/converters/html.py': 'class HtmlConverter:\n    def __init__(self, keep_tables: bool = True, extractor: str = "lxml"):\n        self.keep_tables = keep_tables\n        self.extractor = extractor\n',
        },
      },
      {
        message: 'docs',
        files: {
          'docs/tika.md': '# TikaConverter\n\n```sh\npip install tika-docstack\n```\n\nSet `tika_url` to your Tika server. Tables stay unless `keep_tables` is off.\n',
          'docs/tika-old.md': '# Tika\n\nSet `tika_url` to your Tika server.\n',
        },
      },
      { message: 'Move Tika out to its own package; HTML tables always kept', files: { 'docstack/converters/tika.py': null, 'docstack/converters/html.py': 'class HtmlConverter:\n    def __init__(self, extractor: str = "lxml"):\n        self.extractor = extractor\n' } },
    ]);
    const { candidates } = await detect(dir, true);
    expect(candidates.flatMap(named).sort()).toEqual(['docs_drift.removed_name docs/tika-old.md|identifier|tika_url', 'docs_drift.removed_name docs/tika.md|identifier|keep_tables']);
  });

  it("never takes a runtime's global declared in a copy of its typings (`declare var localStorage` in `deno.d.ts`) for the project's", async () => {
    const dir = repoWith([
      {
        message: 'deno support',
        files: {
          'package.json': '{ "name": "webkit-app", "version": "1.0.0" }\n',
          'packages/deno/deno.d.ts': 'interface Storage {\n  getItem(key: string): string | null;\n}\ndeclare var localStorage: Storage;\nexport declare function serveDeno(): void;\n',
        },
      },
      { message: 'docs', files: { 'docs/constraints.md': 'Browser code may use `localStorage`; on Deno call `serveDeno()`.\n' } },
      { message: 'Remove the deno package', files: { 'packages/deno/deno.d.ts': null } },
    ]);
    const { candidates } = await detect(dir, true);
    expect(candidates.flatMap(named)).toEqual(['docs_drift.removed_name docs/constraints.md|identifier|serveDeno']);
  });

  it("never takes a name every mention of which links to another project's pages for the project's own", async () => {
    // jotai's query docs link `initialData` to TanStack Query's guide; clippy's book links `core::iter::Step` to the standard library.
    const dir = repoWith([
      {
        message: 'query atoms',
        files: {
          'package.json': '{ "name": "atomkit", "version": "1.0.0" }\n',
          'src/query.ts': 'export function atomWithQuery() {\n  return 1;\n}\nexport function initialData() {\n  return 2;\n}\nexport function staleTime() {\n  return 3;\n}\nexport const keep = 1;\n',
        },
      },
      {
        message: 'docs',
        files: {
          'docs/query.md':
            'Use [`initialData`](https://tanstack.com/query/v5/docs/guides/initial-query-data) for SSR.\n\nSee [the `staleTime` option][stale] too.\n\nOur own [`atomWithQuery`](https://atomkit.dev/docs/query) takes both.\n\n[stale]: https://tanstack.com/query/v5/docs/reference/useQuery\n',
          'docs/options.md': 'Pass `staleTime` in milliseconds.\n',
        },
      },
      { message: 'Drop the query atoms', files: { 'src/query.ts': 'export const keep = 1;\n' } },
    ]);
    const { candidates } = await detect(dir, true);
    // Linked to its own site, or named without a link, it is still the project's name, and gone.
    expect(candidates.flatMap(named).sort()).toEqual(['docs_drift.removed_name docs/options.md|identifier|staleTime', 'docs_drift.removed_name docs/query.md|identifier|atomWithQuery']);
    const linked = extractMentions('docs/query.md', 'Use [`initialData`](https://tanstack.com/q) or `selectAtom`, see [`core::iter::Step`][step].\n\n[step]: https://doc.rust-lang.org/std/iter/trait.Step.html\n');
    expect(linked.map((m) => `${m.value}:${m.href ?? '-'}`)).toEqual(['initialData:https://tanstack.com/q', 'selectAtom:-', 'Step:https://doc.rust-lang.org/std/iter/trait.Step.html']);
    expect(ownAddress('https://docs.rs/leptos/latest/leptos/fn.batch.html', new Set(['leptos']))).toBe(true);
    expect(ownAddress('https://www.chartjs.org/docs/latest/', new Set(['chart.js']))).toBe(true);
    expect(ownAddress('https://tanstack.com/query', new Set(['jotai']))).toBe(false);
  });

  it("keeps a release's frozen copy of the docs (Docusaurus's `version-…` folders) to what it said at that release", async () => {
    const i18n = 'website/i18n/ja/docusaurus-plugin-content-docs';
    const dir = repoWith([
      { message: 'components', files: { 'src/lib.rs': 'pub struct ComponentLink;\npub type ShouldRender = bool;\npub fn keep() {}\n' } },
      {
        message: 'docs and the 0.18 copy',
        files: {
          'website/docs/components.md': 'A component gets a `ComponentLink` and returns `ShouldRender`.\n',
          [`${i18n}/current/components.md`]: 'コンポーネントは`ComponentLink`を受け取ります。\n',
          [`${i18n}/version-0.18.0/components.md`]: 'コンポーネントは`ComponentLink`を受け取り、`ShouldRender`を返します。\n',
        },
      },
      { message: 'Components v2', files: { 'src/lib.rs': 'pub type ShouldRender = bool;\npub fn keep() {}\n' } },
      { message: 'Remove ShouldRender', files: { 'src/lib.rs': 'pub fn keep() {}\n' } },
    ]);
    const { candidates } = await detect(dir, true);
    const docs = candidates.filter((c) => c.kind === 'docs_drift').flatMap((c) => c.evidence.filter((e) => e.commit === undefined).map((e) => e.path));
    // The 0.18 copy, made before both removals, is right for 0.18; the live docs and translation are not.
    expect([...new Set(docs)].sort()).toEqual(['website/docs/components.md', `${i18n}/current/components.md`]);
    const snapshot = docSnapshots([`${i18n}/current/a.md`, `${i18n}/version-0.18.0/a.md`, `${i18n}/version-next/a.md`, 'docs/v1/a.md', 'docs/v2/a.md']);
    expect([`${i18n}/version-0.18.0/a.md`, `${i18n}/version-next/a.md`, 'docs/v1/a.md', `${i18n}/current/a.md`].map(snapshot)).toEqual([true, false, false, false]);
  });

  it("takes the files a tutorial has its reader create for the reader's, unless it links them", async () => {
    const quickStart = '# Quick start\n\nCreate a file named `src/app/store.js` and export the store.\n\nThen wrap your app in `src/index.js`.\n';
    const dir = repoWith([
      { message: 'entry', files: { 'src/index.js': 'export const connect = () => null;\n' } },
      { message: 'docs', files: { 'docs/quick-start.md': quickStart, 'docs/internals.md': 'The entry is [index](../src/index.js); see `src/index.js`.\n' } },
      { message: 'Convert the entry file to TypeScript', files: { 'src/index.js': null, 'src/index.ts': 'export const connect = (): null => null;\n' } },
    ]);
    const { candidates } = await detect(dir, true);
    expect(candidates.flatMap(named).filter((n) => n.startsWith('docs_drift.removed_path'))).toEqual(['docs_drift.removed_path docs/internals.md|path|src/index.js']);
    expect(readerCreatesFiles('Create a file named `src/app/store.js`.')).toBe(true);
    expect(readerCreatesFiles('Add a new file called `counterSlice.js`.')).toBe(true);
    expect(readerCreatesFiles('First, create `src/main.rs` with:')).toBe(true);
    expect(readerCreatesFiles('`create` returns a new store; see `src/store.ts`.')).toBe(false);
    expect(readerCreatesFiles('Add `src/util.ts` to the list.')).toBe(false);
  });

  it('never cites a line the removing commit wrote itself (it named the thing knowingly); a line rewritten later still counts', async () => {
    const dir = repoWith([
      { message: 'config', files: { 'src/config.ts': `${CONFIG_V1}\nexport function legacyMode(): boolean {\n  return false;\n}\nexport function strictMode(): boolean {\n  return true;\n}\n`, 'src/index.ts': INDEX_V1 } },
      { message: 'docs', files: { 'docs/modes.md': 'Turn on `legacyMode()` for old repositories.\n\nOr `strictMode()`.\n\nSee `strictMode()` above.\n' } },
      // The commit that removes `legacyMode` also points the doc at a copy kept elsewhere, naming it.
      { message: 'Drop the modes', files: { 'src/config.ts': CONFIG_V1, 'docs/modes.md': 'Copy `legacyMode()` from https://gist.example/2f1c if you need it.\n\nOr `strictMode()`.\n\nSee `strictMode()` above.\n' } },
      // Later a branch started before the removal is squash-merged: it rewrites a line, still naming `strictMode`.
      { message: 'Reword', files: { 'docs/modes.md': 'Copy `legacyMode()` from https://gist.example/2f1c if you need it.\n\nOr `strictMode()`.\n\nThe `strictMode()` of the strict plugin works too.\n' } },
    ]);
    const { candidates } = await detect(dir, true);
    expect(candidates.flatMap(named)).toEqual(['docs_drift.removed_name docs/modes.md|identifier|strictMode']);
    // Only `strictMode`'s lines are cited: the one unchanged since before the removal and the one rewritten later.
    expect(candidates[0]?.evidence.filter((e) => e.path === 'docs/modes.md').map((e) => e.lineStart)).toEqual([3, 5]);
  });

  it('cites the commit that deleted a file when a later edit of it, on a maintenance branch, was merged into the branch that deleted it', async () => {
    // fastify's shape: `next` deleted `test/types/index.ts`; v2 fixes to it on `master` were merged into `next`, which kept it deleted.
    const dir = repoWith([
      { message: 'types', files: { 'test/types/index.ts': 'export const a = 1;\n', 'src/index.ts': 'export const run = 1;\n' } },
      { message: 'docs', files: { 'docs/TypeScript.md': '# Types\n\nUpdate `test/types/index.ts` to validate changes.\n' } },
    ]);
    const trunk = git(dir, ['rev-parse', '--abbrev-ref', 'HEAD']).trim();
    // The fix on the maintenance branch is newer than the deletion, as in fastify's history.
    const at = (days: number): NodeJS.ProcessEnv => {
      const date = new Date(Date.now() - (30 - days) * 86_400_000).toISOString();
      return { GIT_AUTHOR_DATE: date, GIT_COMMITTER_DATE: date };
    };
    git(dir, ['checkout', '-q', '-b', 'next']);
    git(dir, ['rm', '-q', 'test/types/index.ts']);
    writeFile(dir, 'test/types/fastify.test-d.ts', 'export const b = 2;\n');
    git(dir, ['add', '-A']);
    git(dir, ['commit', '-q', '-m', 'TypeScript refactor'], at(1));
    const refactor = headOf(dir);
    git(dir, ['checkout', '-q', trunk]);
    writeFile(dir, 'test/types/index.ts', 'export const a = 2;\n');
    git(dir, ['commit', '-q', '-am', 'Fix a type (v2)'], at(2));
    git(dir, ['checkout', '-q', 'next']);
    // The merge conflicts (modified on one side, deleted on the other); `next` keeps the deletion.
    try {
      git(dir, ['merge', '-q', '--no-edit', trunk], at(3));
    } catch {
      git(dir, ['rm', '-q', 'test/types/index.ts']);
      git(dir, ['commit', '-q', '--no-edit'], at(3));
    }
    expect(fs.existsSync(path.join(dir, 'test/types/index.ts'))).toBe(false);
    const { candidates } = await detect(dir, true);
    expect(candidates.flatMap(named)).toEqual(['docs_drift.removed_path docs/TypeScript.md|path|test/types/index.ts']);
    expect(candidates[0]?.evidence.find((e) => e.commit !== undefined)?.commit).toBe(refactor);
  });

  it("leaves alone the README of an API client openapi-generator writes (its docs are regenerated), but notes the same link in the project's own docs", async () => {
    const readme = '# Go API client\n\n| Class | Doc |\n| --- | --- |\n| IdentityApi | [IdentityApi](docs/IdentityApi.md) |\n';
    for (const marked of [true, false]) {
      const dir = repoWith([
        { message: 'client', files: { 'client/api_identity.go': 'package client\n', 'client/docs/IdentityApi.md': '# IdentityApi\n', 'client/README.md': readme, ...(marked ? { 'client/.openapi-generator/VERSION': '7.12.0\n' } : {}) } },
        { message: 'Regenerate the client', files: { 'client/docs/IdentityApi.md': null } },
      ]);
      const { candidates } = await detect(dir, true);
      expect(candidates.flatMap(named)).toEqual(marked ? [] : ['docs_drift.removed_path client/README.md|path|client/docs/IdentityApi.md']);
    }
  });

  it('gates moved and deleted files apart: with `removed_path` off a moved file keeps its card and patch, a deleted one has none', async () => {
    const dir = repoWith([
      { message: 'parser, lexer', files: { 'src/parser.ts': 'export const parse = 1;\n', 'src/lexer.ts': 'export const lex = 1;\n' } },
      { message: 'docs', files: { 'docs/guide.md': 'The [parser](../src/parser.ts) reads input.\n', 'docs/lexer.md': 'The [lexer](../src/lexer.ts) splits it.\n' } },
      { message: 'Move the parser', mv: ['src/parser.ts', 'src/parse/parser.ts'] },
      { message: 'Drop the lexer', files: { 'src/lexer.ts': null } },
    ]);
    const off = new Set(['docs_drift.removed_path']);
    expect((await detect(dir, false, off)).candidates.map((c) => c.detector)).toEqual(['docs_drift.moved_path', 'docs_drift.rename_diff']);
    expect((await detect(dir)).candidates.map((c) => c.detector).sort()).toEqual(['docs_drift.moved_path', 'docs_drift.removed_path', 'docs_drift.rename_diff']);
    // With moved files off, only the deleted one's card (the cycle drops the patches of a detector that is off).
    const movedOff = (await detect(dir, false, new Set(['docs_drift.moved_path', 'docs_drift.rename_diff']))).candidates;
    expect(movedOff.filter((c) => c.kind === 'docs_drift').map((c) => c.detector)).toEqual(['docs_drift.removed_path']);
  });

  it("reads a link from a docs site's root under the doc's folders (a docsify site served from docs/)", async () => {
    const dir = repoWith([
      { message: 'api docs', files: { 'docs/api/Client.md': '# Client\n', 'src/index.js': 'module.exports = {};\n' } },
      { message: 'sidebar', files: { 'docs/docsify/sidebar.md': '* [Client](/docs/api/Client.md "Client")\n' } },
    ]);
    // The site moves under docs/: `/docs/api/Client.md` is now docs/docs/api/Client.md, served from docs/.
    fs.mkdirSync(path.join(dir, 'docs/docs'), { recursive: true });
    git(dir, ['mv', 'docs/api', 'docs/docs/api']);
    git(dir, ['commit', '-q', '-m', 'Serve the docs site from docs/']);
    const { candidates } = await detect(dir, true);
    expect(candidates).toEqual([]);
  });

  it("never examines a plan or a proposal's record, wherever it is kept", async () => {
    const dir = repoWith([
      { message: 'app', files: { 'src/cache.ts': 'export function warmCache(): number {\n  return 1;\n}\n' } },
      {
        message: 'docs',
        files: {
          'docs/dev/cache-plan.md': 'Today `warmCache()` fills it.\n',
          'docs/design/lazy.md': '# Lazy cache\n\nStatus: Rejected\n\nKeep `warmCache()`.\n',
          'docs/guide.md': 'Call `warmCache()` first.\n',
        },
      },
      { message: 'Drop warmCache', files: { 'src/cache.ts': 'export const cache = 1;\n' } },
    ]);
    const { candidates } = await detect(dir, true);
    expect(candidates.flatMap(named)).toEqual(['docs_drift.removed_name docs/guide.md|identifier|warmCache']);
  });

  it('follows a doc moved after the removal to its name then', async () => {
    const dir = repoWith([
      { message: 'config', files: { 'src/config.ts': `${CONFIG_V1}\nexport function legacyMode(): boolean {\n  return false;\n}\n`, 'src/index.ts': INDEX_V1 } },
      { message: 'docs', files: { 'book/modes.md': 'Turn on `legacyMode()` for old repositories.\n' } },
      { message: 'Drop legacy mode', files: { 'src/config.ts': CONFIG_V1 } },
      { message: 'The book becomes the guide', mv: ['book/modes.md', 'guide/modes.md'] },
    ]);
    const { candidates } = await detect(dir, true);
    expect(candidates.flatMap(named)).toEqual(['docs_drift.removed_name guide/modes.md|identifier|legacyMode']);
    expect(candidates[0]?.title).toContain('"Drop legacy mode"');
  });

  it('cites the commit that took the definition out, not a later one that dropped a leftover use', async () => {
    const dir = repoWith([
      { message: 'config', files: { 'src/config.ts': `${CONFIG_V1}\nexport function legacyMode(): boolean {\n  return false;\n}\n`, 'test/config.test.ts': "import { legacyMode } from '../src/config';\nlegacyMode();\n" } },
      { message: 'docs', files: { 'docs/modes.md': 'Turn on `legacyMode()` for old repositories.\n' } },
      { message: 'Drop legacy mode', files: { 'src/config.ts': CONFIG_V1 } },
      { message: 'Fix the tests', files: { 'test/config.test.ts': "import { parseConfig } from '../src/config';\nparseConfig('');\n" } },
    ]);
    const { candidates } = await detect(dir, true);
    expect(candidates.flatMap(named)).toEqual(['docs_drift.removed_name docs/modes.md|identifier|legacyMode']);
    expect(candidates[0]?.title).toContain('"Drop legacy mode"');
  });

  it('makes one card of what one commit left behind in several docs, and one patch for them', async () => {
    const page = 'Call `parseConfig()` first.\n';
    const dir = repoWith([
      { message: 'config parser', files: { 'src/config.ts': `${CONFIG_V1}export function legacyMode(): boolean {\n  return false;\n}\n`, 'src/index.ts': INDEX_V1 } },
      { message: 'docs in three languages', files: { 'docs/en/api.md': `${page}Turn on \`legacyMode()\`.\n`, 'docs/fr/api.md': page, 'docs/ja/api.md': page } },
      { message: 'Rename parseConfig, drop legacy mode', files: { 'src/config.ts': CONFIG_V1.replace('parseConfig', 'loadConfig'), 'src/index.ts': INDEX_V1.replace(/parseConfig/g, 'loadConfig') } },
    ]);
    const sha = headOf(dir);
    const { candidates } = await detect(dir);
    const drift = candidates.filter((c) => c.kind === 'docs_drift');
    expect(drift).toHaveLength(1);
    expect(drift[0]?.claim).toBe(`${sha}|identifier`);
    expect(named(drift[0] as Candidate).sort()).toEqual([
      'docs_drift.removed_name docs/en/api.md|identifier|legacyMode',
      'docs_drift.removed_name docs/en/api.md|identifier|parseConfig',
      'docs_drift.removed_name docs/fr/api.md|identifier|parseConfig',
      'docs_drift.removed_name docs/ja/api.md|identifier|parseConfig',
    ]);
    expect(drift[0]?.title).toContain('3 docs mention');
    expect(drift[0]?.body).toContain('`docs/ja/api.md` line 1: `parseConfig` (renamed `parseConfig` to `loadConfig`)');
    // The patch renames in every doc and leaves the removed name alone (no certain replacement).
    const patches = candidates.filter((c) => c.kind === 'virtual_diff');
    expect(patches).toHaveLength(1);
    const patch = patches[0]?.diff?.patch ?? '';
    applyCheck(dir, patch);
    expect(patch.match(/^diff --git/gm)).toHaveLength(3);
    expect(patch).not.toContain('+Turn on');
    expect(patch).toContain('+Call `loadConfig()` first.');
  });

  it('leaves alone a name the doc\'s own example declares, but not an option the example sets', async () => {
    const doc = ['```python', 'class Item(BaseModel):', '    is_offer: Union[bool, None] = None', '', '    class Config:', '        allow_population_by_alias = True', '```', '', 'Check `is_offer`; `allow_population_by_alias` fills fields by alias.', ''].join('\n');
    const dir = repoWith([
      { message: 'model and tests', files: { 'src/config.py': 'class Config:\n    allow_population_by_alias = False\n', 'tests/test_items.py': 'class Item:\n    is_offer: bool = None\n' } },
      { message: 'docs', files: { 'docs/index.md': doc } },
      { message: 'Drop old tests and an option', files: { 'src/config.py': 'class Config:\n    validate_all = False\n', 'tests/test_items.py': null } },
    ]);
    const { candidates } = await detect(dir);
    // (The same line with one word changed reads as a rename: a patch is offered too.)
    expect(candidates.flatMap(named)).toEqual(['docs_drift.removed_name docs/index.md|identifier|allow_population_by_alias', 'docs_drift.rename_diff docs/index.md|rename|allow_population_by_alias']);
  });

  it("never takes what a test, an example or a scratch file dropped for the project's own removal", async () => {
    const helpTest = "it('prints help', () => {\n  expect(help()).toContain('--cache-idle-timeout');\n});\n";
    const example = 'fn map_request(req: Request) -> Request {\n    req\n}\n';
    const dir = repoWith([
      { message: 'cli, test, example', files: { 'src/cli.ts': "program.option('--watch');\n", 'test/help.test.js': helpTest, 'examples/print/main.rs': example, 'play.ts': 'export const anotherField = 1;\n' } },
      { message: 'docs', files: { 'OPTIONS.md': '`--cache-idle-timeout` and `--watch`.\n', 'docs/middleware.md': 'See `map_request` for small changes.\n\nAn error on `anotherField` stops the check.\n' } },
      { message: 'Trim the help test, simplify the example', files: { 'test/help.test.js': "it('prints help', () => {\n  expect(help()).toBeTruthy();\n});\n", 'examples/print/main.rs': 'fn main() {}\n', 'play.ts': 'export {};\n' } },
    ]);
    expect((await detect(dir, true)).candidates).toEqual([]);
  });

  it("never takes what Yarn's vendored release or a docs build dropped for the project's removal", async () => {
    // react-redux: `toArray` went with a vendored `.yarn/releases/yarn-4.4.1.cjs`, `onChange` with `docs-build/index.html`.
    const dir = repoWith([
      {
        message: 'yarn, docs build',
        files: { 'src/index.ts': 'export const connect = 1;\n', '.yarn/releases/yarn-4.1.0.cjs': 'function toArray(x) {\n  return [x];\n}\n', 'docs-build/index.html': '<script>\nfunction onChange(e) {}\n</script>\n' },
      },
      { message: 'docs', files: { 'docs/select.md': 'Call `toArray()` on the list, then pass `onChange`.\n' } },
      { message: 'Upgrade yarn, drop the docs build', files: { '.yarn/releases/yarn-4.1.0.cjs': null, '.yarn/releases/yarn-4.4.1.cjs': 'module.exports = {};\n', 'docs-build/index.html': null } },
    ]);
    expect((await detect(dir, true)).candidates).toEqual([]);
  });

  it('reads plain text as a doc only in a docs folder or under a README-like name (elsewhere it is data)', async () => {
    const dir = repoWith([
      { message: 'cli', files: { 'Cargo.toml': '[package]\nname = "app"\n', 'src/cli.ts': "program.option('--host <triple>');\nprogram.option('--release');\nprogram.option('--quiet');\n" } },
      {
        message: 'docs and a recorded sysconfig',
        files: { 'sysconfig/cpython-3.8-aarch64.txt': `CONFIG_ARGS = "'--prefix=/usr' '--host=aarch64-linux-android' '--release'"\n`, 'docs/build.txt': 'Pass `--host` to cross-compile.\n', 'INSTALL.txt': 'Add `--release` for speed.\n' },
      },
      { message: 'Detect the host, always release', files: { 'src/cli.ts': "program.option('--quiet');\n" } },
    ]);
    const { candidates } = await detect(dir, true);
    expect(candidates.flatMap(named).sort()).toEqual(['docs_drift.removed_flag INSTALL.txt|flag|--release', 'docs_drift.removed_flag docs/build.txt|flag|--host']);
  });

  it("never takes a crate's `//!` docs for code, but a removed field's doc comment goes with the field", async () => {
    const lib = '//! If you defined `--myoption` and the user typed `--moyption`, clap suggests the fix.\npub struct Args {\n    /// Print only; --dry-run changes nothing.\n    dry_run: bool,\n}\n';
    const dir = repoWith([
      { message: 'lib', files: { 'src/lib.rs': lib } },
      { message: 'readme', files: { 'README.md': 'If you defined `--myoption` and typed `--moyption`, you get a hint. Pass `--dry-run` to preview.\n' } },
      { message: 'Tidy docs, drop dry run', files: { 'src/lib.rs': 'pub struct Args {\n}\n' } },
    ]);
    const { candidates } = await detect(dir, true);
    expect(candidates.flatMap(named)).toEqual(['docs_drift.removed_flag README.md|flag|--dry-run']);
  });

  it('leaves alone a name whose case alone changed (`Colors` → `COLORS`)', async () => {
    const dir = repoWith([
      { message: 'help', files: { 'src/cli.rs': 'const HELP: &str = r"\nColors\n------\nstyle strings\n";\npub fn help() -> &\'static str { HELP }\n' } },
      { message: 'readme', files: { 'README.md': 'See the `Colors` section of the help output.\n' } },
      { message: 'Update --help text', files: { 'src/cli.rs': 'const HELP: &str = r"\nCOLORS\n------\nstyle strings\n";\npub fn help() -> &\'static str { HELP }\n' } },
    ]);
    expect((await detect(dir, true)).candidates).toEqual([]);
  });

  it('patches a rename only where the name is defined, and never when one commit merged several names into one', async () => {
    const table = 'class DataTable:\n    cursor_cell = Reactive(0)\n\n    def clamp(self, value):\n        row = self.cursor_cell\n        return row\n';
    const layout = 'pub struct Config {\n    array_indent: IndentStyle,\n    fn_args_indent: IndentStyle,\n}\n';
    const dir = repoWith([
      { message: 'table and layout', files: { 'src/table.py': table, 'src/config.rs': layout } },
      { message: 'docs', files: { 'docs/table.md': 'Read `cursor_cell` for the position.\n', 'docs/config.md': 'Set `layout.array_indent` or `layout.fn_args_indent`.\n' } },
      { message: 'Rename the cursor', files: { 'src/table.py': table.replace('    cursor_cell = Reactive(0)\n', '    cursor_coordinate = Reactive(0)\n').replace('row = self.cursor_cell', 'row = self.coordinate') } },
      { message: "Replace '*_indent' with 'indent_style'", files: { 'src/config.rs': 'pub struct Config {\n    indent_style: IndentStyle,\n    indent_style: IndentStyle,\n}\n' } },
    ]);
    const { candidates } = await detect(dir);
    const patches = candidates.filter((c) => c.kind === 'virtual_diff');
    expect(patches).toHaveLength(1);
    expect(patches[0]?.title).toContain('`cursor_cell` → `cursor_coordinate`');
    expect(candidates.filter((c) => c.kind === 'docs_drift').flatMap(named).sort()).toEqual([
      'docs_drift.removed_config_key docs/config.md|config_key|layout.array_indent',
      'docs_drift.removed_config_key docs/config.md|config_key|layout.fn_args_indent',
      'docs_drift.removed_name docs/table.md|identifier|cursor_cell',
    ]);
  });

  it('patches no rename the commit says is a removal, unless it names the replacement too', async () => {
    const macros = 'pub fn format_args_f() {}\npub fn inline_props() {}\n';
    const dir = repoWith([
      { message: 'macros', files: { 'src/lib.rs': macros } },
      { message: 'docs', files: { 'docs/macros.md': 'Use `format_args_f` for text and `inline_props` for props.\n' } },
      // dioxus's "Remove deprecated macros": another macro now stands where the removed one stood.
      { message: 'Remove deprecated macros: format_args_f!', files: { 'src/lib.rs': macros.replace('format_args_f', 'derive_props') } },
      { message: 'Remove inline_props in favour of component_props', files: { 'src/lib.rs': macros.replace('format_args_f', 'derive_props').replace('inline_props', 'component_props') } },
    ]);
    const { candidates } = await detect(dir);
    const patches = candidates.filter((c) => c.kind === 'virtual_diff');
    expect(patches.map((p) => p.title)).toEqual([expect.stringContaining('`inline_props` → `component_props`')]);
    expect(candidates.filter((c) => c.kind === 'docs_drift').flatMap(named).sort()).toEqual(['docs_drift.removed_name docs/macros.md|identifier|format_args_f', 'docs_drift.removed_name docs/macros.md|identifier|inline_props']);
    // A subject that also says rename or move did rename; one that removes something else says nothing of this name.
    expect(saysRemoved('Rename parseConfig, drop legacy mode', 'parseConfig', 'loadConfig', 'identifier')).toBe(false);
    expect(saysRemoved('Drop legacy mode', 'parseConfig', 'loadConfig', 'identifier')).toBe(false);
    expect(saysRemoved('Remove --verbose (moved to the log crate)', 'verbose', 'quiet', 'flag')).toBe(false);
  });

  it('leaves alone a path the code still names as a default, though the repository moved its own copy', async () => {
    const dir = repoWith([
      { message: 'defaults', files: { 'lib/mocharc.json': '{ "opts": "./test/mocha.opts" }\n', 'test/mocha.opts': '--recursive\n', 'lib/run.js': 'module.exports = require("./mocharc.json");\n' } },
      { message: 'docs', files: { 'docs/index.md': 'By default, Mocha reads `test/mocha.opts`.\n' } },
      { message: 'Move our own opts', mv: ['test/mocha.opts', 'test/opts/mocha.opts'] },
    ]);
    expect((await detect(dir, true)).candidates).toEqual([]);
  });

  it('leaves alone the docs of an older major version kept beside the current one', async () => {
    const dir = repoWith([
      { message: 'code', files: { 'src/config.ts': `${CONFIG_V1}\nexport function legacyMode(): boolean {\n  return false;\n}\n`, 'src/index.ts': INDEX_V1 } },
      { message: 'docs', files: { 'docs/v1/modes.md': 'Turn on `legacyMode()`.\n', 'docs/v2/modes.md': 'Turn on `legacyMode()`.\n' } },
      { message: 'Drop legacy mode', files: { 'src/config.ts': CONFIG_V1 } },
    ]);
    expect((await detect(dir)).candidates.flatMap(named)).toEqual(['docs_drift.removed_name docs/v2/modes.md|identifier|legacyMode']);
  });

  it('notes an exported Go name that became unexported, with no patch to the unexported one', async () => {
    const dir = repoWith([
      { message: 'completion', files: { 'completion.go': 'package cli\n\nfunc BuildCompletionCommand(name string) string {\n\treturn name\n}\n' } },
      { message: 'docs', files: { 'docs/completion.md': 'Build one with `BuildCompletionCommand`.\n' } },
      { message: 'Unexport the builder', files: { 'completion.go': 'package cli\n\nfunc buildCompletionCommand(name string) string {\n\treturn name\n}\n' } },
    ]);
    const { candidates } = await detect(dir, true);
    expect(candidates.map((c) => c.detector)).toEqual(['docs_drift.removed_name']);
  });

  it('notes `--no-X` when the option `X` it was generated from is removed, and never while `X` exists', async () => {
    const flags = "module.exports = [\n  { name: 'firewall', type: Boolean, negative: true },\n  { name: 'hot', type: Boolean, negative: true },\n];\n";
    const dir = repoWith([
      { message: 'flags', files: { 'bin/cli-flags.js': flags } },
      { message: 'docs', files: { 'README.md': '`--no-firewall` disables the check; `--no-hot` turns reloading off.\n' } },
      { message: 'Migrate firewall to allowedHosts', files: { 'bin/cli-flags.js': flags.replace("  { name: 'firewall', type: Boolean, negative: true },\n", "  { name: 'allowed-hosts', type: String },\n") } },
    ]);
    const { candidates } = await detect(dir, true);
    expect(candidates.flatMap(named)).toEqual(['docs_drift.removed_flag README.md|flag|--no-firewall']);
  });

  it("keeps no moved path alive through a test page's leftover reference", async () => {
    const dir = repoWith([
      { message: 'core', files: { 'lib/eslint.js': 'module.exports = {};\n', 'tests/tests.htm': '<script src="lib/eslint.js"></script>\n' } },
      { message: 'docs', files: { 'docs/architecture.md': '* `lib/eslint.js` is the core object.\n' } },
      { message: 'New Linter API', mv: ['lib/eslint.js', 'lib/linter.js'] },
    ]);
    expect((await detect(dir, true)).candidates.map((c) => c.detector)).toEqual(['docs_drift.moved_path', 'docs_drift.rename_diff']);
  });

  it('finds the commit that removed a flag behind many newer commits that dropped the same bare word (`--jsx` among `.jsx` files)', async () => {
    const files = Array.from({ length: 12 }, (_, i) => `export const page${i} = './page${i}.jsx';`);
    const steps: Array<{ message: string; files?: Record<string, string | null> }> = [
      { message: 'cli and pages', files: { 'src/cli.ts': "program.option('--jsx <preset>');\nprogram.option('--watch');\n", 'src/pages.ts': `${files.join('\n')}\n` } },
      { message: 'docs', files: { 'docs/cli.md': 'Pick a preset with `--jsx`.\n' } },
      { message: 'Drop the jsx option', files: { 'src/cli.ts': "program.option('--watch');\n" } },
    ];
    for (let i = 1; i <= 12; i++) steps.push({ message: `Drop page ${i}`, files: { 'src/pages.ts': `${files.slice(i).join('\n')}\n` } });
    const dir = repoWith(steps);
    const { candidates } = await detect(dir);
    expect(candidates.map((c) => c.title)).toEqual([expect.stringContaining('"Drop the jsx option"')]);
  });

  it("offers no patch when a public name's place goes to a private one", async () => {
    const dir = repoWith([
      { message: 'options', files: { 'src/options.py': 'class Separator:\n    pass\n' } },
      { message: 'docs', files: { 'docs/options.md': 'Add a `Separator` between groups.\n' } },
      { message: 'Separators are None now', files: { 'src/options.py': 'class _LineCache:\n    pass\n' } },
    ]);
    expect((await detect(dir)).candidates.map((c) => c.detector)).toEqual(['docs_drift.removed_name']);
  });

  it('offers no patch for a file split in two (moved, with a sibling added beside it in the same commit)', async () => {
    const example = Array.from({ length: 12 }, (_, i) => `def example_${i}():\n    return ${i}\n`).join('\n');
    const dir = repoWith([
      { message: 'examples', files: { 'tests/typing_example.py': example } },
      { message: 'docs', files: { 'docs/contributing.md': 'Add a case to [the examples](../tests/typing_example.py).\n' } },
      { message: 'Split the typing examples', mv: ['tests/typing_example.py', 'typing-examples/mypy_examples.py'], files: { 'typing-examples/baseline_examples.py': 'def baseline():\n    return 0\n' } },
    ]);
    expect((await detect(dir, true)).candidates.map((c) => c.detector)).toEqual(['docs_drift.removed_path']);
  });

  it('reads the example code of markdown fences and reStructuredText literal blocks', () => {
    expect(exampleLines('docs/a.md', 'Intro `x`.\n```py\ndef f():\n    pass\n```\nAfter.\n')).toEqual(['def f():', '    pass']);
    expect(exampleLines('docs/a.rst', 'Use it::\n\n    def f():\n        pass\n\nProse again.\n\n.. code-block:: python\n\n   x = 1\n')).toEqual(['    def f():', '        pass', '   x = 1']);
    expect(exampleLines('docs/b.rst', 'A doctest:\n\n>>> class Point:\n...     x: int\n>>> Point()\n')).toEqual(['class Point:', '    x: int', 'Point()']);
  });
});
