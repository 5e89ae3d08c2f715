/**
 * The credential formats as the default `privacy.redact_patterns`: each common format is redacted
 * (only its secret part), ordinary code about credentials is not, line numbers survive, redacting
 * twice changes nothing, and no text makes the patterns slow.
 */
import { compileRedactPatterns, CREDENTIAL_FORMATS, CREDENTIAL_PATTERNS, redactText } from '@sous/protocol';

const PATTERNS = compileRedactPatterns(CREDENTIAL_PATTERNS);
const redact = (text: string): string => redactText(text, PATTERNS);
/** Joined at run time: this file holds nothing a secret scanner would flag. */
const j = (...parts: string[]): string => parts.join('');

describe('credential formats', () => {
  it.each([
    ['AWS access key id', `id = "${j('AKIA', 'Q7RTZX4WPL9MNB2V')}"`, 'id = "AKIA[redacted]"'],
    ['AWS secret access key', `aws_secret_access_key = ${j('wJalrXUtnFEMI', '/K7MDENG/', 'bPxRfiCYzzQw3rTy9a')}`, 'aws_secret_access_key = [redacted]'],
    ['AWS secret access key (JSON)', `"SecretAccessKey": "${j('wJalrXUtnFEMI', '/K7MDENG/', 'bPxRfiCYzzQw3rTy9a')}"`, '"SecretAccessKey": "[redacted]"'],
    ['GitHub classic token', `t = ${j('ghp', '_', 'Zq7'.repeat(12))}`, 't = ghp_[redacted]'],
    ['GitHub OAuth, user, server, refresh tokens', ['gho', 'ghu', 'ghs', 'ghr'].map((p) => j(p, '_', 'Ab9'.repeat(12))).join(' '), 'gho_[redacted] ghu_[redacted] ghs_[redacted] ghr_[redacted]'],
    ['GitHub fine-grained token', j('github_pat', '_', '11AB', 'Zq7x'.repeat(20)), 'github_pat_[redacted]'],
    ['Slack tokens', ['xoxb', 'xoxa', 'xoxp', 'xoxr', 'xoxs'].map((p) => j(p, '-', '2468013579-QwErTyUiOp')).join(' '), 'xoxb-[redacted] xoxa-[redacted] xoxp-[redacted] xoxr-[redacted] xoxs-[redacted]'],
    ['Slack webhook', `url: https://hooks.slack.com/services/${j('T0ABCDEFG', '/B0HIJKLMN/', 'Xy9'.repeat(8))}`, 'url: https://hooks.slack.com/services/[redacted]'],
    ['Google API key', `key=${j('AIza', 'Sy', 'Dq7'.repeat(11))}`, 'key=AIza[redacted]'],
    ['Stripe live and restricted keys', `${j('sk_live', '_', '4eC39HqLyjWDarjtT1zdp7dc')} ${j('rk_live', '_', '9fD28GpKxiVCzqisS0ycoa6b')}`, 'sk_live_[redacted] rk_live_[redacted]'],
    ['OpenAI key', `OPENAI_API_KEY = "${j('sk-', 'proj-', 'Ab3d'.repeat(8))}"`, 'OPENAI_API_KEY = "[redacted]"'],
    ['Anthropic key', `key: ${j('sk-', 'ant-', 'api03-', 'Zx9y'.repeat(10))}`, 'key: [redacted]'],
    ['JWT', `Bearer ${j('eyJ', 'hbGciOiJIUzI1NiJ9', '.eyJ', 'zdWIiOiIxMjM0NTY3ODkwIn0', '.', 'Sfl'.repeat(14))}`, 'Bearer eyJ[redacted]'],
    ['password in a URL', `DATABASE_URL=postgres://app:${j('Tr0ub4', 'dor')}@db.internal:5432/app`, 'DATABASE_URL=postgres://app:[redacted]@db.internal:5432/app'],
    ['password in a URL without a user', `redis://:${j('pa55', 'word')}@localhost:6379/0`, 'redis://:[redacted]@localhost:6379/0'],
    ['quoted password assignment', `password = "${j('hunter2', '-Quill')}"`, 'password = "[redacted]"'],
    ['JSON client secret', `"client_secret": "${j('abcDEF', '123456')}"`, '"client_secret": "[redacted]"'],
    ['Go short assignment', `apiKey := "${j('k3y', 'V4lue')}"`, 'apiKey := "[redacted]"'],
    ['unquoted env assignment', `export DB_PASSWORD=${j('s3cr3t', 'Value99')}`, 'export DB_PASSWORD=[redacted]'],
    ['unquoted YAML secret', `  secret: ${j('abc123', 'def456')}`, '  secret: [redacted]'],
    ['unquoted env assignment added in a diff', `@@ -1 +1,2 @@\n+DB_PASSWORD=${j('s3cr3t', 'Value99')}\n-TOKEN=${j('0ld', 'T0ken99')}`, '@@ -1 +1,2 @@\n+DB_PASSWORD=[redacted]\n-TOKEN=[redacted]'],
  ])('redacts the secret part of a %s', (_name, text, expected) => {
    expect(redact(text)).toBe(expected);
  });

  it('redacts a whole PEM private key body and keeps its line count, also cut off or inside a string', () => {
    const body = ['MIIEowIBAAKCAQEA', 'x7Kq'.repeat(10), 'Zz9'.repeat(12)];
    const pem = (kind: string) => `-----BEGIN ${kind}PRIVATE KEY-----\n${body.join('\n')}\n-----END ${kind}PRIVATE KEY-----`;
    for (const kind of ['', 'RSA ', 'EC ', 'OPENSSH ', 'ENCRYPTED ']) {
      expect(redact(`before\n${pem(kind)}\nafter\n`)).toBe(`before\n-----BEGIN ${kind}PRIVATE KEY-----\n[redacted]\n\n\n-----END ${kind}PRIVATE KEY-----\nafter\n`);
    }
    expect(redact(`-----BEGIN PGP PRIVATE KEY BLOCK-----\n\n${body[1]}\n-----END PGP PRIVATE KEY BLOCK-----`)).toBe('-----BEGIN PGP PRIVATE KEY BLOCK-----\n\n[redacted]\n-----END PGP PRIVATE KEY BLOCK-----');
    expect(redact(`-----BEGIN RSA PRIVATE KEY-----\n${body[0]}\n${body[1]}`)).toBe('-----BEGIN RSA PRIVATE KEY-----\n[redacted]\n');
    expect(redact(`key = "-----BEGIN PRIVATE KEY-----\\n${body[1]}\\n-----END PRIVATE KEY-----\\n"`)).toBe('key = "-----BEGIN PRIVATE KEY-----[redacted]-----END PRIVATE KEY-----\\n"');
    // In a git patch (redacted whole) every line keeps its prefix, so the patch still parses; a cut-off
    // block ends where a key body cannot go on (a hunk header).
    const patch = ['@@ -1,1 +1,5 @@', ' const a = 1;', '+const pem = `-----BEGIN RSA PRIVATE KEY-----', `+${body[0]}`, `+${body[1]}`, '+-----END RSA PRIVATE KEY-----`;', `-${body[2]}`, '@@ -9 +9 @@', ' const b = 2;', ''].join('\n');
    expect(redact(patch)).toBe(['@@ -1,1 +1,5 @@', ' const a = 1;', '+const pem = `-----BEGIN RSA PRIVATE KEY-----', '+[redacted]', '+', '+-----END RSA PRIVATE KEY-----`;', `-${body[2]}`, '@@ -9 +9 @@', ' const b = 2;', ''].join('\n'));
    const cut = ['+-----BEGIN EC PRIVATE KEY-----', `+${body[0]}`, '@@ -20 +20 @@', ' tail();'].join('\n');
    expect(redact(cut)).toBe(['+-----BEGIN EC PRIVATE KEY-----', '+[redacted]', '@@ -20 +20 @@', ' tail();'].join('\n'));
    // A public key is no secret.
    expect(redact(`-----BEGIN PUBLIC KEY-----\n${body[1]}\n-----END PUBLIC KEY-----`)).toContain(body[1]);
  });

  it.each([
    'password = getpass()',
    'token = None',
    'password: str',
    'def login(user: str, password: Optional[str] = None) -> None:',
    'token = os.environ["GITHUB_TOKEN"]',
    'password = ""',
    'api_key = config.api_key',
    'self.token = token',
    'password = password',
    'max_tokens = 4096',
    'tokenizer = "bert-base-uncased"',
    'password_hash = "pbkdf2_sha256"',
    'token: "Enter your token here"',
    'password = "changeme"',
    'secret = "${SECRET}"',
    'env = { "GITHUB_TOKEN": "GITHUB_TOKEN" }',
    't("auth.token.expired") // token: "auth.token.expired"',
    'let password = String::new();',
    'password := os.Getenv("PW")',
    'url = "postgres://user:${DB_PASSWORD}@localhost/db"',
    'use postgres://user:password@host:5432/database or redis://:pass@host, e.g. postgres://sous:…@postgres:5432/sous',
    'api_key = "env:EXPLORE_KEY"',
    'http://localhost:8080/path and https://example.com:443/x',
    'id = AKIAIOSFODNN7EXAMPLE',
    'The task-runner-configuration-file-format is described below.',
    'const mask = (s: string) => s.replace(/k/g, "[redacted]");',
  ])('leaves ordinary code as written: %s', (text) => {
    expect(redact(text)).toBe(text);
  });

  it('is idempotent and keeps every line break', () => {
    const text = [
      `AWS = "${j('AKIA', 'Q7RTZX4WPL9MNB2V')}"`,
      `password = "${j('hunter2', '-Quill')}"`,
      `-----BEGIN RSA PRIVATE KEY-----`,
      'x7Kq'.repeat(10),
      `-----END RSA PRIVATE KEY-----`,
      `db = "postgres://app:${j('Tr0ub4', 'dor')}@db:5432/app"`,
      '',
    ].join('\n');
    const once = redact(text);
    expect(redact(once)).toBe(once);
    expect(once.split('\n')).toHaveLength(text.split('\n').length);
  });

  it('stays linear on long runs of the characters its contexts start with', () => {
    for (const unit of [' ', '\t', '\n', 'password:"', 'token = "', 'http://u:', '= ', 'eyJabcdefghij.', '-----BEGIN RSA PRIVATE KEY-----']) {
      const text = unit.repeat(Math.ceil(200_000 / unit.length));
      const started = process.hrtime.bigint();
      redact(text);
      // Generous for a loaded CI machine; a quadratic pattern takes minutes here.
      expect({ unit, slow: Number(process.hrtime.bigint() - started) / 1e6 > 5_000 }).toEqual({ unit, slow: false });
    }
  });

  it('gives every format an id, a kind and a pattern that compiles; signatures find redacted text', () => {
    expect(compileRedactPatterns(CREDENTIAL_PATTERNS)).toHaveLength(CREDENTIAL_FORMATS.length);
    expect(new Set(CREDENTIAL_FORMATS.map((f) => f.id)).size).toBe(CREDENTIAL_FORMATS.length);
    const github = CREDENTIAL_FORMATS.find((f) => f.id === 'github-token');
    expect(github?.signature?.test('token = "ghp_[redacted]"')).toBe(true);
    expect(github?.signature?.test('token = "[redacted]"')).toBe(false);
  });
});
