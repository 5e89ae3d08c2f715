/**
 * Secrets are never served to agents (issue 15): a repository with every common credential format
 * planted, indexed by a real daemon on PostgreSQL first under a narrow privacy config of its own and then,
 * after a restart, under today's defaults. No planted secret comes back from `POST /v1/context`, MCP
 * `search`, `GET /v1/index/changes` or `sous context --json` (daemon and offline), none sits in the
 * store's tables (queried directly), a card stored under the old redaction is redacted again,
 * credential files (SSH keys, .env, keystores, *.pem, credentials.json, .npmrc) are not indexed at
 * all, and ordinary code such as `password = getpass()` is indexed as written.
 */
import { sql } from 'drizzle-orm';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { defaultConfig } from '@sous/config';
import { createSousMcpServer } from '@sous/mcp';
import { DaemonClient } from '@sous/runtime';
import { openStore, type Store } from '@sous/store';
import { embeddedEnv, freePort, sous } from './support/cli';
import { rawRequest } from './support/http';
import { postgresUrl, redisUrl, uniqueName } from './support/services';
import { git, makeGitRepo, rmTempDir, writeFile } from './support/tmp';
import { dropSchema } from '../shared/store/test/helpers';
import { until } from './support/wait';

/**
 * Format-valid fake values, joined at run time so this file holds no string a secret scanner would
 * flag. `hidden` is the part that must never come back (a public prefix such as `AKIA` may).
 */
const j = (...parts: string[]): string => parts.join('');
const SECRETS: Record<string, { value: string; hidden: string }> = {};
function secret(name: string, prefix: string, hidden: string): string {
  SECRETS[name] = { value: prefix + hidden, hidden };
  return prefix + hidden;
}
const AWS_ID = secret('AWS access key id', 'AKIA', j('Z7QW', 'ERTY', 'UIOP', 'ASDF'));
const AWS_SECRET = secret('AWS secret key', '', j('wJalrXUtnFEMI', '/K7MDENG/', 'bPxRfiCYzz', 'Qw3rTy9a'));
const GHP = secret('GitHub token', 'ghp_', 'Zq7'.repeat(12));
const GH_PAT = secret('GitHub fine-grained token', 'github_pat_', j('11AB', 'Zq7x'.repeat(20)));
const SLACK = secret('Slack token', 'xoxb-', j('2468013579', '-', '1357924680', '-', 'QwErTyUiOpAsDf'));
const HOOK = secret('Slack webhook', '', j('T0ABCDEFG', '/B0HIJKLMN/', 'Xy9'.repeat(8)));
const GOOGLE = secret('Google API key', 'AIza', j('Sy', 'Dq7'.repeat(11)));
const STRIPE = secret('Stripe secret key', 'sk_live_', j('4eC39Hq', 'LyjWDarjtT1zdp7dc'));
const STRIPE_R = secret('Stripe restricted key', 'rk_live_', j('9fD28Gp', 'KxiVCzqisS0ycoa6b'));
const OPENAI = secret('OpenAI key', '', j('sk-', 'proj-', 'Ab3d'.repeat(8)));
const ANTHROPIC = secret('Anthropic key', '', j('sk-', 'ant-', 'api03-', 'Zx9y'.repeat(10)));
const JWT = secret('JWT', 'eyJ', j('hbGciOiJIUzI1NiJ9', '.eyJ', 'zdWIiOiIxMjM0NTY3ODkwIn0', '.', 'Sfl'.repeat(14)));
const DB_PASSWORD = secret('password in a URL', '', j('Tr0ub4', 'dor', '-x9'));
const PASSWORD = secret('password assignment', '', j('hunter', '2', '-', 'Quill', '7'));
const YAML_PASSWORD = secret('unquoted YAML password', '', j('pl41n', 'Yaml', 'Pw'));
const YAML_SECRET = secret('quoted YAML secret', '', j('9f8e7d', '6c5b4a'));
const ENV_TOKEN = secret('unquoted env token', '', j('tok3n', 'V4lu3', 'xyz'));
const PEM_BODY = secret('PEM private key body', '', j('b3BlbnNzaC1r', 'ZXktdjEAAAAA', 'x7Kq'.repeat(10)));

/** Files that must not be indexed at all; each holds a marker so a leak is found whatever redaction does. */
const EXCLUDED: Record<string, string> = {
  id_rsa: `-----BEGIN RSA PRIVATE KEY-----\nmarkerIdRsa ${PEM_BODY}\n-----END RSA PRIVATE KEY-----\n`,
  'deploy/id_ed25519': `-----BEGIN OPENSSH PRIVATE KEY-----\nmarkerIdEd25519\n-----END OPENSSH PRIVATE KEY-----\n`,
  '.env': `markerDotEnv=1\nOPENAI_API_KEY=${OPENAI}\n`,
  '.env.local': `markerDotEnvLocal=1\n`,
  'src/certs/server.pem': `markerServerPem\n`,
  'src/server.key': `markerServerKey\n`,
  'config/credentials.json': `{ "markerCredentials": "${GHP}" }\n`,
  'src/secrets.yaml': `markerSecretsYaml: 1\n`,
  'android/release.jks': `markerJks\n`,
  'src/app.keystore': `markerKeystore\n`,
  'certs/client.p12': `markerP12\n`,
  '.npmrc': `//registry.npmjs.org/:_authToken=${ENV_TOKEN}\n# markerNpmrc\n`,
};
const MARKERS = ['markerIdRsa', 'markerIdEd25519', 'markerDotEnv', 'markerDotEnvLocal', 'markerServerPem', 'markerServerKey', 'markerCredentials', 'markerSecretsYaml', 'markerJks', 'markerKeystore', 'markerP12', 'markerNpmrc'];

const SETTINGS = [
  `AWS_ACCESS_KEY_ID = "${AWS_ID}"`,
  `aws_secret_access_key = "${AWS_SECRET}"`,
  `GH_CLASSIC = "${GHP}"`,
  `GH_FINE = "${GH_PAT}"`,
  `SLACK_BOT = "${SLACK}"`,
  `SLACK_WEBHOOK_URL = "https://hooks.slack.com/services/${HOOK}"`,
  `MAPS_KEY = "${GOOGLE}"`,
  `STRIPE_LIVE = "${STRIPE}"`,
  `STRIPE_RESTRICTED = "${STRIPE_R}"`,
  `OPENAI = "${OPENAI}"`,
  `ANTHROPIC = "${ANTHROPIC}"`,
  `SESSION = "${JWT}"`,
  `DATABASE_URL = "postgres://app:${DB_PASSWORD}@db.internal:5432/app"`,
  `password = "${PASSWORD}"`,
  '',
].join('\n');
const YAML = `database:\n  password: ${YAML_PASSWORD}\n  secret: "${YAML_SECRET}"\napi:\n  token: ${ENV_TOKEN}\n`;
const KEYS_TS = `export const DEPLOY_KEY = \`-----BEGIN OPENSSH PRIVATE KEY-----\n${PEM_BODY}\n${PEM_BODY}\n-----END OPENSSH PRIVATE KEY-----\`;\nexport const afterKey = 1;\n`;
/** Ordinary code about credentials: indexed exactly as written. */
const ORDINARY = [
  'from getpass import getpass',
  'def login(user: str, password: str) -> None:',
  '    password = getpass()',
  '    token = None',
  '    api_key = config.api_key',
  '    max_tokens = 4096',
  '    tokenizer = "bert-base-uncased"',
  '',
].join('\n');

const PROMPT = 'AWS_ACCESS_KEY_ID aws_secret_access_key GH_CLASSIC GH_FINE SLACK_BOT SLACK_WEBHOOK_URL MAPS_KEY STRIPE_LIVE OPENAI ANTHROPIC SESSION DATABASE_URL password DEPLOY_KEY database secret token login getpass id_rsa env credentials keystore npmrc';

function expectNoSecret(text: string, where: string): void {
  for (const [name, s] of Object.entries(SECRETS)) {
    expect({ where, name, leaked: text.includes(s.value) || text.includes(s.hidden) }).toEqual({ where, name, leaked: false });
  }
  for (const marker of MARKERS) expect({ where, marker, leaked: text.includes(marker) }).toEqual({ where, marker, leaked: false });
}

describe('secrets are never served to agents nor stored (server topology, restart under new defaults)', () => {
  let repo: string;
  let env: NodeJS.ProcessEnv;
  let port: number;
  let url: string;
  const schema = uniqueName('secrets');
  const queue = uniqueName('secretsq');
  let store: Store;
  let workspaceId: string;
  let staleCardId: string;

  const ask = (body: unknown) => rawRequest({ port, method: 'POST', path: '/v1/context', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const up = async (): Promise<void> => {
    const started = await sous(['up', '--path', repo, '--port', String(port), '--json'], { env });
    expect(started.code).toBe(0);
    await until(async () => ((await rawRequest({ port, path: '/status' })).json.index?.state === 'ready' ? true : undefined), 90_000, 200);
  };
  const rows = async <T>(query: ReturnType<typeof sql>): Promise<T[]> => ((await store.db.execute(query)) as unknown as { rows: T[] }).rows;

  beforeAll(async () => {
    repo = makeGitRepo();
    writeFile(repo, 'src/settings.py', SETTINGS);
    writeFile(repo, 'src/config.yaml', YAML);
    writeFile(repo, 'src/keys.ts', KEYS_TS);
    writeFile(repo, 'src/login.py', ORDINARY);
    writeFile(repo, 'id_rsa.pub', 'ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQC7 dev@laptop\n');
    writeFile(repo, '.env.example', 'OPENAI_API_KEY=\nDATABASE_URL=postgres://app:${DB_PASSWORD}@localhost/app\n');
    for (const [rel, content] of Object.entries(EXCLUDED)) writeFile(repo, rel, content);
    git(repo, ['add', '-A']);
    git(repo, ['commit', '-q', '-m', 'plant credentials']);
    url = await postgresUrl();
    env = embeddedEnv({ DATABASE_URL: url, SOUS_DB_SCHEMA: schema, REDIS_URL: await redisUrl(), SOUS_QUEUE_NAME: queue });
    port = await freePort();

    // A config of one's own, narrower than today's defaults (an earlier release's exact defaults
    // would be read as today's): the whole repository, two exclusions, an sk- pattern only.
    const set = (key: string, value: unknown) => sous(['config', 'set', key, JSON.stringify(value), '--path', repo], { env });
    expect((await sous(['init', '--path', repo, '--non-interactive', '--json'], { env })).code).toBe(0);
    expect((await set('privacy.allowed_paths', ['**'])).code).toBe(0);
    expect((await set('privacy.excluded_patterns', ['*.env', '*.pem'])).code).toBe(0);
    expect((await set('privacy.redact_patterns', ['sk-[A-Za-z0-9]{20,}'])).code).toBe(0);
    await up();
    store = await openStore({ databaseUrl: url, schema });
    workspaceId = (await rows<{ id: string }>(sql`SELECT id FROM workspaces`))[0]!.id;
    // Under that config the store held the secrets and the SSH key: what the restart must undo.
    const before = (await rows<{ text: string }>(sql`SELECT text FROM index_blobs`)).map((r) => r.text).join('\n');
    expect(before).toContain(GHP);
    expect(before).toContain('markerIdRsa');
    // A card prepared under the old redaction, quoting a line of the file.
    staleCardId = (await store.workProducts.insert({ workspaceId, kind: 'review_note', state: 'ready', title: 'A key in src/settings.py', body: `Line 3 reads \`GH_CLASSIC = "${GHP}"\`.` })).id;
    expect((await sous(['down', '--path', repo], { env })).code).toBe(0);

    // Today's defaults, then a restart.
    expect((await set('privacy.excluded_patterns', defaultConfig().privacy.excluded_patterns)).code).toBe(0);
    expect((await set('privacy.redact_patterns', defaultConfig().privacy.redact_patterns)).code).toBe(0);
    await up();
  }, 300_000);

  afterAll(async () => {
    await sous(['down', '--path', repo], { env });
    await store?.close();
    await dropSchema(url, schema);
    rmTempDir(repo);
  }, 60_000);

  test('the store holds no secret and no excluded file: index tables and stored cards, queried directly', async () => {
    const blobs = await rows<{ key: string; text: string }>(sql`SELECT key, text FROM index_blobs`);
    const files = (await rows<{ path: string }>(sql`SELECT path FROM index_files WHERE NOT removed ORDER BY path`)).map((r) => r.path);
    const cards = await rows<Record<string, unknown>>(sql`SELECT * FROM work_products`);
    expectNoSecret(JSON.stringify(blobs), 'index_blobs');
    expectNoSecret(JSON.stringify(cards), 'work_products');
    for (const rel of Object.keys(EXCLUDED)) expect(files).not.toContain(rel);
    expect(files).toEqual(expect.arrayContaining(['src/settings.py', 'src/config.yaml', 'src/keys.ts', 'src/login.py', 'id_rsa.pub', '.env.example']));
    expect(cards.find((c) => c.id === staleCardId)?.body).toBe('Line 3 reads `GH_CLASSIC = "ghp_[redacted]"`.');
  });

  test('GET /v1/index/changes serves redacted texts, keeps ordinary code as written and lists no excluded file', async () => {
    const res = await rawRequest({ port, path: '/v1/index/changes?since=0' });
    expect(res.status).toBe(200);
    expectNoSecret(res.text, '/v1/index/changes');
    const files = res.json.delta.upserted as Array<{ path: string; text: string }>;
    const text = (path: string) => files.find((f) => f.path === path)?.text;
    for (const rel of Object.keys(EXCLUDED)) expect(files.map((f) => f.path)).not.toContain(rel);
    expect(text('src/login.py')).toBe(ORDINARY);
    expect(text('src/settings.py')).toContain('AWS_ACCESS_KEY_ID = "AKIA[redacted]"');
    expect(text('src/settings.py')).toContain('DATABASE_URL = "postgres://app:[redacted]@db.internal:5432/app"');
    expect(text('src/config.yaml')).toBe('database:\n  password: [redacted]\n  secret: "[redacted]"\napi:\n  token: [redacted]\n');
    // The key's whole body is gone; its lines stay, so line numbers are the file's own.
    expect(text('src/keys.ts')).toBe('export const DEPLOY_KEY = `-----BEGIN OPENSSH PRIVATE KEY-----\n[redacted]\n\n-----END OPENSSH PRIVATE KEY-----`;\nexport const afterKey = 1;\n');
  });

  test('POST /v1/context answers from the planted files without a secret', async () => {
    const res = await ask({ prompt: PROMPT, top_n: 50, budget_tokens: 100_000 });
    expect(res.status).toBe(200);
    const paths = (res.json.items as Array<{ path: string }>).map((i) => i.path);
    expect(paths).toEqual(expect.arrayContaining(['src/settings.py', 'src/keys.ts', 'src/config.yaml']));
    expectNoSecret(res.text, '/v1/context');
  });

  test('MCP search answers without a secret', async () => {
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const server = createSousMcpServer({ version: '0.1.0-test', daemon: async () => new DaemonClient(`http://127.0.0.1:${port}`), workspace: repo });
    await server.connect(serverSide);
    const client = new Client({ name: 'sous-test', version: '0.0.0' });
    await client.connect(clientSide);
    try {
      const result = await client.callTool({ name: 'search', arguments: { query: PROMPT, top_n: 50, budget_tokens: 100_000 } });
      expect(result.isError).not.toBe(true);
      expect(JSON.stringify(result.structuredContent)).toContain('src/settings.py');
      expectNoSecret(JSON.stringify(result), 'MCP search');
    } finally {
      await client.close();
    }
  });

  test('a stored card is inspected redacted', async () => {
    const res = await rawRequest({ port, path: `/work-products/${staleCardId}/inspect?diagnostic=true` });
    expect(res.status).toBe(200);
    expect(res.text).toContain('ghp_[redacted]');
    expectNoSecret(res.text, 'card inspect');
  });

  test('while the index still holds texts of an older scope, /v1/index/changes serves them redacted by the patterns in force', async () => {
    const set = (value: unknown) => sous(['config', 'set', 'privacy.redact_patterns', JSON.stringify(value), '--path', repo], { env });
    // Paused (Auto Focus), the daemon reads nothing: a config change waits to be rebuilt, the store keeps the old texts.
    expect((await sous(['focus', 'pause', repo], { env })).code).toBe(0);
    await until(async () => ((await rawRequest({ port, path: '/status' })).json.index?.suspended === true ? true : undefined), 30_000, 100);
    try {
      expect((await set([...defaultConfig().privacy.redact_patterns, 'afterKey'])).code).toBe(0);
      const keys = await until(async () => {
        const res = await rawRequest({ port, path: '/v1/index/changes?since=0' });
        const text = (res.json.delta.upserted as Array<{ path: string; text: string }>).find((f) => f.path === 'src/keys.ts')?.text;
        return text?.includes('export const [redacted] = 1;') ? text : undefined;
      }, 30_000, 200);
      expect(keys).not.toContain('afterKey');
      const stored = (await rows<{ text: string }>(sql`SELECT text FROM index_blobs`)).map((r) => r.text).join('\n');
      expect(stored).toContain('export const afterKey = 1;');
    } finally {
      expect((await set(defaultConfig().privacy.redact_patterns)).code).toBe(0);
      expect((await sous(['focus', 'resume', repo], { env })).code).toBe(0);
    }
    await until(async () => ((await rawRequest({ port, path: '/status' })).json.index?.suspended === false ? true : undefined), 30_000, 100);
  }, 120_000);

  test('sous context --json answers without a secret, from the daemon and offline', async () => {
    const viaDaemon = await sous(['context', '--path', repo, '--prompt', PROMPT, '--top-n', '50', '--json'], { env });
    expect(viaDaemon.code).toBe(0);
    expect(viaDaemon.json.stats.answered_by).toBe('daemon');
    expectNoSecret(viaDaemon.stdout, 'sous context (daemon)');
    expect((await sous(['down', '--path', repo], { env })).code).toBe(0);
    const offline = await sous(['context', '--path', repo, '--prompt', PROMPT, '--top-n', '50', '--json'], { env });
    expect(offline.code).toBe(0);
    expect(offline.json.stats.answered_by).toBe('cli');
    expect(offline.json.items.map((i: { path: string }) => i.path)).toContain('src/settings.py');
    expectNoSecret(offline.stdout, 'sous context (offline)');
  }, 120_000);
});
