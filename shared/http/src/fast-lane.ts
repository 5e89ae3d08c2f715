/**
 * Fast lanes: handlers that may answer a request before express sees it. Why: on a 2-core machine
 * express's middleware chain costs more than a cached `/v1/context` answer itself, and 50 agents
 * asking at once queue behind it. A lane runs only for requests that pass the same Host and Origin
 * guards as the app; it answers (returns true) or hands the request on to the app untouched.
 */
import type * as http from 'node:http';
import type { Express } from 'express';
import { guardsPass, type HostPolicy } from './guards';

/** Answers `req` and returns true, or returns false without reading or writing anything. */
export type FastLane = (req: http.IncomingMessage, res: http.ServerResponse, app: Express) => boolean;

const lanesOf = new WeakMap<Express, { policy: HostPolicy; lanes: FastLane[] }>();

/** Called by createApp: lanes added to `app` later are guarded by `policy`. */
export function enableFastLanes(app: Express, policy: HostPolicy): void {
  lanesOf.set(app, { policy, lanes: [] });
}

/** Adds a lane in front of `app` (an app not made by createApp keeps no lanes). */
export function addFastLane(app: Express, lane: FastLane): void {
  lanesOf.get(app)?.lanes.push(lane);
}

/** The server's request listener: the app's lanes first, then the app. */
export function requestListener(app: Express): http.RequestListener {
  return (req, res) => {
    const entry = lanesOf.get(app);
    if (entry !== undefined && entry.lanes.length > 0 && guardsPass(req.headers, req.method ?? 'GET', entry.policy)) {
      for (const lane of entry.lanes) if (lane(req, res, app)) return;
    }
    void app(req, res);
  };
}
