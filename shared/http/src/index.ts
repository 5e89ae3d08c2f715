export { createApp, DEFAULT_BODY_LIMIT_BYTES } from './app';
export type { AppOptions } from './app';
export { hostGuard, originGuard, hostAllowed, configHostPolicy } from './guards';
export type { HostPolicy } from './guards';
export { errorHandler, notFoundHandler, toApiError, validate } from './errors';
export { listen, portFree, findFreePort, boundPort, closeServer, isLoopbackHost, PortInUseError } from './listen';
export { startSurface, runSurfaceProcess } from './surface';
export type { RunningSurface } from './surface';
export { proxyRoutes, contextRoutes } from './pending-routes';
