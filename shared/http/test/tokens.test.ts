import * as fs from 'node:fs';
import * as path from 'node:path';
import { bearerToken, parseTokenFile, parseTokenList, resolveAccess, serviceHeaders, TokenSet } from '@sous/http';
import { makeTempDir, rmTempDir } from '../../../test/support/tmp';

const A = 'a'.repeat(40);
const B = 'b'.repeat(64);

describe('token lists (SOUS_AUTH_TOKENS, SOUS_AUTH_TOKENS_FILE)', () => {
  test('a comma-separated list of name:token pairs; blanks and empty entries are ignored', () => {
    expect(parseTokenList(` team-a:${A} , ci.bot_1:${B},`)).toEqual([
      { name: 'team-a', secret: A },
      { name: 'ci.bot_1', secret: B },
    ]);
  });

  test('a file of "name token" or "name:token" lines with # comments', () => {
    const text = `# teams\n\nteam-a ${A}\n  team-b:${B}\r\n# team-c old\n`;
    expect(parseTokenFile(text, 'tokens.txt')).toEqual([
      { name: 'team-a', secret: A },
      { name: 'team-b', secret: B },
    ]);
  });

  test.each([
    [`${A}`, /entry 1 has no name/],
    [`team-a:${A},:${B}`, /entry 2 has no name/],
    [`team a:${A}`, /entry 1: the name must be/],
    [`team-a:`, /entry 1 \(name "team-a"\) has no token/],
    [`team-a:short-token`, /entry 1 \(name "team-a"\): the token has 11 characters, at least 32/],
    [`team-a:${'x'.repeat(31)}!`, /may hold only letters/],
  ])('refuses %j with one line naming the entry', (list, message) => {
    expect(() => parseTokenList(list)).toThrow(message);
  });

  test('a malformed line is named by its number, and the token is never quoted', () => {
    const secret = 'c'.repeat(20);
    let message = '';
    try {
      parseTokenFile(`team-a ${A}\n# c\nteam-c ${secret}\n`, 'SOUS_AUTH_TOKENS_FILE /run/secrets/t');
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toMatch(/^SOUS_AUTH_TOKENS_FILE \/run\/secrets\/t line 3 \(name "team-c"\)/);
    expect(message).not.toContain(secret);
    expect(() => parseTokenFile(`team-a ${A} extra`, 'f')).toThrow(/line 1: write one name and one token a line/);
    // A bare token (no name) is not echoed back as if it were a name.
    expect(() => parseTokenFile(`${B}`, 'f')).toThrow(/line 1 has no name/);
  });

  test('a name may own two tokens (rotation); one token under two names is refused', () => {
    const set = new TokenSet([
      { name: 'team-a', secret: A },
      { name: 'team-a', secret: B },
    ]);
    expect([set.nameOf(A), set.nameOf(B), set.nameOf('c'.repeat(40))]).toEqual(['team-a', 'team-a', undefined]);
    expect(set.names).toEqual(['team-a']);
    expect(
      () =>
        new TokenSet([
          { name: 'team-a', secret: A },
          { name: 'team-b', secret: A },
        ]),
    ).toThrow(/same token is listed under the names "team-a" and "team-b"/);
  });

  test('Authorization: Bearer parsing', () => {
    expect(bearerToken(undefined)).toBeUndefined();
    expect(bearerToken(`Bearer ${A}`)).toBe(A);
    expect(bearerToken(`bearer ${A}`)).toBe(A);
    expect(bearerToken(`Basic ${A}`)).toBeNull();
    expect(bearerToken('Bearer two words')).toBeNull();
  });
});

describe('access policy from the environment', () => {
  let dir: string;
  beforeAll(() => {
    dir = makeTempDir();
  });
  afterAll(() => rmTempDir(dir));

  test('loopback without tokens: nothing asked, no limit', () => {
    const access = resolveAccess({}, { host: '127.0.0.1', surface: 'daemon' });
    expect(access.tokens).toBeUndefined();
    expect(access.ratePerMinute).toBe(0);
    expect(serviceHeaders(access)).toEqual({});
  });

  test('with tokens: a limit per surface by default, SOUS_RATE_LIMIT_PER_MINUTE overrides (0 = off)', () => {
    const env = { SOUS_AUTH_TOKENS: `team-a:${A}` };
    expect(resolveAccess(env, { host: '127.0.0.1', surface: 'daemon' }).ratePerMinute).toBe(600);
    expect(resolveAccess(env, { host: '127.0.0.1', surface: 'proxy' }).ratePerMinute).toBe(120);
    expect(resolveAccess({ ...env, SOUS_RATE_LIMIT_PER_MINUTE: '0' }, { host: '127.0.0.1', surface: 'proxy' }).ratePerMinute).toBe(0);
    expect(resolveAccess({ ...env, SOUS_RATE_LIMIT_PER_MINUTE: '5' }, { host: '127.0.0.1', surface: 'context' }).ratePerMinute).toBe(5);
    expect(() => resolveAccess({ ...env, SOUS_RATE_LIMIT_PER_MINUTE: 'lots' }, { host: '127.0.0.1', surface: 'daemon' })).toThrow(/SOUS_RATE_LIMIT_PER_MINUTE must be a whole number/);
  });

  test('tokens from the list and the file together; this process calls others with SOUS_TOKEN, else the first one', () => {
    const file = path.join(dir, 'tokens');
    fs.writeFileSync(file, `team-b ${B}\n`);
    const access = resolveAccess({ SOUS_AUTH_TOKENS: `team-a:${A}`, SOUS_AUTH_TOKENS_FILE: file }, { host: '10.0.0.5', surface: 'context' });
    expect(access.tokens?.names).toEqual(['team-a', 'team-b']);
    expect(serviceHeaders(access)).toEqual({ authorization: `Bearer ${A}` });
    expect(serviceHeaders(resolveAccess({ SOUS_AUTH_TOKENS_FILE: file, SOUS_TOKEN: 'own' }, { host: '10.0.0.5', surface: 'context' }))).toEqual({ authorization: 'Bearer own' });
  });

  test('a token file that is missing or lists nothing is refused', () => {
    const empty = path.join(dir, 'empty');
    fs.writeFileSync(empty, '# nothing yet\n');
    expect(() => resolveAccess({ SOUS_AUTH_TOKENS_FILE: empty }, { host: '127.0.0.1', surface: 'daemon' })).toThrow(/lists no tokens/);
    expect(() => resolveAccess({ SOUS_AUTH_TOKENS_FILE: path.join(dir, 'absent') }, { host: '127.0.0.1', surface: 'daemon' })).toThrow(/cannot read .*absent \(ENOENT\)/);
  });

  test('off loopback, tokens are required unless SOUS_AUTH=off (with a warning)', () => {
    for (const host of ['0.0.0.0', '10.1.2.3', '::']) {
      expect(() => resolveAccess({}, { host, surface: 'daemon' })).toThrow(/needs tokens: set SOUS_AUTH_TOKENS or SOUS_AUTH_TOKENS_FILE/);
    }
    const off = resolveAccess({ SOUS_AUTH: 'off' }, { host: '0.0.0.0', surface: 'daemon' });
    expect(off.tokens).toBeUndefined();
    expect(off.ratePerMinute).toBe(600);
    expect(off.warnings.join('\n')).toMatch(/SOUS_AUTH=off/);
    expect(() => resolveAccess({ SOUS_AUTH: 'maybe' }, { host: '127.0.0.1', surface: 'daemon' })).toThrow(/SOUS_AUTH must be on or off/);
  });

  test('the proxy also accepts SOUS_PROXY_API_KEY (any length), named proxy-key; other surfaces ignore it', () => {
    const proxy = resolveAccess({ SOUS_PROXY_API_KEY: 'legacy-key' }, { host: '127.0.0.1', surface: 'proxy' });
    expect(proxy.tokens?.nameOf('legacy-key')).toBe('proxy-key');
    expect(resolveAccess({ SOUS_PROXY_API_KEY: 'legacy-key' }, { host: '127.0.0.1', surface: 'daemon' }).tokens).toBeUndefined();
  });

  test('SOUS_TRUST_PROXY: a hop count or addresses; anything else is refused', () => {
    expect(resolveAccess({ SOUS_TRUST_PROXY: '1' }, { host: '127.0.0.1', surface: 'daemon' }).trustProxy).toBe(1);
    expect(resolveAccess({ SOUS_TRUST_PROXY: 'loopback, 10.0.0.0/8' }, { host: '127.0.0.1', surface: 'daemon' }).trustProxy).toEqual(['loopback', '10.0.0.0/8']);
    expect(() => resolveAccess({ SOUS_TRUST_PROXY: 'true' }, { host: '127.0.0.1', surface: 'daemon' })).toThrow(/SOUS_TRUST_PROXY must be/);
  });
});
