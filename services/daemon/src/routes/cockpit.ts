import type { Express } from 'express';
import { SOUS_VERSION } from '@sous/protocol';

/**
 * `GET /` — the cockpit's address. Until the cockpit UI lands this is a small static page that
 * points at the JSON endpoints; it embeds no repository data, so it leaks nothing if framed.
 */
export function cockpitRoutes(app: Express): void {
  app.get('/', (_req, res) => {
    res
      .type('html')
      .set('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'")
      .set('X-Frame-Options', 'DENY')
      .send(
        `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Sous cockpit</title>` +
          `<style>body{font:15px system-ui;margin:3rem;max-width:40rem;color:#222}code{background:#f3f3f3;padding:0 .3em}</style></head>` +
          `<body><h1>Sous ${SOUS_VERSION}</h1><p>The daemon is running. The cockpit UI arrives in a later release; meanwhile:</p>` +
          `<ul><li><a href="/status">/status</a> — runtime health</li><li><a href="/jobs">/jobs</a> — background jobs</li></ul>` +
          `<p>From a terminal: <code>sous status</code>, <code>sous doctor</code>, <code>sous logs -f</code>.</p></body></html>`,
      );
  });
}
