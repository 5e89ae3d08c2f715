import type { Express, Response } from 'express';
import { COCKPIT_CSP, loadCockpitAssets, type CockpitAsset } from '@sous/cockpit';

/** Headers every cockpit file carries: the strict CSP, no framing, no sniffing. */
function send(res: Response, asset: CockpitAsset, extra: Record<string, string> = {}): void {
  res
    .status(200)
    .type(asset.type)
    .set({
      'Content-Security-Policy': COCKPIT_CSP,
      'X-Frame-Options': 'DENY',
      'X-Content-Type-Options': 'nosniff',
      'Referrer-Policy': 'no-referrer',
      // Revalidated each load; the service worker keeps the shell for offline use.
      'Cache-Control': 'no-cache',
      ...extra,
    })
    .send(asset.body);
}

/**
 * The cockpit web UI (docs/cockpit.md): `GET /` (the shell), `/manifest.webmanifest`, `/sw.js` and
 * `/cockpit/<file>` (styles, icons, browser modules) from services/cockpit, read once at start.
 * The files hold no repository data; the page fetches it from the JSON routes and renders it as text.
 */
export function cockpitRoutes(app: Express): void {
  const assets = loadCockpitAssets();
  // The page is useless without its compiled modules (a checkout that was never built).
  const shell = assets.has('/cockpit/main.js') ? assets.get('/') : undefined;
  app.get('/', (_req, res) => {
    if (!shell) {
      res.status(503).type('text/plain').send('the cockpit is not built; run npm run build\n');
      return;
    }
    send(res, shell);
  });
  for (const url of ['/manifest.webmanifest', '/sw.js']) {
    const asset = assets.get(url);
    if (asset) app.get(url, (_req, res) => send(res, asset, url === '/sw.js' ? { 'Service-Worker-Allowed': '/' } : {}));
  }
  // One route for the rest: the name must be one of the files read at start.
  app.get('/cockpit/*file', (req, res, next) => {
    const asset = assets.get(req.path);
    if (!asset) return next();
    send(res, asset);
  });
}

/** The shell's paths (what `cockpitRoutes` serves): fetched without a token where the daemon asks for one. */
export function isCockpitShellPath(path: string): boolean {
  return path === '/' || path === '/manifest.webmanifest' || path === '/sw.js' || (path.startsWith('/cockpit/') && !path.includes('..'));
}
