/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
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

/**
 * Text on the page whose contrast with its background is under WCAG AA (4.5:1; 3:1 for large or
 * bold large text). Disabled controls are exempt, as WCAG exempts them. Runs in the page.
 */
export function lowContrast(page: import('playwright-core').Page): Promise<string[]> {
  return page.evaluate(() => {
    const rgb = (c: string): [number, number, number, number] => {
      const m = /rgba?\(([^)]+)\)/.exec(c);
      if (!m) return [0, 0, 0, 0];
      const [r, g, b, a] = m[1]!.split(',').map((x) => parseFloat(x));
      return [r!, g!, b!, a === undefined ? 1 : a];
    };
    const lum = ([r, g, b]: number[]): number => {
      const f = (v: number) => {
        const s = v / 255;
        return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
      };
      return 0.2126 * f(r!) + 0.7152 * f(g!) + 0.0722 * f(b!);
    };
    const background = (el: Element | null): number[] => {
      for (let n = el; n; n = n.parentElement) {
        const c = rgb(getComputedStyle(n).backgroundColor);
        if (c[3] > 0.5) return c;
      }
      return [255, 255, 255, 1];
    };
    const out: string[] = [];
    for (const el of document.querySelectorAll('body *')) {
      const own = [...el.childNodes].some((n) => n.nodeType === Node.TEXT_NODE && (n.textContent ?? '').trim() !== '');
      if (!own || (el as HTMLElement).offsetParent === null || (el as HTMLButtonElement).disabled) continue;
      const style = getComputedStyle(el);
      const fg = rgb(style.color);
      const [a, b] = [lum(fg), lum(background(el))];
      const ratio = (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
      const size = parseFloat(style.fontSize);
      const large = size >= 24 || (size >= 18.66 && parseInt(style.fontWeight, 10) >= 700);
      if (ratio < (large ? 3 : 4.5)) out.push(`${el.tagName.toLowerCase()} "${(el.textContent ?? '').trim().slice(0, 40)}": ${ratio.toFixed(2)}`);
    }
    return out;
  });
}
