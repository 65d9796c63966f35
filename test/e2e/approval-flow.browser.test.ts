/**
 * The example app's booking approval in a real headless Chromium: the concierge (a scripted model
 * behind the fake Anthropic server) books a flight over 50, the page shows the approval card, the
 * person clicks Approve, book_flight runs, and the concierge confirms the booking.
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { useBrowser } from '../support/browser.ts';
import { useRedis } from '../support/redis.ts';
import { part, reply, respond, scenarioScript, toolCall } from '../support/scenario-model.ts';
import { useSwitchboard } from '../support/switchboard-harness.ts';

const appDir = fileURLToPath(new URL('../../', import.meta.url));
const redisUrl = useRedis();
const sb = useSwitchboard({ appDir, redisUrl });
const browser = useBrowser();

const booking = { flightNumber: 'MW 304', date: '2026-12-18', passengers: [{ fullName: 'Ada Lovelace' }], totalCost: 118, currency: 'GBP' };

describe('booking approval in the web chat (example app)', () => {
  it('Approve on the card runs the booking once and the concierge confirms it', async () => {
    sb().fake.respondWith(
      scenarioScript({
        book: [
          () => reply(respond([part('ack', 'Booking MW 304 for you; it needs your approval.')], 'awaiting'), toolCall('book_flight', booking)),
          (call) => {
            const result = JSON.parse(call.toolResults.at(-1)?.content ?? '{}') as { bookingReference?: string; status?: string };
            return reply(respond([part('response', `Booked: ${result.status ?? 'unknown'}, reference ${result.bookingReference ?? 'none'}.`)], 'complete'));
          },
        ],
      }),
    );
    const page = await browser().newPage();
    try {
      await page.goto(`${sb().url}/?c=ada`);
      await page.fill('#message', 'Book MW 304 on 18 December for me #book');
      await page.press('#message', 'Enter');
      const approve = page.getByRole('button', { name: /approve/i });
      await approve.waitFor({ timeout: 30_000 });
      await page.screenshot({ path: '/tmp/e2e-approval-card.png' });
      await approve.click();
      const confirmation = page.locator('[data-part-type="response"]', { hasText: /Booked: confirmed, reference SB[A-Z0-9]{6}\./ });
      await confirmation.waitFor({ timeout: 30_000 });
      await page.screenshot({ path: '/tmp/e2e-approval-done.png' });
      const log = await sb().log('ada');
      expect(log.filter((entry) => entry.type === 'tool_call' && entry.data['tool'] === 'book_flight' && entry.data['outcome'] === 'ok')).toHaveLength(1);
    } finally {
      await page.close();
    }
  }, 120_000);
});
