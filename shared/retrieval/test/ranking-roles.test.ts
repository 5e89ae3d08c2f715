/**
 * The role prior and test counterparts: a report's body mentioning "test" does not promote the test
 * suite, and a test that matches a report hands part of its evidence to the file it is named for.
 */
import { analyzePrompt, rankFiles, rolePrior, testedName } from '../src/ranking';

describe('testedName', () => {
  it.each([
    ['tests/unit/test_install.py', 'install.py'],
    ['pkg/action/upgrade_test.go', 'upgrade.go'],
    ['test/unit/mocha.spec.js', 'mocha.js'],
    ['src/__tests__/parser.test.ts', 'parser.ts'],
    ['tests/choose.rs', 'choose.rs'],
  ])('%s is named for %s', (path, name) => {
    expect(testedName(path)).toBe(name);
  });

  it.each(['src/install.py', 'tests/conftest.py', 'tests/test.rs', 'test/index.js', 'docs/test_guide.md'])('%s names no file', (path) => {
    expect(testedName(path)).toBeUndefined();
  });
});

describe('rolePrior', () => {
  it('treats shell completion scripts as data unless the request asks for completions', () => {
    const report = analyzePrompt('pdm update --unconstrained ignores the lock strategy\n\nRunning pdm update with --unconstrained rewrites every pin.');
    expect(rolePrior('src/pdm/cli/completions/pdm.zsh', report, false).factor).toBeLessThan(1);
    expect(rolePrior('src/pdm/cli/completions/pdm.zsh', analyzePrompt('zsh completion misses the update command'), false).factor).toBe(1);
  });

  it('takes the request line, not a report body, as asking for tests', () => {
    const report = analyzePrompt('Crash when installing an editable package\n\nMy test suite runs `pdm install` and the test fails with a KeyError.');
    expect(rolePrior('tests/test_install.py', report, false).factor).toBeLessThan(1);
    const ask = analyzePrompt('Add tests for the editable install\n\nThe installer lives in src/pdm/installers.');
    expect(rolePrior('tests/test_install.py', ask, false).factor).toBe(1);
    expect(rolePrior('tests/test_install.py', analyzePrompt('where are the tests for install'), false).factor).toBe(1);
  });

  it('does not read a test runner named in a report as asking for tests', () => {
    const report = analyzePrompt('pytest crashes on a parametrized fixture\n\nRunning pytest -x gives a traceback.');
    expect(rolePrior('testing/test_fixtures.py', report, false).factor).toBeLessThan(1);
  });
});

describe('test counterparts', () => {
  const prompt = analyzePrompt('Editable install drops the extras\n\nInstalling an editable package with extras skips the extras resolution entirely.');
  const candidates = [
    // The test spells out the scenario; the code it tests shares few of the report's words.
    { path: 'tests/test_editable.py', text: 'def test_editable_install_keeps_extras():\n    # editable install with extras resolves the extras\n    install(editable=True, extras=["x"])\n', code: true },
    { path: 'src/pkg/editable.py', text: 'def build_editable(project):\n    return wheel(project)\n', code: true },
    { path: 'src/pkg/other.py', text: 'def unrelated_install():\n    pass\n', code: true },
  ];

  it('lifts the file a matching test is named for, and says which test', () => {
    const ranked = rankFiles(prompt, candidates);
    const editable = ranked.find((r) => r.path === 'src/pkg/editable.py');
    expect(editable?.rationale.map((e) => `${e.signal}: ${e.detail}`)).toContain('test_counterpart: its test tests/test_editable.py matches the prompt');
    const without = rankFiles(prompt, candidates, { weights: { test_counterpart: 0 } }).find((r) => r.path === 'src/pkg/editable.py');
    expect(editable?.score ?? 0).toBeGreaterThan(without?.score ?? 0);
  });

  it('lifts source files only, never another test', () => {
    const ranked = rankFiles(prompt, [...candidates, { path: 'tests/editable.py', text: 'helpers', code: true }]);
    expect(ranked.find((r) => r.path === 'tests/editable.py')?.rationale.some((e) => e.signal === 'test_counterpart') ?? false).toBe(false);
  });
});
