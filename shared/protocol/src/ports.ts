/** Default ports of the three Sous processes (spec 4.4, 4.5, intro). */
export const DEFAULT_DAEMON_PORT = 8473;
export const DEFAULT_PROXY_PORT = 8471;
export const DEFAULT_CONTEXT_PORT = 8472;
/** Daemon, proxy and context API bind loopback unless told otherwise. */
export const DEFAULT_HOST = '127.0.0.1';
/** The worker-only process's loopback health port (`GET /healthz`). */
export const DEFAULT_WORKER_PORT = 8474;
