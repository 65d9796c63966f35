/**
 * The chat page in headless Chromium across a Redis outage: a page loaded while Redis is down says
 * it is offline and keeps trying; once Redis is back it connects by itself, shows the conversation
 * so far once, and a message typed then is answered once.
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { useBrowser } from '../support/browser.ts';
import { useSwitchboard } from '../support/switchboard-harness.ts';
import { echoModel } from './outage-kit.ts';
import { useRestartableRedis } from './restartable-redis.ts';

const appDir = fileURLToPath(new URL('../fixtures/loop-app/', import.meta.url));
const redis = useRestartableRedis();
const sb = useSwitchboard({ appDir, redisUrl: () => redis().url });
const browser = useBrowser();

const UI_TIMEOUT_MS = 30_000;

describe('the chat page and a Redis outage', () => {
  it('goes offline while Redis is down, reconnects by itself and answers the next message once', async () => {
    sb().fake.respondWith(echoModel);
    const context = await browser().newContext();
    try {
      const page = await context.newPage();
      await page.goto(`${sb().url}/?c=c-page`);
      await page.locator('#connection[data-state="connected"]').waitFor({ timeout: UI_TIMEOUT_MS });
      await page.fill('#message', 'one');
      await page.press('#message', 'Enter');
      await page.locator('[data-part-type="response"]', { hasText: 'Echo: one' }).waitFor({ timeout: UI_TIMEOUT_MS });

      await redis().stop();
      await page.reload();
      await page.locator('#connection[data-state="offline"]').waitFor({ timeout: UI_TIMEOUT_MS });

      await redis().start();
      await page.locator('#connection[data-state="connected"]').waitFor({ timeout: UI_TIMEOUT_MS });
      await page.locator('[data-part-type="response"]', { hasText: 'Echo: one' }).waitFor({ timeout: UI_TIMEOUT_MS });
      await page.fill('#message', 'two');
      await page.press('#message', 'Enter');
      await page.locator('[data-part-type="response"]', { hasText: 'Echo: two' }).waitFor({ timeout: UI_TIMEOUT_MS });
      expect(await page.locator('[data-part-type="response"]').allTextContents()).toEqual(['Echo: one', 'Echo: two']);
    } finally {
      await context.close();
    }
  }, 90_000);
});
