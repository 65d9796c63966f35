/**
 * The example app's flight search in the web chat, end to end in a real headless Chromium: the
 * running service (a copy of the example app, so bookings stay out of this folder; a scripted
 * model behind the fake Anthropic server) settles a search whose `flight-results` data the app's
 * surface template turns into an A2UI surface; the page renders it with the real renderer
 * (`/static/a2ui.js`); pressing Book on one flight sends that flight, exactly as shown, to the
 * actor as a user action, which books it through the approval card.
 */
import { rmSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';
import type { FakeMessageRequest } from '../fakes/fake-anthropic-types.ts';
import { useBrowser, useScreenshots } from '../support/browser.ts';
import { copyExampleApp } from '../support/example-app-copy.ts';
import { useRedis } from '../support/redis.ts';
import { part, reply, respond, toolCall } from '../support/scenario-model.ts';
import { useSwitchboard } from '../support/switchboard-harness.ts';

const appDir = copyExampleApp('sb-flight-surface-');
afterAll(() => {
  rmSync(appDir, { recursive: true, force: true });
});

const redisUrl = useRedis();
const sb = useSwitchboard({ appDir, redisUrl });
const browser = useBrowser();
const shoot = useScreenshots('flight-surface');
const UI_TIMEOUT_MS = 30_000;
const ACTION_MARK = 'Action context (JSON): ';

interface Block { readonly type: string; readonly text?: string; readonly name?: string; readonly content?: unknown; readonly tool_use_id?: string }

/** The blocks of the request's last message. */
function lastBlocks(request: FakeMessageRequest): readonly Block[] {
  const last = (request.body.messages as readonly { content: string | readonly Block[] }[]).at(-1);
  if (last === undefined) return [];
  return typeof last.content === 'string' ? [{ type: 'text', text: last.content }] : last.content;
}

/** The name of the tool whose result the last message carries, if any. */
function answeredTool(request: FakeMessageRequest): string | undefined {
  const result = lastBlocks(request).find((block) => block.type === 'tool_result');
  if (result === undefined) return undefined;
  for (const message of request.body.messages as readonly { content: string | readonly Block[] }[]) {
    if (typeof message.content === 'string') continue;
    const call = message.content.find((block) => block.type === 'tool_use' && (block as { id?: string }).id === result.tool_use_id);
    if (call !== undefined) return call.name;
  }
  return undefined;
}

/** A model that searches, books the flight an action names, and confirms; the action texts it saw. */
function concierge(seen: string[]): (request: FakeMessageRequest) => ReturnType<typeof reply> {
  return (request) => {
    const answered = answeredTool(request);
    if (answered === 'search_flights') return reply(respond([part('response', 'Three nonstop flights; press Book on the one you want.')], 'complete'));
    if (answered === 'book_flight') return reply(respond([part('response', 'Booked.')], 'complete'));
    const text = lastBlocks(request).map((block) => block.text ?? '').join('\n');
    const at = text.indexOf(ACTION_MARK);
    if (at !== -1) {
      seen.push(text);
      const chosen = JSON.parse(text.slice(at + ACTION_MARK.length)) as { flightNumber: string; date: string; totalCost: number; currency: string };
      const passengers = [{ fullName: 'Ada Lovelace' }, { fullName: 'Charles Babbage' }];
      return reply(toolCall('book_flight', { flightNumber: chosen.flightNumber, date: chosen.date, passengers, totalCost: chosen.totalCost, currency: chosen.currency }));
    }
    return reply(toolCall('search_flights', { origin: 'LHR', destination: 'CDG', date: '2026-12-18', passengers: 2, maxStops: 0 }));
  };
}

async function openChat(conversation: string): Promise<{ page: Page; problems: string[] }> {
  const context = await browser().newContext({ viewport: { width: 960, height: 1600 }, locale: 'en-GB', timezoneId: 'Europe/London' });
  const page = await context.newPage();
  page.setDefaultTimeout(UI_TIMEOUT_MS);
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(error.message));
  page.on('console', (message) => { if (message.type() === 'error' || /Content Security Policy/i.test(message.text())) problems.push(message.text()); });
  await page.goto(`${sb().url}/?c=${conversation}`);
  await page.locator('#connection[data-state="connected"]').waitFor();
  return { page, problems };
}

describe('the flight search surface in the web chat', { timeout: 120_000 }, () => {
  it('shows each flight with a Book button, and Book starts the booking of that flight', async () => {
    const seen: string[] = [];
    sb().fake.respondWith(concierge(seen));
    const { page, problems } = await openChat('flight-surface');
    await page.fill('#message', 'Nonstop from London to Paris on 18 December 2026 for two?');
    await page.press('#message', 'Enter');

    const surface = page.locator('a2ui-surface');
    await surface.getByText('MW 304').first().waitFor();
    const books = surface.getByRole('button', { name: 'Book' });
    expect(await books.count()).toBe(3);
    console.info(`screenshot: ${await shoot(page, 'flight-results')}`);

    // The card of MW 304 holds its own Book button.
    const mw304 = surface.locator('*', { hasText: 'MW 304' }).filter({ has: page.getByRole('button', { name: 'Book' }) }).last();
    await mw304.getByRole('button', { name: 'Book' }).click();

    const card = page.locator('.part-approval');
    await card.waitFor();
    expect(seen).toHaveLength(1);
    expect(seen[0]).toContain('[user-action] The person pressed "book" on surface "flight-results"');
    const context = JSON.parse((seen[0] ?? '').slice((seen[0] ?? '').indexOf(ACTION_MARK) + ACTION_MARK.length)) as Record<string, unknown>;
    expect(context).toMatchObject({ flightNumber: 'MW 304', date: '2026-12-18', passengers: 2, currency: 'GBP' });
    console.info(`screenshot: ${await shoot(page, 'booking-approval')}`);

    expect(await card.locator('.approval-title').textContent()).not.toContain('Book flight book_flight');
    expect(await card.locator('.approval-args dd').allTextContents()).toEqual(expect.arrayContaining(['MW 304', '236 GBP']));
    await card.getByRole('button', { name: /approve/i }).click();
    await page.getByText('Booked.').waitFor();
    expect(await card.locator('.approval-result').textContent()).toMatch(/^Approved by you at /);
    const log = await sb().log('flight-surface');
    expect(log.some((entry) => entry.type === 'injection' && entry.data['kind'] === 'user-action')).toBe(true);
    console.info(`screenshot: ${await shoot(page, 'booked')}`);
    expect(problems).toEqual([]);
  });
});
