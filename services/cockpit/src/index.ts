import * as fs from 'node:fs';
import * as path from 'node:path';

/** One file of the cockpit as the daemon serves it. */
export interface CockpitAsset {
  /** `text/html; charset=utf-8`, `text/javascript; charset=utf-8`, … */
  type: string;
  body: Buffer;
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.webmanifest': 'application/manifest+json',
};

/** Files served at the origin's root rather than under /cockpit/ (the service worker's scope is its own path). */
const ROOT_FILES: Record<string, string> = { 'index.html': '/', 'manifest.webmanifest': '/manifest.webmanifest', 'sw.js': '/sw.js' };

/** The static shell (checked in) and the compiled browser modules (`tsc -b` output). */
export const COCKPIT_DIRS = {
  public: path.join(__dirname, '..', 'public'),
  web: path.join(__dirname, 'web'),
} as const;

function filesOf(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => TYPES[path.extname(f)] !== undefined && fs.statSync(path.join(dir, f)).isFile());
}

/**
 * Every cockpit file by URL path (`/`, `/sw.js`, `/cockpit/main.js`, `/cockpit/views/work.js`),
 * read once: the set is fixed at start, so a request can name nothing outside it (no path walking),
 * and nothing is built or fetched at run time.
 */
export function loadCockpitAssets(dirs: { public: string; web: string } = COCKPIT_DIRS): Map<string, CockpitAsset> {
  const assets = new Map<string, CockpitAsset>();
  for (const dir of [dirs.public, dirs.web]) {
    for (const file of filesOf(dir)) {
      const rel = file.split(path.sep).join('/');
      const url = ROOT_FILES[rel] ?? `/cockpit/${rel}`;
      assets.set(url, { type: TYPES[path.extname(file)] as string, body: fs.readFileSync(path.join(dir, file)) });
    }
  }
  // What the service worker keeps for offline use: the shell itself, never a data route.
  const shell = [...assets.keys()].filter((u) => u !== '/sw.js');
  assets.set('/cockpit/shell.json', { type: 'application/json; charset=utf-8', body: Buffer.from(JSON.stringify(shell)) });
  return assets;
}

/**
 * The cockpit's Content-Security-Policy: scripts, styles, images and connections from the daemon's
 * own origin only, no inline script or style, never framed.
 */
export const COCKPIT_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "manifest-src 'self'",
  "worker-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');
