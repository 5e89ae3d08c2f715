'use strict';
// `npm run bench -- cockpit`: how fast the cockpit paints and how much it weighs. A daemon (`sous up`)
// on a scratch repository serves it; Debian's Chromium (playwright-core, headless, fresh profile)
// loads `/` RUNS times with the HTTP cache and the service worker out of the way (a cold load of the
// shell every time) and reads the paint timings. Targets (issue 19): first paint ≤ 300 ms on
// loopback, everything the cockpit serves ≤ 150 kB gzipped.
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const zlib = require('node:zlib');
const { benchEnv, freePort, sousJson, until, makeCleanup } = require('./daemon-session');
const { percentile } = require('./stats');

const RUNS = 20;
const CHROMIUM = process.env.SOUS_TEST_CHROMIUM || '/usr/bin/chromium';
const ARGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

function bundleBytes() {
  const { loadCockpitAssets } = require('../../services/cockpit/dist/index.js');
  let raw = 0;
  let gzip = 0;
  for (const asset of loadCockpitAssets().values()) {
    raw += asset.body.length;
    gzip += zlib.gzipSync(asset.body, { level: 9 }).length;
  }
  return { raw, gzip };
}

async function run(args = []) {
  if (!fs.existsSync(CHROMIUM)) throw new Error(`no Chromium at ${CHROMIUM} (apt-get install -y chromium)`);
  const { chromium } = require('playwright-core');
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'sous-bench-cockpit-'));
  const repo = path.join(tmp, 'repo');
  fs.mkdirSync(path.join(repo, 'src'), { recursive: true });
  fs.writeFileSync(path.join(repo, 'src', 'index.ts'), 'export const answer = 42;\n');
  execFileSync('git', ['init', '-q'], { cwd: repo });
  execFileSync('git', ['-c', 'user.email=b@example.com', '-c', 'user.name=bench', 'commit', '-qm', 'init', '--allow-empty'], { cwd: repo });
  const env = benchEnv(path.join(tmp, 'sous-home'), path.join(tmp, 'clients'));
  fs.mkdirSync(env.SOUS_HOME);
  fs.mkdirSync(env.SOUS_TEST_CLIENT_DIR);
  const cleanup = makeCleanup(tmp, repo, env);
  let context;
  try {
    const port = await freePort();
    await sousJson(['up', '--path', repo, '--port', String(port), '--json'], env);
    const base = `http://127.0.0.1:${port}/`;
    await until('daemon ready', async () => ((await (await fetch(`${base}status`)).json()).index?.state === 'ready' ? true : undefined), 60_000);
    context = await chromium.launchPersistentContext(path.join(tmp, 'profile'), { executablePath: CHROMIUM, headless: true, args: ARGS, serviceWorkers: 'block' });
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
    await page.goto(base); // the first load also starts the renderer; not counted
    const fp = [];
    const fcp = [];
    for (let i = 0; i < RUNS; i++) {
      await page.goto('about:blank');
      await page.goto(base, { waitUntil: 'load' });
      const paints = await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => resolve(performance.getEntriesByType('paint').map((e) => [e.name, e.startTime])))));
      const by = Object.fromEntries(paints);
      fp.push(by['first-paint']);
      fcp.push(by['first-contentful-paint']);
    }
    const size = bundleBytes();
    const row = { runs: RUNS, first_paint_p50_ms: Math.round(percentile(fp, 50)), first_paint_p95_ms: Math.round(percentile(fp, 95)), fcp_p50_ms: Math.round(percentile(fcp, 50)), fcp_p95_ms: Math.round(percentile(fcp, 95)), bundle_raw_bytes: size.raw, bundle_gzip_bytes: size.gzip };
    process.stdout.write(`first paint        p50 ${row.first_paint_p50_ms} ms  p95 ${row.first_paint_p95_ms} ms  (${RUNS} cold loads of ${base}, target ≤ 300 ms)\n`);
    process.stdout.write(`first contentful   p50 ${row.fcp_p50_ms} ms  p95 ${row.fcp_p95_ms} ms\n`);
    process.stdout.write(`bundle             ${(size.gzip / 1024).toFixed(1)} kB gzipped (${(size.raw / 1024).toFixed(1)} kB raw, everything the cockpit serves; target ≤ 150 kB)\n`);
    if (args.includes('--json')) process.stdout.write(JSON.stringify(row) + '\n');
  } finally {
    await context?.close();
    cleanup();
  }
}

module.exports = { run };
