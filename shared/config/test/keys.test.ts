import { CONFIG_KEYS, defaultConfig, getConfigValue, parseConfigToml, renderConfigToml, POLICY_BUNDLE_IDS } from '@sous/config';

/** Spec 2.8, row by row: key and the default where the spec gives one (undefined: left open). */
const SPEC_TABLE: Array<[string, unknown]> = [
  ['backend.name', undefined],
  ['backend.base_url', undefined],
  ['backend.model', undefined],
  ['backend.api_key_env', ''],
  ['backend.prefer_local', true],
  ['backends.<profile>', undefined],
  ['mcp.transport', 'stdio'],
  ['mcp.http_host', undefined],
  ['mcp.http_port', 8472],
  ['intent.enabled', true],
  ['intent.include_global_skills', false],
  ['intent.skill_roots', undefined],
  ['intent.skills_loop.enabled', true],
  ['intent.skills_loop.max_feedback_events_per_cycle', 200],
  ['gateway.passthrough.enabled', false],
  ['gateway.routes.<model_prefix>', undefined],
  ['proxy.allow_repo_override', false],
  ['privacy.allowed_paths', ['src/**', 'docs/**']],
  ['privacy.excluded_patterns', ['*.env', '*.key', '*.pem', 'credentials*', 'secrets*']],
  ['privacy.redact_patterns', undefined],
  ['compute.device', 'auto'],
  ['compute.cpu_fraction', 0.25],
  ['compute.gpu_memory_fraction', 0.4],
  ['compute.idle_only', true],
  ['compute.idle_cpu_threshold', 0.6],
  ['compute.idle_gpu_threshold', 0.7],
  ['compute.embedding_device', 'cpu'],
  ['compute.max_cycle_seconds', 300],
  ['compute.max_session_minutes', 30],
  ['compute.preset', undefined],
  ['exploration.max_exploration_depth', 3],
  ['exploration.frontier_max_size', 500],
  ['exploration.min_priority', 0.1],
  ['exploration.llm_gate', 'non_trivial'],
  ['exploration.endpoint', ''],
  ['exploration.model', ''],
  ['exploration.backend', 'auto'],
  ['exploration.api_key', ''],
  ['exploration.embedding_model', undefined],
  ['refinement.enabled', false],
  ['refinement.adoption_pending_confirm_seconds', undefined],
];
// In table order: an addition sits in its section (the file is rendered section by section).
const SOUS_ADDITIONS = ['mcp.tool_names', 'gateway.upstream_timeout_seconds', 'exploration.max_ready_cards', 'exploration.detectors_off', 'exploration.detectors_held', 'exploration.confirm_held', 'exploration.semantic', 'policy.bundle', 'policy.work_style', 'daemon.allowed_hosts', 'daemon.allowed_origins'];

describe('the key table', () => {
  it('holds exactly the spec 2.8 keys plus the eleven Sous additions, with the spec defaults', () => {
    expect(CONFIG_KEYS.filter((k) => !k.addition).map((k) => k.key)).toEqual(SPEC_TABLE.map(([key]) => key));
    for (const [key, specDefault] of SPEC_TABLE) {
      const row = CONFIG_KEYS.find((k) => k.key === key);
      // Sous widens the spec's excluded files with the other common homes of credentials (issue 15,
      // docs/configuration.md#privacy): the spec's five come first.
      const shown = key === 'privacy.excluded_patterns' ? (row?.default as string[]).slice(0, 5) : row?.default;
      if (specDefault !== undefined) expect({ key, default: shown }).toEqual({ key, default: specDefault });
    }
    expect(CONFIG_KEYS.filter((k) => k.addition).map((k) => k.key)).toEqual(SOUS_ADDITIONS);
  });

  it('turns off or holds back by default the detectors whose measured false-positive rate is 10 % or more', () => {
    // scripts/bench/drift/fp-judgements*.json: every review and hotspot check failed the bar; moves' patches pass (2 of 29).
    expect(defaultConfig().exploration.detectors_off).toEqual(['review.debug_statement', 'review.todo_added', 'review.secret_added', 'review.missing_test_change', 'bug.hotspot_change']);
    // Docs drift's flags and variables (-6) and names (-7) are made but kept out of the feed.
    expect(defaultConfig().exploration.detectors_held).toEqual(['docs_drift.removed_flag', 'docs_drift.removed_env', 'docs_drift.removed_name', 'docs_drift.removed_module_path', 'docs_drift.removed_config_key', 'review.stale_callers']);
    expect(() => parseConfigToml('[exploration]\ndetectors_off = ["Review.Todo"]\n', 'config.toml')).toThrow(/exploration\.detectors_off/);
    expect(() => parseConfigToml('[exploration]\ndetectors_held = ["Docs drift"]\n', 'config.toml')).toThrow(/exploration\.detectors_held/);
    expect(parseConfigToml('[exploration]\ndetectors_held = []\n', 'config.toml').exploration.detectors_held).toEqual([]);
  });

  it('lets no model confirm a held finding until the user names its detector in exploration.confirm_held', () => {
    // No model's confirmations have been measured on real repositories: the default asks none.
    expect(defaultConfig().exploration.confirm_held).toEqual([]);
    expect(parseConfigToml('[exploration]\nconfirm_held = ["docs_drift.removed_name"]\n', 'config.toml').exploration.confirm_held).toEqual(['docs_drift.removed_name']);
    expect(() => parseConfigToml('[exploration]\nconfirm_held = ["Names!"]\n', 'config.toml')).toThrow(/exploration\.confirm_held/);
  });

  it('fills the defaults the spec describes without a value', () => {
    const cfg = defaultConfig();
    expect(cfg.backend.base_url).toBe('http://127.0.0.1:11434/v1');
    expect(cfg.mcp.http_host).toBe('127.0.0.1');
    expect(cfg.intent.skill_roots).toHaveLength(3);
    expect(cfg.intent.skill_roots).toContain('skills');
    const [pattern] = cfg.privacy.redact_patterns;
    expect(new RegExp(pattern as string).test('sk-' + 'a'.repeat(20))).toBe(true);
    expect(new RegExp(pattern as string).test('sk-' + 'a'.repeat(19))).toBe(false);
    expect(new RegExp(pattern as string).test('key: sk-' + 'a'.repeat(20))).toBe(true);
    // Hyphenated prose is not a key that starts with sk-.
    expect(new RegExp(pattern as string).test('a task-runner-configuration-file-format')).toBe(false);
    expect(CONFIG_KEYS.find((k) => k.key === 'compute.preset')?.values).toContain('background');
    expect(POLICY_BUNDLE_IDS).toHaveLength(7);
    expect(cfg.policy.bundle).toBe('local_balanced');
    expect(cfg.daemon).toEqual({ allowed_hosts: [], allowed_origins: [] });
  });

  it('gives every row a description, a type and a default that passes its own schema', () => {
    for (const row of CONFIG_KEYS) {
      expect(row.description.length).toBeGreaterThan(10);
      expect(row.type.length).toBeGreaterThan(0);
      if (row.default !== undefined) expect({ key: row.key, error: row.schema.validate(row.default, { convert: false }).error?.message }).toEqual({ key: row.key, error: undefined });
    }
  });

  it('renders a file with every key and a comment per key that parses back to the same config', () => {
    const text = renderConfigToml(defaultConfig());
    for (const row of CONFIG_KEYS.filter((k) => !k.key.includes('<'))) {
      const leaf = row.key.split('.').pop() as string;
      expect(text).toMatch(new RegExp(`# .+\\n${leaf} = `));
    }
    expect(parseConfigToml(text, 'config.toml')).toEqual(defaultConfig());
  });

  it('round-trips backend profiles and gateway routes, including prefixes that need quoting', () => {
    const cfg = defaultConfig();
    cfg.backends.fast = { base_url: 'http://127.0.0.1:8080/v1', model: 'tiny', api_key_env: 'FAST_KEY' };
    cfg.gateway.routes['gpt-4.1'] = 'https://upstream.example/v1';
    const back = parseConfigToml(renderConfigToml(cfg), 'config.toml');
    expect(back).toEqual(cfg);
    expect(getConfigValue(back, 'backends.fast')).toEqual(cfg.backends.fast);
    expect(getConfigValue(back, 'gateway.routes.gpt-4.1')).toBe('https://upstream.example/v1');
    expect(getConfigValue(back, 'intent.skills_loop.enabled')).toBe(true);
  });
});
