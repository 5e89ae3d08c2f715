import type { Express } from 'express';
import { ApiError } from '@sous/protocol';

/**
 * Routes of the proxy (spec 4.4) before its engine exists: they answer 501 with the documented error shape, so the three-process topology runs end to end today
 * and clients get a clear answer instead of a connection error. Replaced by the proxy work.
 */
export function proxyRoutes(app: Express): void {
  app.post('/v1/chat/completions', () => {
    throw new ApiError('not_implemented', 'the chat-completions proxy is not available in this release yet; use the daemon at :8473', 'path');
  });
}
