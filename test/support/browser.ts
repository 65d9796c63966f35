import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';

/** Debian's Chromium, never a downloaded browser. */
const CHROMIUM = '/usr/bin/chromium';

/** Flags for a headless Chromium on a machine with no network but loopback. */
const CHROMIUM_ARGS = ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

/** Launches one headless Chromium for the test file and closes it after; returns a getter. */
export function useBrowser(): () => Browser {
  let browser: Browser | undefined;
  beforeAll(async () => {
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, timeout: 90_000 });
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
  });
  return () => {
    if (browser === undefined) throw new Error('useBrowser(): the browser is only available inside tests');
    return browser;
  };
}
