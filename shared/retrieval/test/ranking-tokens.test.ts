import { Bm25Index, codeTokens, normalizeToken, plainTokens } from '../src/ranking';
import { BoundedMemo, codeTermCounts, IDENTIFIER_MEMO_LIMIT, identifierTokensOf } from '../src/ranking/tokens';
import { splitIdentifier } from '../src/symbols';

describe('codeTokens', () => {
  test.each([
    ['getUserName', ['getusername', 'get', 'user', 'name']],
    ['user_id = load_user(request)', ['user_id', 'user', 'id', 'load_user', 'load', 'user', 'request']],
    ['HTTPServer', ['httpserver', 'http', 'server']],
    ['parseJSONResponse', ['parsejsonresponse', 'parse', 'json', 'response']],
    ['MAX_RETRIES', ['max_retry', 'max', 'retry']],
    ['users and entries', ['user', 'entry']],
    ['class status analysis', ['class', 'status', 'analysis']],
    ['the x of 42 items', ['item']],
    ['utf8Decode v2', ['utf8decode', 'utf', 'decode', 'v2']],
    ['const self = this; return a', []],
    ['', []],
  ])('%s', (text, expected) => {
    expect(codeTokens(text)).toEqual(expected);
  });

  test('splitIdentifier keeps every part, lowercased', () => {
    expect(splitIdentifier('getHTTPResponse_v2')).toEqual(['get', 'http', 'response', 'v', '2']);
  });

  test.each([
    ['__init__', 'init'],
    ['$scope', 'scope'],
    ['_', null],
    ['2024', null],
    ['Users', 'user'],
    ['statuses', 'statuse'],
    ['class', 'class'],
    ['analysis', 'analysis'],
    ['venus', 'venus'],
    ['ENTRIES', 'entry'],
    ['Ties', 'tie'],
    ['its', null],
    ['x'.repeat(65), null],
  ])('normalizeToken(%s)', (raw, token) => {
    expect(normalizeToken(raw)).toBe(token);
  });

  test('identifierTokensOf is codeTokens of one identifier, remembered or not', () => {
    for (const id of ['getUserNames', 'MAX_RETRIES', '_private$', 'utf8Decode', 'x', 'the', `a${'Bc'.repeat(80)}`]) {
      expect(identifierTokensOf(id)).toEqual(codeTokens(id));
      expect(identifierTokensOf(id)).toEqual(codeTokens(id));
    }
    expect(IDENTIFIER_MEMO_LIMIT).toBeGreaterThan(1000);
  });

  test('codeTermCounts counts exactly the tokens codeTokens lists', () => {
    const text = 'getUserName(user); user.getUserName(); const USER_NAME = getUserName; users.push(userName)';
    const expected = new Map<string, number>();
    for (const token of codeTokens(text)) expected.set(token, (expected.get(token) ?? 0) + 1);
    const { counts, length } = codeTermCounts(text);
    expect(counts).toEqual(expected);
    expect(length).toBe(codeTokens(text).length);
    expect(counts.get('getusername')).toBe(3);
    expect(counts.get('user')).toBe(8); // user ×2, users, and a part of getUserName ×3, USER_NAME and userName
  });

  test('BoundedMemo keeps at most its limit, forgetting the oldest first', () => {
    const memo = new BoundedMemo<number>(3);
    for (const [i, key] of ['a', 'b', 'c', 'd', 'e'].entries()) memo.set(key, i);
    expect(memo.size).toBe(3);
    expect(['a', 'b', 'c', 'd', 'e'].map((key) => memo.get(key))).toEqual([undefined, undefined, 2, 3, 4]);
    memo.set('c', 9);
    expect(memo.size).toBe(3);
    expect(memo.get('c')).toBe(9);
    for (let i = 0; i < 100; i += 1) memo.set(`k${i}`, i);
    expect(memo.size).toBe(3);
  });

  test('plainTokens neither splits nor stems', () => {
    expect(plainTokens('getUserName(users); the x')).toEqual(['getusername', 'users', 'the', 'x']);
  });
});

describe('Bm25Index', () => {
  // Hand-computed: N = 2, avgdl = 3, k1 = 1.2, b = 0.75, idf = ln(1 + (N - df + 0.5) / (df + 0.5)).
  const build = (): Bm25Index => {
    const index = new Bm25Index();
    index.add('d1', 'apple banana');
    index.add('d2', 'apple cherry cherry cherry');
    return index;
  };

  test('scores a rare term by hand', () => {
    const hits = build().search(['cherry']);
    // tf = 3, |d2| = 4: 3 * 2.2 / (3 + 1.2 * (0.25 + 0.75 * 4 / 3)) = 6.6 / 4.5; idf = ln 2.
    expect(hits).toHaveLength(1);
    expect(hits[0]?.docId).toBe('d2');
    expect(hits[0]?.score).toBeCloseTo(Math.log(2) * (6.6 / 4.5), 10);
    expect(hits[0]?.matched).toEqual(['cherry']);
  });

  test('scores a common term by hand and prefers the shorter document', () => {
    const idf = Math.log(1 + 0.5 / 2.5);
    const hits = build().search(['apple']);
    expect(hits.map((h) => h.docId)).toEqual(['d1', 'd2']);
    expect(hits[0]?.score).toBeCloseTo(idf * (2.2 / 1.9), 10);
    expect(hits[1]?.score).toBeCloseTo(idf * (2.2 / 2.5), 10);
  });

  test('weights multiply term contributions', () => {
    const index = build();
    const once = index.search([{ term: 'cherry', weight: 1 }])[0]?.score ?? 0;
    expect(index.search([{ term: 'cherry', weight: 2.5 }])[0]?.score).toBeCloseTo(once * 2.5, 10);
  });

  test('add and remove keep frequencies and scores incremental', () => {
    const index = build();
    const before = index.search(['apple', 'cherry'], 10);
    index.add('d3', 'apple durian');
    expect(index.size).toBe(3);
    expect(index.documentFrequency('apple')).toBe(3);
    expect(index.search(['durian'])[0]?.docId).toBe('d3');
    expect(index.remove('d3')).toBe(true);
    expect(index.remove('d3')).toBe(false);
    expect(index.documentFrequency('apple')).toBe(2);
    expect(index.documentFrequency('durian')).toBe(0);
    expect(index.search(['apple', 'cherry'], 10)).toEqual(before);
  });

  test('re-adding a document replaces its text', () => {
    const index = build();
    index.add('d2', 'banana');
    expect(index.size).toBe(2);
    expect(index.search(['cherry'])).toEqual([]);
    expect(index.documentFrequency('banana')).toBe(2);
  });

  test('ties break by id and k limits the hits', () => {
    const index = new Bm25Index();
    for (const id of ['c', 'a', 'b']) index.add(id, 'same words here');
    expect(index.search(['word'], 2).map((h) => h.docId)).toEqual(['a', 'b']);
  });

  test('code mode finds identifier parts that plain BM25 misses', () => {
    const code = new Bm25Index();
    const plain = new Bm25Index({ mode: 'plain' });
    for (const index of [code, plain]) {
      index.add('user.ts', 'export function getUserName(u) { return u.name }');
      index.add('order.ts', 'export function total(order) { return order.sum }');
    }
    expect(code.search(code.tokenize('user')).map((h) => h.docId)).toEqual(['user.ts']);
    expect(plain.search(plain.tokenize('user'))).toEqual([]);
  });

  test('scores give the top hits of search and look single documents up', () => {
    const index = new Bm25Index();
    for (let i = 0; i < 30; i++) index.add(`doc${String(i).padStart(2, '0')}`, `apple ${'cherry '.repeat(i % 7)}filler`);
    const scores = index.scores(['cherry', 'apple']);
    const all = index.search(['cherry', 'apple'], 100);
    expect(scores.top(5)).toEqual(all.slice(0, 5));
    expect(scores.count).toBe(30);
    expect(scores.hit('doc03')).toEqual(all.find((h) => h.docId === 'doc03'));
    expect(scores.score('doc03')).toBe(scores.hit('doc03')?.score);
    expect(scores.hit('missing')).toBeUndefined();
    expect(scores.score('missing')).toBe(0);
    const seen: string[] = [];
    scores.forEach((id) => seen.push(id));
    expect(seen.sort()).toEqual(all.map((h) => h.docId).sort());
  });

  test('an empty index returns nothing', () => {
    expect(new Bm25Index().search(['anything'])).toEqual([]);
  });
});
