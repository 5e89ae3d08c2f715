/**
 * Debian's Chromium driven by playwright-core for the cockpit's end-to-end tests. The browser is a
 * system package (`apt-get install chromium`; .ci/run installs it): without it the suite fails with
 * that instruction, never skips.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';
import { makeTempDir, rmTempDir } from './tmp';

export const CHROMIUM = process.env.SOUS_TEST_CHROMIUM ?? '/usr/bin/chromium';

/** Flags for a quiet, offline-capable headless run (headless and the profile dir are set by playwright). */
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Where the test run saves screenshots and measured figures (git-ignored). */
export const ARTIFACTS = path.join(__dirname, '..', '..', 'test-artifacts', 'cockpit');

export interface Browser {
  context: BrowserContext;
  close(): Promise<void>;
}

/** Chromium headless with a fresh profile of its own (removed on close). */
export async function launchChromium(): Promise<Browser> {
  if (!fs.existsSync(CHROMIUM)) throw new Error(`no Chromium at ${CHROMIUM}: install it (apt-get install -y chromium) or point SOUS_TEST_CHROMIUM at one`);
  const profile = makeTempDir('sous-chromium-');
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_ARGS,
    viewport: { width: 1280, height: 900 },
  });
  return {
    context,
    async close() {
      await context.close();
      rmTempDir(profile);
    },
  };
}
