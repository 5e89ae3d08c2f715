/**
 * Fast lanes: handlers that may answer a request before express sees it. Why: on a 2-core machine
 * express's middleware chain costs more than a cached `/v1/context` answer itself, and 50 agents
 * asking at once queue behind it. A lane runs only for requests that pass the same Host and Origin
 * guards as the app; it answers (returns true) or hands the request on to the app untouched.
 */
import type * as http from 'node:http';
import type { Express } from 'express';
import type { Gate } from './gate';
import { guardsPass, hostAllowed, type HostPolicy } from './guards';

/** Answers `req` and returns true, or returns false without reading or writing anything. */
export type FastLane = (req: http.IncomingMessage, res: http.ServerResponse, app: Express) => boolean;

const lanesOf = new WeakMap<Express, { policy: HostPolicy; gate: Gate | undefined; lanes: FastLane[] }>();

/** Called by createApp: lanes added to `app` later are guarded by `policy`; `gate` (gate.ts) runs before lanes and app alike. */
export function enableFastLanes(app: Express, policy: HostPolicy, gate?: Gate): void {
  lanesOf.set(app, { policy, gate, lanes: [] });
}

/** Adds a lane in front of `app` (an app not made by createApp keeps no lanes). */
export function addFastLane(app: Express, lane: FastLane): void {
  lanesOf.get(app)?.lanes.push(lane);
}

/**
 * The server's request listener: the gate (token, rate limit), then the app's lanes, then the app.
 * A request whose Host is refused skips the gate: the app's Host guard answers it 403 first.
 */
export function requestListener(app: Express): http.RequestListener {
  return (req, res) => {
    const entry = lanesOf.get(app);
    const serve = (): void => {
      if (entry !== undefined && entry.lanes.length > 0 && guardsPass(req.headers, req.method ?? 'GET', entry.policy)) {
        for (const lane of entry.lanes) if (lane(req, res, app)) return;
      }
      void app(req, res);
    };
    if (entry?.gate === undefined || !req.headers.host || !hostAllowed(req.headers.host, entry.policy)) serve();
    else entry.gate(req, res, serve);
  };
}
