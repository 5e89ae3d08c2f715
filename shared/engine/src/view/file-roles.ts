/**
 * What a file is for, by its path: tests, and fixtures or examples. Detectors ask this to tell the
 * project's own code from code that exercises or illustrates it.
 */
import * as path from 'node:path';

const TEST_FOLDERS = new Set(['test', 'tests', '__tests__', 'spec', 'specs', '__test__']);
const TEST_NAMES = [/\.(test|spec)\.[^.]+$/, /_test\.go$/, /^test_.*\.py$/, /_test\.py$/, /Tests?\.(java|kt)$/, /_spec\.rb$/, /^conftest\.py$/];
const FIXTURE_FOLDERS = /^(?:fixtures?|__fixtures__|testdata|test[_-]data|snapshots?|__snapshots__|__mocks__|examples?|demos?|samples?|playground|benches|benchmarks?|e2e)$/i;
/**
 * Folders of text the project generates or runs but does not ship as its interface: templates of
 * generated projects (`src/hatch/template/`), CI scripts and workflows (a flag dropped from
 * `ci/install.sh` is the installer's).
 */
const NOT_INTERFACE_FOLDERS = /^(?:templates?|ci|\.ci|\.github|\.circleci|\.gitlab|\.buildkite)$/i;
/**
 * Other projects' code and docs kept in the tree (`vendor/`, Python's `_vendor/`, `third_party/`,
 * `vendored_parsers/`, Yarn's own releases and plugins under `.yarn/`).
 */
const VENDORED_FOLDERS = /^(?:_?vendor(?:ed)?(?:[_-][\w-]+)?|third[_-]party|node_modules|\.yarn)$/i;
/**
 * What a test run writes (remix's committed `integration/playwright-report/index.html`, a top-level
 * `coverage/` report): generated pages, not the project's code.
 */
const TEST_OUTPUT_FOLDERS = /^(?:playwright-report|test-results|htmlcov|lcov-report|\.nyc_output)$/i;
/** A scratch file a maintainer plays with (zod's root `play.ts`): not the project's interface. */
const SCRATCH_NAMES = /^(?:play|playground|scratch|sandbox)\.[^.]+$/i;
/**
 * Top-level folders of the documentation site, its build and its examples (`docs-build/`,
 * `docs_src/`): they generate or illustrate pages, they are not the project.
 */
const DOC_SITE_ROOTS = /^(?:docs?|website|documentation)(?:[-_][\w-]+)?$/i;

/** Whether `path` is a test file: in a test folder, or named like one (`*.test.ts`, `*_test.go`, `test_*.py`, `*Test.java`). */
export function isTestPath(file: string): boolean {
  const segments = file.split('/');
  if (segments.slice(0, -1).some((s) => TEST_FOLDERS.has(s))) return true;
  const base = path.posix.basename(file);
  return TEST_NAMES.some((r) => r.test(base));
}

/**
 * Whether `file` is the project's own code rather than a test, a snapshot, a fixture, an example, a
 * scratch file or a benchmark, a template, CI, vendored code, a test run's report or the docs site's own scripts: what those drop (a
 * snapshot of another tool's help, an example's use of a dependency, a CI script's installer flag,
 * a vendored library's field) was never the project's.
 */
export function isProjectSource(file: string): boolean {
  if (isTestPath(file) || /\.snap(?:\.[\w-]+)?$/.test(file) || SCRATCH_NAMES.test(path.posix.basename(file))) return false;
  const folders = file.split('/').slice(0, -1);
  if (folders.length > 0 && (DOC_SITE_ROOTS.test(folders[0] as string) || folders[0] === 'coverage')) return false;
  return !folders.some((s) => FIXTURE_FOLDERS.test(s) || NOT_INTERFACE_FOLDERS.test(s) || VENDORED_FOLDERS.test(s) || TEST_OUTPUT_FOLDERS.test(s));
}

/** Whether a doc at `file` is one the project's users read: not a test's, a template's or a vendored project's text. */
export function isUserDoc(file: string): boolean {
  return !isTestPath(file) && !file.split('/').slice(0, -1).some((s) => (NOT_INTERFACE_FOLDERS.test(s) && !s.startsWith('.')) || VENDORED_FOLDERS.test(s));
}
