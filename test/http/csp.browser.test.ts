/**
 * The pages under their Content-Security-Policy in a real headless Chromium, against a real web
 * process: the chat page's script runs (it connects its event stream and posts a message) and the
 * operator page's inline style applies (allowed by its hash), with no violation reported.
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { useBrowser } from '../support/browser.ts';
import { useRedis } from '../support/redis.ts';
import { useWebService } from './web-service.ts';

const UI_TIMEOUT_MS = 30_000;

const redisUrl = useRedis();
const web = useWebService({ redisUrl });
const browser = useBrowser();

/** Opens a page that records every console message reporting a Content-Security-Policy violation. */
async function openPage(): Promise<{ page: Page; violations: string[] }> {
  const page = await browser().newPage();
  const violations: string[] = [];
  page.on('console', (message) => {
    if (/Content Security Policy/i.test(message.text())) violations.push(message.text());
  });
  return { page, violations };
}

describe('pages under their Content-Security-Policy', () => {
  it('the chat page runs its script: connects the stream and posts a message', async () => {
    const { page, violations } = await openPage();
    try {
      await page.goto(`${web().url}/`);
      await page.waitForSelector('#connection[data-state="connected"]', { timeout: UI_TIMEOUT_MS });
      await page.fill('#message', 'under the policy');
      await page.click('#send');
      await page.getByText('under the policy').first().waitFor({ timeout: UI_TIMEOUT_MS });
      expect(violations).toEqual([]);
    } finally {
      await page.close();
    }
  });

  it('the operator page shows its inline style, allowed by hash', async () => {
    const { page, violations } = await openPage();
    try {
      const response = await page.goto(`${web().url}/admin`);
      expect(response?.status()).toBe(200);
      const fontSize = await page.evaluate<string>('getComputedStyle(document.body).fontSize');
      expect(fontSize).toBe('14px');
      expect(violations).toEqual([]);
    } finally {
      await page.close();
    }
  });
});
