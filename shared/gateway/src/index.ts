export { startProxySurface } from './surface';
export { gatewayRoutes, injectionPolicy, PROXY_API_KEY_ENV, DAEMON_URL_ENV, PROXY_BODY_LIMIT_BYTES } from './routes';
export type { GatewayOptions, GatewayHandle } from './routes';
export { chooseUpstream, routeFor, upstreamUrl } from './routing';
export type { Upstream } from './routing';
export { GatewayError, toOpenAiError, GATEWAY_ERROR_STATUS } from './errors';
export type { GatewayErrorCode, OpenAiErrorBody } from './errors';
export { Forwarder, upstreamFailure } from './forward';
export {
  contextWindow,
  contentText,
  promptOf,
  injectionBudget,
  policyAccepts,
  renderBriefing,
  withBriefing,
  tokensOf,
  INJECTION_WINDOW_SHARE,
  MAX_INJECTION_TOKENS,
  MIN_INJECTION_TOKENS,
  DEFAULT_CONTEXT_WINDOW,
  HYBRID_FULL_ITEMS,
  POLICY_THRESHOLD,
} from './injection';
export type { ChatMessage } from './injection';
export { DaemonPreparedContext, tokenSet, jaccard, REFRESH_MS, MAX_RESOLVED, RESOLVED_TTL_MS, MAX_QUEUED } from './prepared-context';
export type { PreparedContextSource, PreparedEntry, PreparedMatch, PreparedItem, PreparedCard } from './prepared-context';
export { TraceBook, ANONYMOUS_CLIENT, TRACES_PER_CLIENT } from './traces';
export type { ContextTrace } from './traces';
