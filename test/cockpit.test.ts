/// <reference lib="dom" />
/**
 * The cockpit end to end: a real daemon (`sous up`) on a real repository, driven through Debian's
 * Chromium. A card lands while the page is open and appears without a reload; inspect, export and
 * copy; dismiss removes it; feedback records; pause shows its reason; an invalid config edit is
 * refused with the daemon's (the CLI's) message; a running job is cancelled; `sous watch` follows the
 * same stream; keyboard, labels and contrast hold; the shell works offline without caching data.
 * Screenshots of the main views and the first-paint figure are saved under test-artifacts/cockpit/.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { spawn } from 'node:child_process';
import type { Page } from 'playwright-core';
import { CLI, embeddedEnv, freePort, pinBundle, sous, upAndIndexed } from './support/cli';
import { startFakeBackend, type FakeBackend } from './support/fake-backend';
import { rawRequest } from './support/http';
import { makeRenameDriftRepo, warmCycle } from './support/prepared-work';
import { rmTempDir } from './support/tmp';
import { until } from './support/wait';
import { ARTIFACTS, launchChromium, lowContrast, type Browser } from './support/browser';

describe('cockpit in Chromium', () => {
  let repo: string;
  let env: NodeJS.ProcessEnv;
  let port: number;
  let browser: Browser;
  let page: Page;
  let base: string;
  let backend: FakeBackend | undefined;
  const problems: string[] = [];

  const get = (p: string) => rawRequest({ port, path: p });
  const shot = (name: string) => page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: true });
  const open = async (view: string) => {
    await page.click(`nav a[href="#${view}"]`);
    await page.waitForSelector(`#view-${view}:not([hidden])`);
  };

  beforeAll(async () => {
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    repo = makeRenameDriftRepo();
    env = embeddedEnv();
    port = await freePort();
    base = `http://127.0.0.1:${port}`;
    // The shipped defaults (local_balanced on a capable tier), whatever this machine's hardware tier.
    await pinBundle(repo, env);
    await upAndIndexed(repo, port, env);
    browser = await launchChromium();
    page = await browser.context.newPage();
    // Any script error or CSP violation in the page fails the suite (checked in the last test).
    page.on('pageerror', (err) => problems.push(`pageerror: ${err.message}`));
    page.on('console', (msg) => {
      if (msg.type() === 'error' && !/Failed to load resource|ERR_INTERNET_DISCONNECTED/.test(msg.text())) problems.push(`console: ${msg.text()}`);
    });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await backend?.close();
    await sous(['down', '--path', repo], { env });
    rmTempDir(repo);
  }, 60_000);

  test('the shell is served with a strict CSP and paints the engine state', async () => {
    const res = await page.goto(`${base}/`);
    const csp = res?.headers()['content-security-policy'] ?? '';
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    await page.waitForFunction(() => document.getElementById('health')?.textContent?.includes('healthy'));
    await page.waitForSelector('#engine dl');
    await expect(page.textContent('#engine')).resolves.toContain(repo);
    const paint = await page.evaluate(() => performance.getEntriesByType('paint').map((e) => ({ name: e.name, ms: Math.round(e.startTime) })));
    fs.writeFileSync(path.join(ARTIFACTS, 'first-paint.json'), `${JSON.stringify({ url: `${base}/`, paint }, null, 2)}\n`);
    expect(paint.map((p) => p.name)).toContain('first-contentful-paint');
    await shot('overview');
  });

  test('a card lands while the page is open and appears without a reload; inspect, export and copy', async () => {
    await page.evaluate(() => ((window as unknown as { marker: number }).marker = 42));
    await open('work');
    const before = await page.$$eval('#feed li[data-card-id]', (nodes) => nodes.map((n) => (n as HTMLElement).dataset['cardId']));
    const job = await warmCycle(port);
    expect(job.state).toBe('completed');
    const feed = (await get('/prepared-work')).json.cards as Array<{ id: string; kind: string; title: string }>;
    const landed = feed.filter((c) => !before.includes(c.id));
    expect(landed.length).toBeGreaterThan(0);
    for (const card of landed) await page.waitForSelector(`#feed li[data-card-id="${card.id}"]`, { timeout: 10_000 });
    // Same document: the event stream brought it, not a navigation.
    expect(await page.evaluate(() => (window as unknown as { marker?: number }).marker)).toBe(42);
    await page.waitForSelector('#activity li[data-event="card.landed"]', { state: 'attached' });

    const diff = feed.find((c) => c.kind === 'virtual_diff');
    expect(diff).toBeDefined();
    const card = page.locator(`#feed li[data-card-id="${diff!.id}"]`);
    // Repository text is rendered as text: the title is exactly the daemon's.
    await expect(card.locator('h3').textContent()).resolves.toContain(diff!.title);
    await card.locator('button[data-action="inspect"]').click();
    await card.locator('pre[aria-label="Preview"]').waitFor();
    await card.locator('button[data-action="export"]').click();
    const patch = card.locator('pre[data-export="patch"]');
    await patch.waitFor();
    const exported = (await rawRequest({ port, method: 'POST', path: `/work-products/${diff!.id}/export`, headers: { 'content-type': 'application/json' }, body: '{}' })).json.content as string;
    expect(await patch.textContent()).toBe(exported);
    await browser.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base });
    await card.locator('button[data-action="copy"]').click();
    await card.getByText('Copied.').waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(exported);
    await shot('prepared-work');
  });

  test('feedback records and dismiss removes the card', async () => {
    const cards = (await get('/prepared-work')).json.cards as Array<{ id: string; kind: string }>;
    const target = cards.find((c) => c.kind === 'docs_drift') ?? cards[0]!;
    const card = page.locator(`#feed li[data-card-id="${target.id}"]`);
    await card.locator('button[data-feedback="useful"]').click();
    await card.getByText('Feedback recorded: useful.').waitFor();
    await page.waitForSelector(`#activity li[data-event="card.feedback"]`, { state: 'attached' });
    await expect(page.textContent('#activity')).resolves.toContain(`feedback useful on ${target.id}`);

    await card.locator('button[data-action="dismiss"]').click();
    await card.waitFor({ state: 'detached' });
    expect(((await get('/prepared-work')).json.cards as Array<{ id: string }>).map((c) => c.id)).not.toContain(target.id);
    const hidden = (await get('/work-products?state=hidden')).json.items as Array<{ id: string }>;
    expect(hidden.map((c) => c.id)).toContain(target.id);
  });

  test('pause shows its reason; resume lifts it', async () => {
    await open('overview');
    await page.click('#focus button[data-focus-action="pause"]');
    await page.waitForFunction(() => document.getElementById('focus-class')?.textContent?.startsWith('paused'));
    const focus = (await get('/focus')).json;
    expect(focus.this_workspace.class).toBe('paused');
    expect(await page.textContent('#focus-reason')).toBe(focus.this_workspace.reason);
    await shot('overview-paused');
    await page.click('#focus button[data-focus-action="resume"]');
    await page.waitForFunction(() => !document.getElementById('focus-class')?.textContent?.startsWith('paused'));
    expect((await get('/focus')).json.this_workspace.class).not.toBe('paused');

    // Pin and Work here are the daemon's to apply: the page shows what it answered.
    await page.click('#focus button[data-focus-action="pin"]');
    await page.waitForSelector('#focus button[data-focus-action="unpin"]');
    expect((await get('/focus')).json.this_workspace.pinned).toBe(true);
    await page.click('#focus button[data-focus-action="unpin"]');
    await page.waitForSelector('#focus button[data-focus-action="pin"]');
    expect((await get('/focus')).json.this_workspace.pinned).toBe(false);
    await page.click('#focus button[data-focus-action="work-here"]');
    await page.getByText('Work here: done').waitFor();
    expect(await page.textContent('#focus-reason')).toBe((await get('/focus')).json.this_workspace.reason);
  });

  test('sous watch --cockpit-url prints the same stream: plain lines through a pipe, colours on a terminal', async () => {
    const watchers = [
      spawn(process.execPath, [CLI, 'watch', '--cockpit-url', base], { env, stdio: ['ignore', 'pipe', 'pipe'] }),
      // `script` gives the command a pseudo-terminal, as a user's shell would.
      spawn('script', ['-qfec', `${JSON.stringify(process.execPath)} ${JSON.stringify(CLI)} watch --cockpit-url ${base}`, '/dev/null'], { env: { ...env, TERM: 'xterm' }, stdio: ['pipe', 'pipe', 'pipe'] }),
    ];
    const out = ['', ''];
    watchers.forEach((w, i) => w.stdout!.setEncoding('utf8').on('data', (d: string) => (out[i] += d)));
    try {
      await until(() => (out.every((o) => o.includes('watching')) ? true : undefined), 10_000);
      const card = ((await get('/prepared-work')).json.cards as Array<{ id: string }>)[0]!;
      const fb = await rawRequest({ port, method: 'POST', path: `/work-products/${card.id}/feedback`, headers: { 'content-type': 'application/json' }, body: '{"value":"partial"}' });
      expect(fb.status).toBe(200);
      await until(() => (out.every((o) => o.includes(`feedback partial on ${card.id}`)) ? true : undefined), 10_000);
      expect(out[0]).toMatch(new RegExp(`^\\d\\d:\\d\\d:\\d\\d   feedback partial on ${card.id}$`, 'm'));
      expect(out[0]).not.toContain('\x1b[');
      expect(out[1]).toContain('\x1b[36m  feedback partial');
    } finally {
      for (const w of watchers) w.kill('SIGTERM');
    }
  });

  test('an invalid config edit is refused with the message the CLI gives; a valid one is saved', async () => {
    await open('preferences');
    await page.click('#engine-prefs summary:text-is("compute")');
    const field = page.locator('#engine-prefs .field', { has: page.locator('input[name="compute.cpu_fraction"]') });
    await field.waitFor();
    const configBefore = fs.readFileSync(path.join(repo, '.sous', 'config.toml'), 'utf8');
    await field.locator('input').fill('2');
    await field.locator('button[data-save]').click();
    const error = field.locator('p.error');
    await page.waitForFunction((el) => (el?.textContent ?? '') !== '', await error.elementHandle());
    const cli = await sous(['config', 'set', 'compute.cpu_fraction', '2', '--path', repo], { env });
    expect(cli.code).not.toBe(0);
    expect(cli.stderr).toContain((await error.textContent())!);
    expect(await field.locator('input').getAttribute('aria-invalid')).toBe('true');
    expect(fs.readFileSync(path.join(repo, '.sous', 'config.toml'), 'utf8')).toBe(configBefore);
    await shot('preferences-refused');

    await field.locator('input').fill('0.3');
    await field.locator('button[data-save]').click();
    await field.getByText('Saved; the daemon reloaded it.').waitFor();
    expect((await get('/config')).json.config.compute.cpu_fraction).toBe(0.3);

    // The setup reasoning trail, verbatim.
    const rec = (await get('/setup/recommend')).json;
    await page.waitForSelector('#setup-trail');
    expect(await page.textContent('#setup-trail')).toBe(rec.trail.join('\n'));
  });

  test('priorities, diagnostics, activity and settings render the daemon state', async () => {
    await open('priorities');
    await page.waitForSelector('#frontier dl');
    await shot('priorities');
    await open('diagnostics');
    await page.waitForSelector('#jobs table');
    await expect(page.textContent('#index')).resolves.toContain('Excluded by scope');
    await shot('diagnostics');
    await open('activity');
    await shot('activity');
    await open('settings');
    await page.waitForSelector('#clients table');
    await page.waitForSelector('#common .field');
    // Chromium found the manifest, icons and worker good enough to offer installing the app.
    await page.getByText('This browser offers to install the cockpit.').waitFor({ timeout: 15_000 });
    await shot('settings');
  });

  test('Settings points the daemon at a model backend; a running job is cancelled from Diagnostics', async () => {
    backend = await startFakeBackend();
    backend.holdEmbeddings = true; // the embedding job stays running until it is cancelled
    await open('settings');
    const save = async (key: string, value: string) => {
      const field = page.locator('#common .field', { has: page.locator(`[name="${key}"]`) });
      const input = field.locator(`[name="${key}"]`);
      if ((await input.evaluate((n) => n.tagName)) === 'SELECT') await input.selectOption(value);
      else await input.fill(value);
      await field.locator('button[data-save]').click();
      await field.getByText('Saved; the daemon reloaded it.').waitFor();
    };
    // Embeddings on, on a busy machine too; the backend last, so its reload starts the embedding job
    // at once (a refused attempt would wait out the scheduler's back-off).
    const semantic = await rawRequest({ port, method: 'POST', path: '/config/set', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ key: 'exploration.semantic', value: 'auto' }) });
    expect(semantic.status).toBe(200);
    await save('compute.idle_only', 'false');
    await save('backend.base_url', backend.baseUrl);

    await open('diagnostics');
    // The Diagnostics view re-reads the jobs every 5 s: the held embedding job shows with Cancel.
    const button = page.locator('#jobs button[data-job-id]').first();
    await button.waitFor({ timeout: 30_000 });
    const id = (await button.getAttribute('data-job-id'))!;
    await button.click();
    await page.getByText(/^Cancelled /).waitFor();
    expect((await get(`/jobs/${id}`)).json.job.state).toBe('cancelled');
    await shot('diagnostics-cancel');
  }, 90_000);

  test('keyboard, labels and contrast: a skip link first, every control named, views reachable by keyboard, text at WCAG AA', async () => {
    await page.goto('about:blank');
    await page.goto(`${base}/#overview`);
    await page.waitForSelector('#focus button');
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Skip to content');
    await page.focus('nav a[href="#work"]');
    await page.keyboard.press('Enter');
    await page.waitForSelector('#view-work:not([hidden])');
    expect(await page.getAttribute('nav a[href="#work"]', 'aria-current')).toBe('page');
    // The check itself finds low contrast (grey #aaa on white is 2.3:1; set through the CSSOM, which the CSP allows).
    await page.evaluate(() => {
      const p = Object.assign(document.createElement('p'), { id: 'probe', textContent: 'probe text' });
      p.style.color = '#aaa';
      p.style.background = '#fff';
      document.getElementById('main')!.append(p);
    });
    const probe = await lowContrast(page);
    await page.evaluate(() => document.getElementById('probe')!.remove());
    expect(probe).toEqual([expect.stringContaining('"probe text"')]);
    expect(await lowContrast(page)).toEqual([]);
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      for (const view of ['overview', 'preferences', 'settings']) {
        await open(view);
        await page.waitForSelector(`#view-${view} .panel p, #view-${view} .field`);
        expect({ scheme, view, low: await lowContrast(page) }).toEqual({ scheme, view, low: [] });
      }
    }
    await page.emulateMedia({ colorScheme: 'light' });
    // Polled: a view re-renders when its data arrives (a slow /config under load lands mid-check);
    // a control that stays unnamed still fails, with enough context to tell why.
    const unnamed = () =>
      page.$$eval('input, select, button', (nodes) =>
        nodes
          .filter((n) => (n as HTMLInputElement).labels?.length === 0 && !n.getAttribute('aria-label') && !(n.textContent ?? '').trim())
          .map((n) => `${n.outerHTML.slice(0, 80)} (elements with this id: ${n.id ? document.querySelectorAll(`[id="${n.id}"]`).length : 0}, labels for it: ${n.id ? document.querySelectorAll(`label[for="${n.id}"]`).length : 0}, in #${n.closest('[data-view]')?.id ?? '?'})`),
      );
    let found = await unnamed();
    for (const until = Date.now() + 15_000; found.length > 0 && Date.now() < until; found = await unnamed()) await page.waitForTimeout(250);
    expect(found).toEqual([]);
  });

  test('the routes behind the cockpit: config edits validated as by the CLI, the trail, clients, static files', async () => {
    const post = (p: string, body: unknown) => rawRequest({ port, method: 'POST', path: p, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const unknown = await post('/config/set', { key: 'compute.no_such_key', value: '1' });
    expect(unknown.status).toBe(400);
    expect(unknown.json.error).toMatchObject({ code: 'unknown_key', where: 'body.key' });
    const bad = await post('/config/set', { key: 'privacy.allowed_paths', value: 'src/**' });
    expect(bad.status).toBe(400);
    expect(bad.json.error.code).toBe('invalid_value');
    const cli = await sous(['config', 'set', 'privacy.allowed_paths', 'src/**', '--path', repo], { env });
    expect(cli.stderr).toContain(bad.json.error.message);
    expect((await post('/config/set', { key: 'compute.cpu_fraction' })).status).toBe(400);
    const ok = await post('/config/set', { key: 'privacy.allowed_paths', value: '["src/**","docs/**"]' });
    expect(ok.json).toEqual({ key: 'privacy.allowed_paths', value: ['src/**', 'docs/**'], reloaded: true });

    const config = (await get('/config')).json;
    expect(config.path).toBe(path.join(fs.realpathSync(repo), '.sous', 'config.toml'));
    expect(config.keys.find((k: { key: string }) => k.key === 'compute.cpu_fraction')).toMatchObject({ type: 'number', default: 0.25 });
    const rec = (await get('/setup/recommend')).json;
    expect(rec.trail.length).toBeGreaterThan(2);
    expect(rec.trail.at(-1)).toContain(`recommended ${rec.bundle_id}`);
    expect((await get('/setup/recommend?x=1')).status).toBe(400);
    const clients = (await get('/clients')).json.clients as Array<{ id: string; installed: boolean; wired: boolean }>;
    expect(clients.length).toBeGreaterThan(0);
    expect(clients.every((c) => typeof c.installed === 'boolean' && c.wired === false)).toBe(true);

    for (const p of ['/cockpit/../package.json', '/cockpit/%2e%2e/package.json', '/cockpit/index.d.ts', '/cockpit/nothing.js']) expect((await get(p)).status).toBe(404);
    const sw = await get('/sw.js');
    expect(sw.headers['content-type']).toMatch(/^text\/javascript/);
    expect(sw.headers['content-security-policy']).toContain("default-src 'none'");
  });

  test('the shell works offline from the service worker, which caches no repository data', async () => {
    await page.goto(`${base}/`);
    // The worker installs (caching the shell) on the first load and controls the pages loaded after.
    await page.evaluate(() => navigator.serviceWorker.ready.then(() => true));
    await page.reload();
    await page.waitForFunction(() => navigator.serviceWorker.controller !== null);
    const cached = await page.evaluate(async () => {
      const urls: string[] = [];
      for (const name of await caches.keys()) for (const req of await (await caches.open(name)).keys()) urls.push(new URL(req.url).pathname);
      return urls;
    });
    expect(cached).toContain('/');
    expect(cached.every((u) => u === '/' || u === '/manifest.webmanifest' || u.startsWith('/cockpit/'))).toBe(true);
    await browser.context.setOffline(true);
    try {
      await page.reload();
      await page.waitForSelector('h1');
      await page.waitForFunction(() => document.getElementById('health')?.textContent?.includes('not reachable'));
    } finally {
      await browser.context.setOffline(false);
    }
    expect(problems).toEqual([]);
  });

  // Last: it ends the daemon the other tests use.
  test('Stop in Settings stops the daemon and its supervisor, as sous down does', async () => {
    await page.goto(`${base}/`);
    await open('settings');
    page.once('dialog', (dialog) => void dialog.accept());
    await page.click('#stop-daemon');
    await page.waitForFunction(() => (document.getElementById('toast')?.textContent ?? '').startsWith('Stopping.'));
    expect(await page.textContent('#toast')).toContain(`sous up --path ${fs.realpathSync(repo)}`);
    // Gone for good: the supervisor does not start it again.
    const deadline = Date.now() + 30_000;
    let answered = true;
    while (answered && Date.now() < deadline) {
      answered = await get('/status').then(
        () => true,
        () => false,
      );
      if (answered) await new Promise((r) => setTimeout(r, 200));
    }
    expect(answered).toBe(false);
    await new Promise((r) => setTimeout(r, 3000));
    await expect(get('/status')).rejects.toThrow();
    const status = await sous(['status', '--path', repo], { env });
    expect(status.code).not.toBe(0);
  }, 60_000);
});

describe('cockpit in Chromium, daemon with tokens', () => {
  const TOKEN = 'c3'.repeat(32);
  let repo: string;
  let port: number;
  let daemon: import('node:child_process').ChildProcess | undefined;
  let browser: Browser;

  beforeAll(async () => {
    repo = makeRenameDriftRepo();
    port = await freePort();
    const env = embeddedEnv({ SOUS_AUTH_TOKENS: `team-a:${TOKEN}` });
    await pinBundle(repo, env);
    daemon = spawn(process.execPath, [path.join(__dirname, '..', 'services', 'daemon', 'dist', 'main.js'), '--path', repo, '--port', String(port)], { env, stdio: 'ignore' });
    await until(async () => ((await rawRequest({ port, path: '/healthz' }).catch(() => undefined))?.status === 200 ? true : undefined), 90_000, 100);
    browser = await launchChromium();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    if (daemon && daemon.exitCode === null) {
      const exited = new Promise((r) => daemon?.once('exit', r));
      daemon.kill('SIGTERM');
      await exited;
    }
    rmTempDir(repo);
  }, 60_000);

  test('the shell loads without a token, asks for one, and with it the overview and the live stream load', async () => {
    const page = await browser.context.newPage();
    await page.goto(`http://127.0.0.1:${port}/`);
    await page.waitForSelector('#token-form:not([hidden])');
    expect(await page.textContent('#token-note')).toContain('asks for a token');
    await expect(page.textContent('#health')).resolves.toContain('token');
    await page.fill('#token-input', TOKEN);
    await page.click('#token-form button[type=submit]');
    await page.waitForFunction(() => document.getElementById('health')?.textContent?.includes('healthy'));
    await page.waitForSelector('#engine dl');
    expect(await page.isHidden('#token-form')).toBe(true);
    await page.waitForFunction(() => document.getElementById('stream')?.textContent === 'live stream: connected');
    await page.close();
  });
});
