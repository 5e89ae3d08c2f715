/**
 * Test counterparts: a test file named for the file it tests (`tests/test_install.py` for
 * `install.py`, `upgrade_test.go`, `mocha.spec.js`, Rust's `tests/choose.rs`). A bug report often
 * matches the test that exercises the broken code better than the code itself: the test spells out
 * the same scenario. The role prior rightly pushes the test down; this link hands part of its
 * evidence to the file it is named for (`test_counterpart` in weights.ts).
 */
import { pathBase } from './paths';
import { fileRole } from './roles';

/** `test_x`, `x_test`, `x_tests`, `x.test`, `x.spec`, `x-test`, `x-spec`: the tested name is `x`. */
const TEST_AFFIX = /^test_(.+)$|^(.+?)(?:_tests?|[.-](?:test|spec))$/i;
/** Program files: a test is code (`docs/test_guide.md` reads as a test by its name, but tests nothing). */
const CODE = /\.(?:[cm]?[jt]sx?|vue|svelte|py|rb|go|rs|java|kts?|scala|groovy|c|h|cc|cpp|cxx|hpp|cs|php|swift|mm?|lua|sh)$/i;
/** Names that say nothing about which file is tested (`tests/test.rs`, `tests/index.js`). */
const GENERIC = new Set(['test', 'tests', 'spec', 'specs', 'index', 'mod', '__init__', 'conftest', 'main', 'lib']);

/**
 * The bare file name a test file is named for (`tests/unit/test_install.py` → `install.py`), with
 * the test's own extension; undefined for a file that is not a test or whose name is generic.
 */
export function testedName(path: string): string | undefined {
  if (fileRole(path).role !== 'test') return undefined;
  const base = pathBase(path);
  const dot = base.lastIndexOf('.');
  if (dot <= 0 || !CODE.test(base)) return undefined;
  const stem = base.slice(0, dot);
  const affix = TEST_AFFIX.exec(stem);
  const name = affix === null ? stem : (affix[1] ?? affix[2] ?? '');
  if (name === '' || GENERIC.has(name.toLowerCase())) return undefined;
  return `${name}${base.slice(dot)}`;
}
