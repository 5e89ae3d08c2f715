import * as zlib from 'node:zlib';
import * as path from 'node:path';
import { COCKPIT_CSP, loadCockpitAssets } from '../src/index';

// The compiled modules: this test runs after `npm run build` (npm test builds first).
const assets = loadCockpitAssets({ public: path.join(__dirname, '..', 'public'), web: path.join(__dirname, '..', 'dist', 'web') });

/** Most the whole cockpit may weigh, gzipped (issue 19: ≤ 150 kB). */
const BUDGET_GZIP_BYTES = 150 * 1024;

describe('cockpit assets', () => {
  test('the shell, the manifest, the service worker and the compiled modules are all there, nothing else', () => {
    const urls = [...assets.keys()];
    expect(urls).toEqual(expect.arrayContaining(['/', '/manifest.webmanifest', '/sw.js', '/cockpit/main.js', '/cockpit/views/work.js', '/cockpit/app.css', '/cockpit/icon-192.png', '/cockpit/icon-512.png', '/cockpit/shell.json']));
    // Declarations and source maps are build by-products, never served.
    expect(urls.filter((u) => /\.d\.ts$|\.map$|\.tsbuildinfo$/.test(u))).toEqual([]);
    const shell = JSON.parse(assets.get('/cockpit/shell.json')!.body.toString()) as string[];
    expect(shell).not.toContain('/sw.js');
    expect(shell.every((u) => u === '/' || u === '/manifest.webmanifest' || u.startsWith('/cockpit/'))).toBe(true);
  });

  test('the page has no inline script or style and loads its module from its own origin', () => {
    const html = assets.get('/')!.body.toString();
    expect(html).toContain('<script type="module" src="/cockpit/main.js"></script>');
    expect(html).not.toMatch(/<script>(?!<\/script>)|<script type="module">|\son[a-z]+=|style=/);
    expect(COCKPIT_CSP).toContain("script-src 'self'");
    expect(COCKPIT_CSP).not.toContain('unsafe');
  });

  test('no module renders text as HTML', () => {
    for (const [url, asset] of assets) {
      if (!url.endsWith('.js')) continue;
      expect({ url, html: /innerHTML|outerHTML\s*=|insertAdjacentHTML|document\.write/.test(asset.body.toString()) }).toEqual({ url, html: false });
    }
  });

  test(`the whole cockpit weighs at most ${BUDGET_GZIP_BYTES / 1024} kB gzipped`, () => {
    const total = [...assets.values()].reduce((sum, a) => sum + zlib.gzipSync(a.body, { level: 9 }).length, 0);
    expect(total).toBeLessThanOrEqual(BUDGET_GZIP_BYTES);
  });

  test('the manifest makes the cockpit installable: name, start URL, standalone display, 192 and 512 px icons', () => {
    const manifest = JSON.parse(assets.get('/manifest.webmanifest')!.body.toString()) as { name: string; start_url: string; display: string; icons: Array<{ src: string; sizes: string }> };
    expect(manifest).toMatchObject({ name: 'Sous cockpit', start_url: '/', display: 'standalone' });
    for (const size of ['192x192', '512x512']) {
      const icon = manifest.icons.find((i) => i.sizes === size);
      expect(icon && assets.has(icon.src)).toBe(true);
    }
  });
});
