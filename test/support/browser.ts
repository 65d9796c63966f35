import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { beforeAll } from 'vitest';
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

/**
 * A fresh folder under the system's temporary directory for a test file's screenshots (never in the
 * repository), made when the file starts; its path is printed once. Returns `shoot(page, name)`,
 * which saves `<name>.png` there and resolves to its path.
 */
export function useScreenshots(label: string): (page: Page, name: string) => Promise<string> {
  let folder: string | undefined;
  beforeAll(async () => {
    folder = await mkdtemp(join(tmpdir(), `sb-${label}-`));
    console.info(`${label} screenshots: ${folder}`);
  });
  return async (page, name) => {
    if (folder === undefined) throw new Error('useScreenshots(): only available inside tests');
    const path = join(folder, `${name}.png`);
    await page.screenshot({ path, fullPage: true });
    return path;
  };
}
