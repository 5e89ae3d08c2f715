'use strict';
// Which changed files of a fix count as "the file to change": source code, not tests, docs,
// changelogs, fixtures or generated files. The ranker's own role prior lives in
// shared/retrieval/src/ranking/roles.ts; this copy is deliberately independent of it, so the
// benchmark's answer key does not move when the ranker's prior is tuned.

const SOURCE_EXT = /\.(py|pyi|pyx|js|mjs|cjs|jsx|ts|mts|cts|tsx|vue|svelte|go|rs|c|h|cc|cpp|hpp|java|kt|rb|php|cs|swift|scala|lua|sh)$/i;
const TEST_PATH = /(^|\/)(tests?|testing|__tests__|__mocks__|spec|specs|testdata|test[-_]data|test[-_]?fixtures|fixtures|e2e|benchmarks?|benches|playground|examples?)\//i;
const TEST_NAME = /(^|\/)(test_[^/]*|[^/]*_test\.(py|go)|[^/]*\.(test|spec)\.[cm]?[jt]sx?|[^/]*_spec\.rb|conftest\.py|tests?\.rs)$/i;
const DOC_PATH = /(^|\/)(docs?|documentation|changelog\.d|changes|news|release-notes)\//i;
const GENERATED = /(^|\/)(vendor|third_party|node_modules|dist|build)\/|\.min\.js$|(^|\/)package-lock\.json$|\.lock$/i;

/** Whether a changed path is code a bug report's fix is "about". */
function isSourceFile(path) {
  return SOURCE_EXT.test(path) && !TEST_PATH.test(path) && !TEST_NAME.test(path) && !DOC_PATH.test(path) && !GENERATED.test(path);
}

module.exports = { isSourceFile };
