import { PathTermIndex, pathStem, pathTerms, analyzePrompt } from '../src/ranking';

describe('path terms', () => {
  test('a path yields the stemmed words of its folders and file name, without the extension', () => {
    // `v8` splits into `v` and `8`, both too short to count.
    expect(pathTerms('src/v8-to-istanbul/lib/source.js').sort()).toEqual(['istanbul', 'lib', 'sourc', 'src']);
    expect(pathTerms('src/istanbul-lib-instrument/src/readCoverage.ts')).toEqual(expect.arrayContaining(['instrument', 'read', 'coverag']));
  });

  test('prose forms meet the labels they talk about', () => {
    expect(pathStem('routing')).toBe(pathStem('route'));
    expect(pathStem('instrumentation')).toBe(pathStem('instrument'));
    expect(pathStem('migration')).toBe(pathStem('migrate'));
    // Short words stay whole.
    expect(pathStem('qs')).toBe('qs');
    expect(pathStem('ing')).toBe('ing');
  });

  test('labels and code terms of the prompt count, rare ones more; prose does not; removals are followed', () => {
    const index = new PathTermIndex();
    for (let i = 0; i < 40; i++) index.add(`src/pkg${i}/index.js`);
    index.add('src/router/lib/route.js');
    index.add('src/router/index.js');
    index.add('src/lodash/once.js');
    const labelled = index.scores(analyzePrompt('router: Fix `route` matching requests without method'));
    expect(labelled.get('src/router/lib/route.js')?.matched).toEqual(['route', 'router']);
    expect(labelled.get('src/router/lib/route.js')?.share ?? 0).toBeGreaterThan(labelled.get('src/router/index.js')?.share ?? 0);
    // A prose word that is a file name (`once`) is no label.
    expect(index.scores(analyzePrompt('Map unique files once, regardless of path separator')).size).toBe(0);
    // `src` and `index` are in most paths: skipped.
    expect(index.scores(analyzePrompt('`src`: the `index` is stale')).size).toBe(0);
    index.remove('src/router/lib/route.js');
    expect([...index.scores(analyzePrompt('router: slow')).keys()]).toEqual(['src/router/index.js']);
    expect(index.size).toBe(42);
  });
});

describe('prompt labels', () => {
  test.each([
    ['qs: [Fix] `parse`: decode dots', ['qs', 'parse']],
    ['fix(config): disable `isolatedDeclarations`', ['config']],
    ['**clover:** always close the last tag', ['clover']],
    ['[router] next() skips handlers', ['router']],
    ['@babel/parser: Fix typo', ['babel', 'parser']],
    ['fix: use the full path', []],
    ['TypeError: Cannot read properties of null', []],
    ['src/qs/lib/utils.js fails', []],
    ['The parser drops keys: see below', []],
  ])('%s', (prompt, labels) => {
    expect(analyzePrompt(prompt).labels).toEqual(labels);
  });
});
