import { ConfigError, getConfigValue, defaultConfig, parseConfigToml, parseConfigValue } from '@sous/config';

const FILE = '/ws/.sous/config.toml';
const FAKE_KEY = 'sk-' + 'Ab3_'.repeat(8);

function errorOf(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (err) {
    if (err instanceof ConfigError) return err;
    throw err;
  }
  throw new Error('expected a ConfigError');
}

describe('parseConfigToml errors', () => {
  it('reports a TOML syntax error with file, line and column and no file contents', () => {
    const err = errorOf(() => parseConfigToml(`[compute]\ncpu_fraction = 0.3\nidle_only = = true # ${FAKE_KEY}\n`, FILE));
    expect(err.code).toBe('toml_syntax');
    expect([err.file, err.line, err.column]).toEqual([FILE, 3, 13]);
    expect(err.message).toMatch(/^\/ws\/\.sous\/config\.toml:3:13: TOML syntax error: /);
    expect(err.message).not.toContain('\n');
    expect(err.message).not.toContain(FAKE_KEY);
  });

  it('names the key, the expected range and the value found', () => {
    const err = errorOf(() => parseConfigToml('[compute]\ncpu_fraction = 1.5\n', FILE));
    expect(err.code).toBe('invalid_value');
    expect(err.key).toBe('compute.cpu_fraction');
    expect(err.message).toContain('compute.cpu_fraction must be a number between 0 and 1 (found 1.5)');
  });

  it.each([
    ['[mcp]\nhttp_port = 70000', 'mcp.http_port must be an integer between 1 and 65535 (found 70000)'],
    ['[mcp]\ntransport = "websocket"', 'mcp.transport must be one of stdio, sse, http (found "websocket")'],
    ['[compute]\nmax_cycle_seconds = 2.5', 'compute.max_cycle_seconds must be an integer between 1 and 86400 (found 2.5)'],
    ['[compute]\nidle_only = "yes"', 'compute.idle_only must be true or false (found "yes")'],
    ['[intent]\nskill_roots = ["../elsewhere"]', 'intent.skill_roots must be a list of repository-relative directories'],
    ['[privacy]\nredact_patterns = ["("]', 'privacy.redact_patterns must be a list of valid regular expressions'],
    ['[backend]\nbase_url = "http://user@host/v1"', 'backend.base_url must be an http(s) URL without credentials'],
    // A password in a URL is a credential format: refused as a key value, never echoed.
    ['[backend]\nbase_url = "http://user:pw@host/v1"', 'backend.base_url looks like a key value (it matches privacy.redact_patterns) (found [redacted 22 characters])'],
    ['compute = 3', 'compute must be a table of settings (found 3)'],
    ['[policy]\nbundle = "fastest"', 'policy.bundle must be one of local_lightweight, local_balanced'],
    ['[daemon]\nallowed_origins = ["https://a.example/path"]', 'daemon.allowed_origins must be a list of origins'],
    ['[backends.fast]\nmodel = "m"', 'backends.fast.base_url is missing'],
  ])('refuses %j', (text, message) => {
    const err = errorOf(() => parseConfigToml(text, FILE));
    expect(err.code).toBe('invalid_value');
    expect(err.message).toContain(message);
  });

  it('refuses an unknown key with a did-you-mean hint', () => {
    const err = errorOf(() => parseConfigToml('[compute]\ncpu_fractoin = 0.3\n', FILE));
    expect(err.code).toBe('unknown_key');
    expect(err.message).toContain('unknown key compute.cpu_fractoin; did you mean compute.cpu_fraction?');
    expect(errorOf(() => parseConfigToml('[backends.fast]\nbase_url = "http://h/v1"\nmodle = "m"\n', FILE)).message).toContain(
      'did you mean backends.fast.model?',
    );
    expect(errorOf(() => parseConfigToml('[nothing_like_it]\nzzz = 1\n', FILE)).message).toContain('run `sous config keys`');
  });

  it('accepts a partial file and fills the rest from the defaults', () => {
    const cfg = parseConfigToml('[compute]\ncpu_fraction = 0.5\n', FILE);
    expect(cfg.compute.cpu_fraction).toBe(0.5);
    expect({ ...cfg, compute: { ...cfg.compute, cpu_fraction: 0.25 } }).toEqual(defaultConfig());
  });
});

describe('the secrets rule (spec 5.3)', () => {
  it('refuses a key value in an *_env field without echoing it', () => {
    const err = errorOf(() => parseConfigToml(`[backend]\napi_key_env = "${FAKE_KEY}"\n`, FILE));
    expect(err.code).toBe('invalid_value');
    expect(err.message).toContain('backend.api_key_env looks like a key value');
    expect(err.message).toContain('[redacted 35 characters]');
    expect(err.message).not.toContain(FAKE_KEY);
  });

  it('requires *_env fields to be environment variable names, without echoing what was there', () => {
    const err = errorOf(() => parseConfigToml('[backends.x]\nbase_url = "http://h/v1"\nmodel = "m"\napi_key_env = "abc def 123"\n', FILE));
    expect(err.message).toContain('backends.x.api_key_env must be empty or the name of an environment variable');
    expect(err.message).not.toContain('abc def');
    expect(parseConfigToml('[backend]\napi_key_env = "OPENAI_API_KEY"\n', FILE).backend.api_key_env).toBe('OPENAI_API_KEY');
  });

  it('accepts exploration.api_key only as empty or env:NAME', () => {
    expect(parseConfigToml('[exploration]\napi_key = "env:EXPLORE_KEY"\n', FILE).exploration.api_key).toBe('env:EXPLORE_KEY');
    const err = errorOf(() => parseConfigToml('[exploration]\napi_key = "hunter2hunter2"\n', FILE));
    expect(err.message).toContain('Sous never stores key values');
    expect(err.message).not.toContain('hunter2');
  });

  it('refuses key-like strings in any field, inside lists and route tables too', () => {
    for (const text of [
      `[backend]\nmodel = "${FAKE_KEY}"`,
      `[privacy]\nallowed_paths = ["src/**", "${FAKE_KEY}"]`,
      `[gateway.routes]\n"gpt-" = "https://h.example/${FAKE_KEY}"`,
    ]) {
      const err = errorOf(() => parseConfigToml(text, FILE));
      expect(err.message).toContain('Sous never stores keys in config');
      expect(err.message).not.toContain(FAKE_KEY);
    }
  });

  it('uses the configured redact patterns', () => {
    const text = '[privacy]\nredact_patterns = ["^tok_[a-z]{8}$"]\n[backend]\nmodel = "tok_abcdefgh"\n';
    expect(errorOf(() => parseConfigToml(text, FILE)).message).toContain('backend.model looks like a key value');
  });

  it('reads a privacy list that is exactly an earlier default (as `sous init` wrote it) as today\'s default', () => {
    const written = [
      '[privacy]',
      'excluded_patterns = ["*.env", "*.key", "*.pem", "credentials*", "secrets*"]',
      'redact_patterns = ["(?<![A-Za-z0-9_-])sk-[A-Za-z0-9_-]{20,}"]',
    ].join('\n');
    const cfg = parseConfigToml(written, FILE);
    expect(cfg.privacy.excluded_patterns).toEqual(defaultConfig().privacy.excluded_patterns);
    expect(cfg.privacy.excluded_patterns).toContain('id_{rsa,dsa,ecdsa,ed25519}');
    expect(cfg.privacy.redact_patterns).toEqual(defaultConfig().privacy.redact_patterns);
    expect(cfg.privacy.redact_patterns.length).toBeGreaterThan(10);
    // A list of one's own, even a near copy, is kept as written.
    const own = parseConfigToml('[privacy]\nexcluded_patterns = ["*.env", "*.key", "*.pem", "credentials*"]\nredact_patterns = ["sk-[A-Za-z0-9]{20,}x"]\n', FILE);
    expect(own.privacy.excluded_patterns).toEqual(['*.env', '*.key', '*.pem', 'credentials*']);
    expect(own.privacy.redact_patterns).toEqual(['sk-[A-Za-z0-9]{20,}x']);
  });
});

describe('parseConfigValue and getConfigValue', () => {
  it('turns CLI strings into typed values', () => {
    expect(parseConfigValue('compute.idle_only', 'false')).toBe(false);
    expect(parseConfigValue('compute.cpu_fraction', '0.5')).toBe(0.5);
    expect(parseConfigValue('mcp.http_port', '9000')).toBe(9000);
    expect(parseConfigValue('privacy.allowed_paths', '["src/**","lib/**"]')).toEqual(['src/**', 'lib/**']);
    expect(parseConfigValue('privacy.allowed_paths', "['src/**']")).toEqual(['src/**']);
    expect(parseConfigValue('backend.model', 'llama3:8b')).toBe('llama3:8b');
    expect(parseConfigValue('backend.model', '"quoted"')).toBe('quoted');
    expect(parseConfigValue('backends.fast', '{ base_url = "http://h/v1", model = "m" }')).toEqual({ base_url: 'http://h/v1', model: 'm' });
    expect(parseConfigValue('gateway.routes.claude-', 'https://h.example/v1')).toBe('https://h.example/v1');
  });

  it('explains a value that does not parse for the key type', () => {
    expect(errorOf(() => parseConfigValue('compute.idle_only', 'maybe')).message).toBe('compute.idle_only must be true or false (found "maybe")');
    expect(errorOf(() => parseConfigValue('compute.cpu_fraction', 'half')).message).toContain('must be a number between 0 and 1');
    expect(errorOf(() => parseConfigValue('privacy.allowed_paths', 'src/**')).message).toContain('written as a TOML/JSON array');
    expect(errorOf(() => parseConfigValue('compute', '1')).message).toContain('compute is a section');
    expect(errorOf(() => parseConfigValue('compute.cpu_fractoin', '1')).code).toBe('unknown_key');
  });

  it('reads leaves and sections and refuses unknown keys with a hint', () => {
    const cfg = defaultConfig();
    expect(getConfigValue(cfg, 'compute.cpu_fraction')).toBe(0.25);
    expect(getConfigValue(cfg, 'intent.skills_loop')).toEqual({ enabled: true, max_feedback_events_per_cycle: 200 });
    const err = errorOf(() => getConfigValue(cfg, 'exploration.llm_gat'));
    expect(err.code).toBe('unknown_key');
    expect(err.message).toContain('did you mean exploration.llm_gate?');
    expect(errorOf(() => getConfigValue(cfg, 'backends.nope')).message).toContain('no backend profile named nope');
  });
});
