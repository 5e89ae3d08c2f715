/**
 * The credential formats Sous knows: one list, used twice. Its `pattern`s are the default
 * `privacy.redact_patterns` (so every text Sous stores or serves is redacted by them), and the review
 * detector names what a redaction hid from each format's `signature` (so a card can say "an AWS access
 * key id" without ever seeing the key).
 *
 * Where a format has a public prefix or context (`AKIA`, `ghp_`, `xoxb-`, `password = "`, the
 * armour lines of a PEM block, the user and host of a URL), only the secret part is redacted
 * (`AKIA[redacted]`, `postgres://app:[redacted]@db`): the kept part says what was there and is no
 * secret. A pattern marks that part with a group named `secret` (see `redactText`); the context
 * around it is part of the match rather than a lookbehind, so the engine can skip ahead to a literal
 * prefix instead of trying every position (a lookbehind-first list cost twenty times as much).
 * Credential names are matched in any case by spelling each letter as a class (`[Pp][Aa]…`):
 * `privacy.redact_patterns` entries carry no flags.
 */

/** One credential format. */
export interface CredentialFormat {
  /** Stable id (`aws-access-key-id`). */
  readonly id: string;
  /** What a card calls it ("AWS access key id"). */
  readonly kind: string;
  /** The redaction pattern (a `privacy.redact_patterns` entry); its `secret` group, or else the whole match, is redacted. */
  readonly pattern: string;
  /**
   * Finds the format on one line of text, redacted (`AKIA[redacted]`) or not, without needing the
   * secret; absent where nothing but the secret shows the format (a bare `[redacted]`).
   */
  readonly signature?: RegExp;
  /** A credential-named assignment (`password = "…"`): weaker evidence, skipped in docs and tests. */
  readonly assignment?: true;
}

/** What every redaction leaves in place of the secret. */
export const REDACTED = '[redacted]';
const MARK = '\\[redacted\\]';

/** A character of a PEM key's body: base64, line breaks and blanks, `\n` escapes, `Proc-Type: 4,ENCRYPTED` headers. */
const PEM_BODY = '[A-Za-z0-9+/=:, \\t\\r\\n\\\\-]';

/** `source` with every ASCII letter outside a class matching either case (`key` → `[Kk][Ee][Yy]`). */
function anyCase(source: string): string {
  return source.replace(/\[[^\]]*\]|[A-Za-z]/g, (m) => (m.length === 1 ? `[${m.toUpperCase()}${m.toLowerCase()}]` : m));
}

/**
 * Identifiers that name a credential when they end an assignment's key: `password`, `DB_PASSWORD`,
 * `client_secret`, `apiKey`, `GITHUB_TOKEN`. `max_tokens`, `tokenizer` or `password_hash` do not end
 * with one.
 */
export const CREDENTIAL_NAME = anyCase('(?:passw(?:or)?d|secret|token|api[_-]?key|access[_-]?key|secret[_-]?key|private[_-]?key|auth[_-]?key)');

/**
 * `name = `, `name: `, `"name": `, `name := `, `'name' => ` (the key's closing quote is optional).
 * Blanks are bounded so that no run of them is scanned more than a few characters at a time.
 */
const ASSIGN = `['"]?[ \\t]{0,8}(?::=|=>|[:=])[ \\t]{0,8}`;

/**
 * Values that are names, references or placeholders, not secrets: `${VAR}`, `<token>`, `%s`, `*****`,
 * `env:NAME` (how Sous's own config names a variable),
 * an upper-case constant (`GITHUB_TOKEN`, an environment variable's name), a dotted lower-case key
 * (`auth.token.expired`), a URL, and the usual placeholder words.
 */
const NOT_A_VALUE =
  `(?![$<{%*&|>!\\[])(?!env:)(?![A-Z][A-Z0-9_]*['"])(?![a-z]+(?:[._][a-z]+)+['"])` +
  `(?![^\\s'"]*(?:example|EXAMPLE|placeholder|changeme|change_me|dummy|your[_-]|redacted|xxxx|://))`;

/**
 * A format whose `before` context is kept and whose `secret` is redacted (`after` is a lookahead);
 * the signature finds the same context around either the secret or `[redacted]`.
 */
function kept(id: string, kind: string, before: string, secret: string, after = ''): CredentialFormat {
  const tail = after === '' ? '' : `(?=${after})`;
  return { id, kind, pattern: `${before}(?<secret>${secret})${tail}`, signature: new RegExp(`${before}(?:${MARK}|${secret})${tail}`) };
}

/**
 * The formats, in the order they are applied. The first is the pattern the spec gives as the
 * default (`sk-` keys: OpenAI, Anthropic `sk-ant-…`, and the many services that copied the shape).
 */
export const CREDENTIAL_FORMATS: readonly CredentialFormat[] = [
  { id: 'sk-api-key', kind: 'API key', pattern: '(?<![A-Za-z0-9_-])sk-[A-Za-z0-9_-]{20,}' },
  // The whole body of a PEM private key (RSA, EC, DSA, OpenSSH, PKCS#8, encrypted, PGP), up to its
  // END line; cut off, up to the first character no key body holds (the end of a string, a diff's
  // `@@`), or the end of the text. Also inside a string with `\n` escapes, and in a diff, whose
  // line prefixes `redactText` keeps. The signature is the BEGIN line, which redaction leaves.
  {
    ...kept(
      'private-key',
      'private key',
      '-----BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----',
      `${PEM_BODY}+?`,
      `-----END [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----|(?!${PEM_BODY})|$`,
    ),
    signature: /-----BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----/,
  },
  // AWS access key ids; AWS's documented samples (`AKIAIOSFODNN7EXAMPLE`) are left for the docs.
  kept('aws-access-key-id', 'AWS access key id', '(?<![A-Za-z0-9])(?:AKIA|ASIA|ABIA|ACCA)', '(?![A-Z0-9]*EXAMPLE)[A-Z0-9]{16}(?![A-Za-z0-9])'),
  // AWS secret access keys have no prefix: they are known by the name they are assigned to.
  kept(
    'aws-secret-access-key',
    'AWS secret access key',
    `${anyCase('(?:aws_?)?secret_?(?:access_?)?key')}${ASSIGN}['"]?`,
    '(?![A-Za-z0-9/+]*EXAMPLE)[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])',
  ),
  kept('github-token', 'GitHub token', '(?<![A-Za-z0-9_])(?:gh[pousr]_|github_pat_)', '[A-Za-z0-9_]{30,255}(?![A-Za-z0-9_])'),
  kept('slack-token', 'Slack token', '(?<![A-Za-z0-9])xox[abposr]-', '[A-Za-z0-9-]{10,}'),
  kept('slack-webhook', 'Slack webhook URL', 'hooks\\.slack\\.com/(?:services|workflows|triggers)/', '[A-Za-z0-9_/-]{20,}'),
  kept('google-api-key', 'Google API key', '(?<![A-Za-z0-9_-])AIza', '[0-9A-Za-z_-]{35}(?![A-Za-z0-9_-])'),
  kept('stripe-key', 'Stripe key', '(?<![A-Za-z0-9_])(?:sk_live_|sk_test_|rk_live_|rk_test_|whsec_)', '[0-9A-Za-z]{16,}'),
  kept('jwt', 'JSON Web Token', '(?<![A-Za-z0-9_-])eyJ', '[A-Za-z0-9_-]{8,}\\.eyJ[A-Za-z0-9_-]{8,}\\.[A-Za-z0-9_-]*'),
  // scheme://user:PASSWORD@host: the user and host stay. Placeholders stay too (`${DB_PASSWORD}`,
  // `<pw>`, and the words docs write: `postgres://user:password@host`, `…`).
  kept('url-password', 'password in a URL', '://(?<=[A-Za-z0-9]://)[^\\s:/?#@\'"`]{0,256}:', '(?![$<{%*\\[])(?!(?:password|passwd|pass|pwd|secret|changeme|\\.\\.\\.|…|x+)@)[^\\s/?#@\'"`]{1,256}', '@'),
  // `password = "…"`, `"client_secret": "…"`, `API_KEY: '…'`: a quoted value of 6 or more characters
  // with no space, assigned to a credential name. Code (`password = getpass()`) has no quotes there.
  {
    id: 'credential-assignment',
    kind: 'hard-coded credential',
    pattern: `${CREDENTIAL_NAME}${ASSIGN}[rbu]?['"](?<secret>${NOT_A_VALUE}[^\\s'"\\\\]{6,})(?=['"])`,
    assignment: true,
  },
  // `DB_PASSWORD=s3cr3t-value`, `secret: abc123def`: an unquoted value ending its line (env files,
  // YAML, INI; in a diff too) of 8 or more characters with a digit, not a call, a type or a dotted name.
  {
    id: 'credential-assignment-unquoted',
    kind: 'hard-coded credential',
    pattern:
      `(?:^|\\n)[+ -]?[ \\t]{0,64}(?:export[ \\t]+)?[\\w.-]{0,64}${CREDENTIAL_NAME}[ \\t]{0,8}[:=][ \\t]{0,8}` +
      `(?<secret>${NOT_A_VALUE}(?![A-Za-z_]\\w*(?:\\.[A-Za-z_]\\w*)+[ \\t]*(?:\\r?\\n|$))(?=\\S*\\d)[^\\s'"#()\\[\\]{}<>,;]{8,})(?=[ \\t]*(?:#[^\\n]*)?(?:\\r?\\n|$))`,
    assignment: true,
  },
];

/** The formats' redaction patterns: the default `privacy.redact_patterns`. */
export const CREDENTIAL_PATTERNS: readonly string[] = CREDENTIAL_FORMATS.map((f) => f.pattern);
