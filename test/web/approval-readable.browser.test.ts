/**
 * The approval card as a person reads it, in a real headless Chromium (New York time, US English)
 * against the running example app with a scripted model: the tool's name humanised as the title,
 * the arguments through the generic view (the passengers as a list, the total with its currency,
 * nested records indented), the expiry in the viewer's time with its zone, who may decide, and the
 * decided state with who and when. Markup in an argument stays text.
 */
import type { BrowserContext, Page } from 'playwright-core';
import { afterEach, describe, expect, it } from 'vitest';
import { createWebEventStore } from '../../channels/web/stream/event-store.ts';
import { useBrowser, useScreenshots } from '../support/browser.ts';
import { useRedis } from '../support/redis.ts';
import { part, reply, respond, scenarioScript, toolCall } from '../support/scenario-model.ts';
import { useSwitchboard } from '../support/switchboard-harness.ts';
import { fileURLToPath } from 'node:url';

const appDir = fileURLToPath(new URL('../../', import.meta.url));
const redisUrl = useRedis();
const sb = useSwitchboard({ appDir, redisUrl });
const browser = useBrowser();
const shoot = useScreenshots('approval-readable');

const UI_TIMEOUT_MS = 30_000;
const TIME_ZONE = 'America/New_York';
const HOSTILE = '<img src=x onerror="window.pwned=1">';

const contexts: BrowserContext[] = [];
afterEach(async () => {
  for (const context of contexts.splice(0)) await context.close();
});

async function openChat(conversation: string): Promise<{ page: Page; problems: string[] }> {
  const context = await browser().newContext({ viewport: { width: 960, height: 1200 }, locale: 'en-US', timezoneId: TIME_ZONE });
  contexts.push(context);
  const page = await context.newPage();
  page.setDefaultTimeout(UI_TIMEOUT_MS);
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(error.message));
  page.on('console', (message) => {
    if (message.type() === 'error' || /Content Security Policy/i.test(message.text())) problems.push(message.text());
  });
  await page.goto(`${sb().url}/?c=${conversation}`);
  await page.locator('#connection[data-state="connected"]').waitFor();
  return { page, problems };
}

/** The clock time (`6:00`) and zone name (`EST`) of `iso` in New York, as a US English viewer sees them. */
function newYork(iso: string): { clock: string; zone: string } {
  const parts = new Intl.DateTimeFormat('en-US', { timeZone: TIME_ZONE, hour: 'numeric', minute: '2-digit', timeZoneName: 'short' }).formatToParts(new Date(iso));
  const value = (type: string): string => parts.find((entry) => entry.type === type)?.value ?? '';
  return { clock: `${value('hour')}:${value('minute')}`, zone: value('timeZoneName') };
}

describe('the approval card, readable', { timeout: 120_000 }, () => {
  it('shows the booking readably to the person who may approve it, and who denied it and when', async () => {
    const booking = { flightNumber: 'MW 304', date: '2026-12-18', passengers: [{ fullName: 'Ada Lovelace' }, { fullName: HOSTILE }], totalCost: 236, currency: 'GBP' };
    sb().fake.respondWith(
      scenarioScript({
        book: [
          () => reply(respond([part('ack', 'Booking MW 304; it needs your approval.')], 'awaiting'), toolCall('book_flight', booking)),
          () => reply(respond([part('response', 'Nothing was booked.')], 'complete')),
        ],
      }),
    );
    const { page, problems } = await openChat('readable-booking');
    await page.fill('#message', 'Book MW 304 for Ada and a friend #book');
    await page.press('#message', 'Enter');

    const card = page.locator('.part-approval');
    await card.getByRole('button', { name: 'Approve' }).waitFor();
    expect(await card.locator('.approval-name').textContent()).toBe('Book seats on one flight found with search_flights, for the named passengers');
    expect(await card.locator('code.approval-tool').textContent()).toBe('book_flight');
    expect(await card.locator('.approval-who').textContent()).toBe('You can approve this.');

    const args = card.locator('.approval-args > dl');
    expect(await args.locator(':scope > dt').allTextContents()).toEqual(['Flight number', 'Date', 'Passengers', 'Total cost']);
    const values = args.locator(':scope > dd');
    expect(await values.nth(0).textContent()).toBe('MW 304');
    expect(await values.nth(2).locator('li').allTextContents()).toEqual(['Ada Lovelace', HOSTILE]);
    expect(await values.nth(3).textContent()).toBe('236 GBP');
    expect(await card.locator('img').count()).toBe(0);
    expect(await page.evaluate('window.pwned')).toBeUndefined();

    const time = card.locator('.approval-expiry time');
    const expiresAt = (await time.getAttribute('datetime')) ?? '';
    const expiry = newYork(expiresAt);
    expect(expiry.zone).toMatch(/^E[SD]T$/);
    const shown = (await time.textContent())?.replace(/\s/g, ' ') ?? '';
    expect(shown).toContain(expiry.clock);
    expect(shown).toContain(expiry.zone);
    console.info(`screenshot: ${await shoot(page, 'booking-pending')}`);

    await card.getByRole('button', { name: 'Deny' }).click();
    await page.locator('.part-approval[data-status="denied"]').waitFor();
    const result = (await card.locator('.approval-result').textContent()) ?? '';
    expect(result).toMatch(/^Denied by you at .+ E[SD]T\.$/);
    expect(await card.getByRole('button').count()).toBe(0);
    expect(await card.locator('.approval-who').count()).toBe(0);
    await page.locator('.part-response', { hasText: 'Nothing was booked.' }).waitFor();
    await page.locator('.turn[data-turn-state="complete"]').waitFor();
    // The settlement's approval surface is not shown again beside the card.
    expect(await page.locator('.part-surface').count()).toBe(0);
    console.info(`screenshot: ${await shoot(page, 'booking-denied')}`);
    expect(problems).toEqual([]);
  });

  it('tells a requester who may not decide whom it waits for, indents nested arguments, and shows the decision that arrives', async () => {
    const conversation = 'readable-waiting';
    const { page, problems } = await openChat(conversation);
    const store = createWebEventStore({ redis: sb().redis(), keyPrefix: sb().prefix });
    try {
      const args = {
        invoice: {
          number: 'INV-7',
          lines: [
            { item: 'Seats', amount: 120, currency: 'EUR' },
            { item: 'Bags <i>x2</i>', amount: 40, currency: 'EUR' },
          ],
          supplier: { name: 'Air <i>Co</i>', address: { city: 'Lisbon', country: { code: 'PT' } } },
        },
        amount: 160,
        currency: 'EUR',
      };
      await store.append(
        conversation,
        {
          type: 'part',
          turnId: 'turn-wait',
          partId: 'approval',
          turnState: 'suspended',
          part: {
            text: 'The payment needs approval.',
            data: {
              approvalId: 'appr-wait',
              toolName: 'pay_invoice',
              toolCallId: 'toolu_1',
              args,
              handler: 'main',
              turn: 'turn-wait',
              session: 'session-1',
              expiresAt: '2030-01-01T11:00:00Z',
              description: 'Pays a supplier invoice from the travel budget.',
              mayDecide: false,
              waitingFor: "Waiting for Finance desk's approval.",
            },
            metadata: { partType: 'approval-request' },
          },
        },
        'ask:appr-wait',
      );
      const card = page.locator('.part-approval[data-approval-id="appr-wait"]');
      await card.locator('.approval-waiting', { hasText: "Waiting for Finance desk's approval." }).waitFor();
      expect(await card.getByRole('button').count()).toBe(0);
      expect(await card.locator('.approval-name').textContent()).toBe('Pay invoice');
      expect(await card.locator('.approval-description').textContent()).toBe('Pays a supplier invoice from the travel budget.');

      const top = card.locator('.approval-args > dl');
      expect(await top.locator(':scope > dt').allTextContents()).toEqual(['Invoice', 'Amount']);
      expect(await top.locator(':scope > dd').nth(1).textContent()).toBe('160 EUR');
      const invoice = top.locator(':scope > dd.generic-nested > dl');
      expect(await invoice.locator(':scope > dt').allTextContents()).toEqual(['Number', 'Lines', 'Supplier']);
      expect(await invoice.locator('table tbody tr').nth(1).locator('td').allTextContents()).toEqual(['Bags <i>x2</i>', '40 EUR']);
      // Deeper than two levels: collapsed JSON, still text.
      const deep = invoice.locator('details.generic-json');
      expect(await deep.getAttribute('open')).toBeNull();
      expect(await deep.locator('pre').textContent()).toBe(JSON.stringify({ city: 'Lisbon', country: { code: 'PT' } }, null, 2));
      expect(await card.locator('i').count()).toBe(0);
      expect(await card.getByText('Air <i>Co</i>', { exact: true }).isVisible()).toBe(true);

      const expiry = (await card.locator('.approval-expiry time').textContent())?.replace(/\s/g, ' ') ?? '';
      expect(expiry).toContain('6:00 AM');
      expect(expiry).toContain('EST');
      console.info(`screenshot: ${await shoot(page, 'waiting-for-approver')}`);

      await store.append(
        conversation,
        { type: 'approval', approvalId: 'appr-wait', status: 'granted', decidedBy: 'Finance desk', decidedAt: '2030-01-01T10:30:00Z' },
        'approval:appr-wait',
      );
      await page.locator('.part-approval[data-status="granted"]').waitFor();
      const result = (await card.locator('.approval-result').textContent())?.replace(/\s/g, ' ') ?? '';
      expect(result).toMatch(/^Approved by Finance desk at .*\b5:30 AM EST\.$/);
      expect(await card.locator('.approval-waiting').count()).toBe(0);
      console.info(`screenshot: ${await shoot(page, 'waiting-decided')}`);
      expect(problems).toEqual([]);
    } finally {
      await store.close();
    }
  });
});
