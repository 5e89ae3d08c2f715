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

  test('scores favour rare labels, skip labels most paths carry, and follow removals', () => {
    const index = new PathTermIndex();
    for (let i = 0; i < 40; i++) index.add(`src/pkg${i}/index.js`);
    index.add('src/router/lib/route.js');
    index.add('src/router/index.js');
    const scores = index.scores(analyzePrompt('Fix routing requests without method').terms);
    expect([...scores.keys()]).toEqual(['src/router/lib/route.js']);
    expect(scores.get('src/router/lib/route.js')?.matched).toEqual(['routing']);
    const both = index.scores(analyzePrompt('router: routing requests without method').terms);
    expect((both.get('src/router/lib/route.js')?.share ?? 0)).toBeGreaterThan(both.get('src/router/index.js')?.share ?? 0);
    expect(index.scores(analyzePrompt('the src index').terms).size).toBe(0);
    index.remove('src/router/lib/route.js');
    expect(index.scores(analyzePrompt('Fix routing').terms).size).toBe(0);
    expect(index.size).toBe(41);
  });
});
