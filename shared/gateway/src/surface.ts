import { startSurface, type RunningSurface } from '@sous/http';
import { ApiError } from '@sous/protocol';
import { sendOpenAiError } from './errors';
import { processPaths, type ProcessOptions } from '@sous/runtime';
import { gatewayRoutes, PROXY_BODY_LIMIT_BYTES, type GatewayHandle, type GatewayOptions } from './routes';

/**
 * Starts the chat-completions proxy process (spec 4.4, default port 8471): the Sous HTTP kit's
 * guards and `/healthz`, then the gateway routes. The config is read once at start.
 */
export async function startProxySurface(options: ProcessOptions, extra: Pick<GatewayOptions, 'env' | 'preparedContext'> = {}): Promise<RunningSurface> {
  const paths = processPaths(options);
  let gateway: GatewayHandle | undefined;
  const surface = await startSurface(
    'proxy',
    options,
    (app, config, logger, access) => {
      gateway = gatewayRoutes(app, { config, root: paths.root, ...(options.stateDir ? { stateDir: paths.dir } : {}), logger, access, ...extra });
    },
    () => ({ status: 'ok', ...(gateway?.health() ?? {}) }),
    // OpenAI clients read 401 and 429 in OpenAI's error shape.
    { bodyLimitBytes: PROXY_BODY_LIMIT_BYTES, sendError: (res, err: ApiError) => sendOpenAiError(res, err), ...(extra.env !== undefined ? { env: extra.env } : {}) },
  );
  return {
    ...surface,
    async close() {
      await surface.close();
      await gateway?.close();
    },
  };
}
