/**
 * The whole path in a real headless Chromium: the page posts to the real service, the message goes
 * through the inbound and turns queues to the actor loop, the fake Anthropic server answers through
 * the real SDK, and the page shows the ack before the answer.
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { useBrowser } from '../support/browser.ts';
import { useRedis } from '../support/redis.ts';
import { part, reply, respond, scenarioScript, toolCall } from '../support/scenario-model.ts';
import { useSwitchboard } from '../support/switchboard-harness.ts';

const appDir = fileURLToPath(new URL('../fixtures/loop-app/', import.meta.url));
const redisUrl = useRedis();
const sb = useSwitchboard({ appDir, redisUrl });
const browser = useBrowser();

describe('the web chat against the running service', () => {
  it('shows the ack at once, then the answer, for a turn that calls a tool', async () => {
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    sb().fake.respondWith(
      scenarioScript({
        e2e: [
          () => reply(respond([part('ack', 'Checking the timetable for you.')], 'awaiting'), toolCall('lookup', { q: 'timetable' })),
          async () => {
            await held;
            return reply(respond([part('response', 'The 08:45 is the first direct train.')], 'complete'));
          },
        ],
      }),
    );
    const page = await browser().newPage();
    try {
      await page.goto(`${sb().url}/?c=e2e-chat`);
      await page.fill('#message', 'When is the first train? #e2e');
      await page.press('#message', 'Enter');
      const ack = page.locator('[data-part-type="ack"]', { hasText: 'Checking the timetable' });
      await ack.first().waitFor({ timeout: 30_000 });
      expect(await page.locator('[data-part-type="response"]').count()).toBe(0);
      release();
      await page.locator('[data-part-type="response"]', { hasText: 'The 08:45 is the first direct train.' }).waitFor({ timeout: 30_000 });
      await page.screenshot({ path: '/tmp/e2e-chat.png' });
      expect(await page.locator('[data-part-type="response"]').count()).toBe(1);
    } finally {
      await page.close();
    }
  }, 90_000);

  it('shows the model\'s markdown formatted, and its raw HTML as text that never runs', async () => {
    sb().fake.respondWith(
      scenarioScript({
        md: [() => reply(respond([part('response', '**BA 2043** leaves at 08:45.\n\n- direct\n- £187 pp\n\n<img src=x onerror="window.pwned=1"> [fare rules](https://example.com/rules) [bad](javascript:alert(1))')], 'complete'))],
      }),
    );
    const page = await browser().newPage();
    try {
      await page.goto(`${sb().url}/?c=e2e-markdown`);
      await page.fill('#message', 'Which flight? #md');
      await page.press('#message', 'Enter');
      const answer = page.locator('[data-part-type="response"]');
      await answer.first().waitFor({ timeout: 30_000 });
      await page.screenshot({ path: '/tmp/e2e-markdown.png' });
      expect(await answer.locator('strong').first().textContent()).toBe('BA 2043');
      expect(await answer.locator('li').count()).toBe(2);
      expect(await answer.locator('img').count()).toBe(0);
      expect(await answer.textContent()).toContain('<img src=x');
      expect(await page.evaluate(() => (globalThis as unknown as { pwned?: number }).pwned)).toBeUndefined();
      const link = answer.locator('a', { hasText: 'fare rules' });
      expect(await link.getAttribute('href')).toBe('https://example.com/rules');
      expect(await link.getAttribute('target')).toBe('_blank');
      expect(await answer.locator('a[href^="javascript"]').count()).toBe(0);
    } finally {
      await page.close();
    }
  }, 90_000);
});
