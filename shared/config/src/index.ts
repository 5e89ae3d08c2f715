export { sousPaths, findWorkspaceRoot, SOUS_DIR_NAME } from './paths';
export type { SousPaths } from './paths';
export { ConfigError } from './errors';
export type { ConfigErrorCode, ConfigErrorWhere } from './errors';
export {
  MCP_TRANSPORTS,
  MCP_TOOL_NAME_STYLES,
  COMPUTE_DEVICES,
  EMBEDDING_DEVICES,
  COMPUTE_PRESETS,
  LLM_GATES,
  EXPLORATION_BACKENDS,
  POLICY_BUNDLE_IDS,
  SEMANTIC_MODES,
  WORK_STYLES,
} from './types';
export type {
  SousConfig,
  BackendProfile,
  McpTransport,
  McpToolNameStyle,
  ComputeDevice,
  EmbeddingDevice,
  ComputePreset,
  LlmGate,
  ExplorationBackend,
  PolicyBundleId,
  SemanticMode,
  WorkStyle,
} from './types';
export {
  DEFAULT_CONFIG,
  defaultConfig,
  DEFAULT_BACKEND_NAME,
  DEFAULT_BACKEND_BASE_URL,
  DEFAULT_BACKEND_MODEL,
  DEFAULT_MCP_HTTP_PORT,
  DEFAULT_REDACT_PATTERNS,
  DEFAULT_EXCLUDED_PATTERNS,
  DEFAULT_POLICY_BUNDLE,
  DEFAULT_WORK_STYLE,
  DEFAULT_EMBEDDING_MODEL,
  DEFAULT_SEMANTIC_MODE,
  DEFAULT_MAX_READY_CARDS,
} from './defaults';
export { CONFIG_KEYS, PROFILE_FIELDS, ENV_NAME_PATTERN, RESERVED_KEYS, findConfigKey } from './keys';
export type { ConfigKey, ConfigValue, ConfigValueKind } from './keys';
export { validateConfigObject } from './validate';
export { parseConfigToml, renderConfigToml, formatTomlValue } from './toml';
export { getConfigValue, parseConfigValue, withConfigValue } from './values';
export { loadConfig, readConfigText, ensureConfigFile, setConfigValue, setConfigValues, writeConfigText, writeFileAtomic } from './file';
export { watchConfig } from './watch';
export type { ConfigWatcher, ConfigWatchHandlers, ConfigWatchOptions, NativeWatchFactory } from './watch';
export { compileRedactPatterns, looksSecret, redactText } from './secrets';
