import { chromium, type Browser } from 'playwright-core';
import { useStarted } from './use-started.ts';

/** Debian's Chromium, never a downloaded browser. */
const CHROMIUM = '/usr/bin/chromium';

/** Flags for a headless Chromium on a machine with no network but loopback. */
const CHROMIUM_ARGS = ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

/** Launches one headless Chromium for the test file and closes it after; returns a getter. */
export function useBrowser(): () => Browser {
  return useStarted(
    () => chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, timeout: 90_000 }),
    (browser) => browser.close(),
    { name: 'useBrowser()', startTimeoutMs: 120_000 },
  );
}
