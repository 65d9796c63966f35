/**
 * The web chat page in a real headless Chromium, against a real HTTP server with the web routes
 * and a real Redis. A small fake pipeline stands in for the queue and the actor: for each message
 * it delivers an `ack` at once, then a `response` and the settled turn about 100 ms later.
 */

import type { IncomingMessage, ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Page } from 'playwright-core';
import { afterEach, describe, expect, it } from 'vitest';
import type { Injection } from '../../src/runtime/injection.ts';
import { createWebEventStore, type WebEventStore } from '../../channels/web/stream/event-store.ts';
import { createWebRoutes, type WebChatStatus } from '../../channels/web/inbound.ts';
import { createWebSender, type WebSender } from '../../channels/web/send.ts';
import { useKeyPrefix, useRedis } from '../support/redis.ts';
import { startTestServer, type TestServer } from './http-test-server.ts';
import { useRedisClients } from '../support/redis-clients.ts';
import { createTestIdentity } from './test-identity.ts';
import { issueSignInLink } from '../../channels/web/identity/sign-in-links.ts';
import { useBrowser } from '../support/browser.ts';

const redisUrl = useRedis();
const prefix = useKeyPrefix(redisUrl);
const connect = useRedisClients(redisUrl);

const UI_TIMEOUT_MS = 30_000;
const SCREENSHOT = '/tmp/web-chat.png';

const browser = useBrowser();

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** Records, in the page, when parts are added and when a working indicator is shown. */
const RECORDER = `
  window.__chatLog = [];
  new MutationObserver((records) => {
    for (const record of records) {
      if (record.type === 'childList') {
        for (const node of record.addedNodes) {
          if (node.nodeType === 1 && node.classList.contains('part')) {
            window.__chatLog.push({ what: node.dataset.partType, at: performance.now() });
          }
        }
      } else if (record.target.classList.contains('working') && !record.target.hidden) {
        window.__chatLog.push({ what: 'working-shown', at: performance.now() });
      }
    }
  }).observe(document, { childList: true, subtree: true, attributes: true, attributeFilter: ['hidden'] });
`;

interface Harness {
  readonly server: TestServer;
  readonly store: WebEventStore;
  readonly sender: WebSender;
  readonly status: { current: WebChatStatus };
  /** Stream ids written to each SSE response, in order, across every connection. */
  readonly sentIds: string[];
  /** The Last-Event-ID header of each SSE request. */
  readonly resumeHeaders: (string | undefined)[];
  readonly pipelineErrors: unknown[];
  /** Uncaught page errors and console errors of the pages opened. */
  readonly pageErrors: string[];
  /** Ends every open SSE response, holding new ones until `release()`. */
  cutStreams(): { release(): void };
  openPage(conversationId: string, viewport?: { width: number; height: number }, beforeOpen?: (page: Page) => Promise<void>): Promise<Page>;
  /** A one-time sign-in link for a person of the test's people. */
  signInLink(personId: string): Promise<string>;
}

async function startHarness(): Promise<Harness> {
  const store = createWebEventStore({ redis: await connect(), keyPrefix: prefix() });
  cleanups.push(() => store.close());
  const sender = createWebSender(store);
  const status = { current: { modelConfigured: true } as WebChatStatus };
  const pipelineErrors: unknown[] = [];
  const pageErrors: string[] = [];
  const enqueued = new Set<string>();
  let turns = 0;

  const deliver = (injection: Injection, turnId: string, partId: string, payload: Record<string, unknown>): Promise<unknown> =>
    sender.send({ channel: 'web', destination: injection.replyTo, idempotencyKey: `${turnId}:${partId}`, payload });

  /** The fake turn: ack at once, then the answer and the settled turn. */
  const runTurn = async (injection: Injection): Promise<void> => {
    turns += 1;
    const turnId = `turn-${turns}`;
    await deliver(injection, turnId, 'ack', {
      type: 'part',
      turnId,
      partId: 'ack',
      turnState: 'awaiting',
      part: { text: `Looking into "${injection.text}".`, metadata: { partType: 'ack' } },
    });
    await sleep(100);
    await deliver(injection, turnId, 'answer', {
      type: 'part',
      turnId,
      partId: 'answer',
      turnState: 'complete',
      part: { text: `You asked: ${injection.text}\n\nTwo direct options.\nBoth leave <b>early</b>.`, metadata: { partType: 'response' } },
    });
    await deliver(injection, turnId, 'settled', { type: 'turn', turnId, turnState: 'complete' });
  };

  const sseResponses = new Set<ServerResponse>();
  const sentIds: string[] = [];
  const resumeHeaders: (string | undefined)[] = [];
  let held: (() => void)[] | undefined;

  const trackSse = (req: IncomingMessage, res: ServerResponse, route: () => void): boolean => {
    if (req.method !== 'GET' || req.url === undefined || !/^\/api\/chat\/[^/]+\/events/.test(req.url)) return false;
    const header = req.headers['last-event-id'];
    resumeHeaders.push(typeof header === 'string' ? header : undefined);
    sseResponses.add(res);
    res.on('close', () => sseResponses.delete(res));
    const write = res.write.bind(res) as (...args: unknown[]) => boolean;
    res.write = ((chunk: unknown, ...rest: unknown[]) => {
      const text = typeof chunk === 'string' ? chunk : Buffer.isBuffer(chunk) ? chunk.toString('utf8') : '';
      for (const match of text.matchAll(/^id: (.+)$/gm)) sentIds.push(match[1] ?? '');
      return write(chunk, ...rest);
    }) as typeof res.write;
    if (held === undefined) route();
    else held.push(route);
    return true;
  };

  const redis = await connect();
  const server = await startTestServer(
    createWebRoutes({
      store,
      identity: createTestIdentity(redis, prefix(), { people: [{ id: 'ada', name: 'Ada Lovelace' }] }),
      tenantId: 'test',
      heartbeatMs: 60_000,
      status: () => status.current,
      enqueue: (injection) => {
        const duplicate = enqueued.has(injection.id);
        enqueued.add(injection.id);
        if (!duplicate) runTurn(injection).catch((error: unknown) => pipelineErrors.push(error));
        return Promise.resolve({ duplicate });
      },
    }),
    { intercept: trackSse },
  );
  cleanups.push(() => server.close());

  return {
    server,
    store,
    sender,
    status,
    sentIds,
    resumeHeaders,
    pipelineErrors,
    pageErrors,
    cutStreams() {
      held = [];
      for (const res of sseResponses) res.destroy();
      return {
        release() {
          const waiting = held ?? [];
          held = undefined;
          waiting.forEach((route) => {
            route();
          });
        },
      };
    },
    async signInLink(personId) {
      return (await issueSignInLink({ redis, prefix: prefix(), publicUrl: server.url }, personId, 'invite by operator')).url;
    },
    async openPage(conversationId, viewport = { width: 900, height: 760 }, beforeOpen) {
      const context = await browser().newContext({ viewport });
      cleanups.push(() => context.close());
      const page = await context.newPage();
      if (beforeOpen !== undefined) await beforeOpen(page);
      page.setDefaultTimeout(UI_TIMEOUT_MS);
      page.on('pageerror', (error) => pageErrors.push(error.message));
      page.on('console', (message) => {
        if (message.type() === 'error') pageErrors.push(message.text());
      });
      await page.addInitScript({ content: RECORDER });
      await page.goto(`${server.url}/?c=${conversationId}`);
      await page.locator('#connection[data-state="connected"]').waitFor();
      return page;
    },
  };
}

async function chatLog(page: Page): Promise<{ what: string; at: number }[]> {
  return page.evaluate<{ what: string; at: number }[]>('window.__chatLog');
}

async function send(page: Page, text: string): Promise<void> {
  const input = page.getByLabel('Message');
  await input.fill(text);
  await input.press('Enter');
}

describe('the web chat page', { timeout: 120_000 }, () => {
  it('shows the message, the ack before the answer, the answer as safe text, and settles the turn', async () => {
    const harness = await startHarness();
    const page = await harness.openPage('browser-flow');
    expect(await page.locator('#config-banner').isHidden()).toBe(true);

    await send(page, 'Find me a flight to Lisbon');
    await page.locator('.message-person', { hasText: 'Find me a flight to Lisbon' }).waitFor();
    expect(await page.getByLabel('Message').inputValue()).toBe('');

    const answer = page.locator('.part-response');
    await answer.waitFor();
    await page.locator('.turn[data-turn-state="complete"] .working').waitFor({ state: 'hidden' });

    const log = await chatLog(page);
    const ack = log.findIndex((entry) => entry.what === 'ack');
    const working = log.findIndex((entry) => entry.what === 'working-shown');
    const response = log.findIndex((entry) => entry.what === 'response');
    expect(ack).toBeGreaterThanOrEqual(0);
    expect(working).toBeGreaterThanOrEqual(0);
    expect(response).toBeGreaterThan(ack);
    expect(log[response]?.at).toBeGreaterThanOrEqual(log[ack]?.at ?? Infinity);

    expect(await page.locator('.part-ack').textContent()).toBe('Looking into "Find me a flight to Lisbon".');
    expect(await answer.locator('p').count()).toBe(2);
    expect(await answer.locator('br').count()).toBe(1);
    expect(await answer.locator('b').count()).toBe(0);
    expect(await answer.textContent()).toContain('Both leave <b>early</b>.');
    // The echo confirmed the message: exactly one bubble, no "Sending…" left.
    expect(await page.locator('.message-person').count()).toBe(1);
    await page.locator('.message-person[data-state="sent"]').waitFor();
    expect(harness.pipelineErrors).toEqual([]);
    expect(harness.pageErrors).toEqual([]);
  });

  it('shows a part appended while the event stream was down exactly once after reconnecting', async () => {
    const harness = await startHarness();
    const page = await harness.openPage('browser-gap');
    await send(page, 'hello');
    await page.locator('.turn[data-turn-state="complete"] .part-response').waitFor();
    // Echo, ack, answer and the settled turn: cut only once the page has seen all four.
    await expect.poll(() => harness.sentIds.length, { timeout: UI_TIMEOUT_MS }).toBe(4);
    const lastIdBeforeCut = harness.sentIds[3] ?? '';
    await page.locator(`#log[data-last-event-id="${lastIdBeforeCut}"]`).waitFor();

    const cut = harness.cutStreams();
    await page.locator('#connection[data-state="reconnecting"]').waitFor();
    await harness.sender.send({
      channel: 'web',
      destination: { channel: 'web', address: 'browser-gap' },
      idempotencyKey: 'late-turn:note',
      payload: {
        type: 'part',
        turnId: 'late-turn',
        partId: 'note',
        turnState: 'complete',
        part: { text: 'Sent while you were away.', metadata: { partType: 'response' } },
      },
    });
    cut.release();

    await page.locator('.part-response', { hasText: 'Sent while you were away.' }).waitFor();
    await page.locator('#connection[data-state="connected"]').waitFor();
    // The browser resumed from the last event it saw, and the server sent no event twice.
    expect(harness.resumeHeaders.at(-1)).toBe(lastIdBeforeCut);
    expect(new Set(harness.sentIds).size).toBe(harness.sentIds.length);

    // One more live event proves the new stream is live; then count what the page shows.
    await send(page, 'again');
    await page.locator('.part-response', { hasText: 'You asked: again' }).waitFor();
    expect(await page.locator('.part-response', { hasText: 'Sent while you were away.' }).count()).toBe(1);
    expect(await page.locator('.part-ack').count()).toBe(2);
    expect(await page.locator('.part-response').count()).toBe(3);
    expect(await page.locator('.message-person').count()).toBe(2);
    expect(harness.pipelineErrors).toEqual([]);
  });

  it('renders history of every conversational part type, safely', async () => {
    const harness = await startHarness();
    const conversation = 'browser-history';
    const events: Record<string, unknown>[] = [
      { type: 'message', messageId: `web:${conversation}:m0`, text: 'Any direct flights to Lisbon on Friday?', sender: `web:${conversation}` },
      { type: 'part', turnId: 'h0', partId: 'a', turnState: 'awaiting', part: { text: 'Searching Friday flights to LIS.', metadata: { partType: 'ack' } } },
      {
        type: 'part',
        turnId: 'h0',
        partId: 'r',
        turnState: 'complete',
        part: {
          text: 'Two direct options:\nEasyJet EJ4521 at 06:15, £94 per person.\nBA 500 at 08:45, £187 per person.\n\nThe early one is half the price.',
          metadata: { partType: 'response' },
        },
      },
      { type: 'turn', turnId: 'h0', turnState: 'complete' },
      { type: 'message', messageId: `web:${conversation}:m1`, text: 'Book the 06:15 EasyJet for two.', sender: `web:${conversation}` },
      { type: 'part', turnId: 'h1', partId: 'a', turnState: 'awaiting', part: { text: 'Checking seats on EJ4521.', metadata: { partType: 'ack' } } },
      { type: 'part', turnId: 'h1', partId: 't', turnState: 'awaiting', part: { text: 'Comparing fares…', metadata: { partType: 'thinking' } } },
      {
        type: 'part',
        turnId: 'h1',
        partId: 'c',
        turnState: 'clarifying',
        part: { text: 'Should the booking use the card ending 4242?', metadata: { partType: 'clarify' } },
      },
      { type: 'message', messageId: `web:${conversation}:m2`, text: 'Yes, <script>alert(1)</script> that card.', sender: `web:${conversation}` },
      {
        type: 'part',
        turnId: 'h2',
        partId: 'e',
        turnState: 'error',
        part: { text: 'The airline did not answer. Nothing was charged.', metadata: { partType: 'error' } },
      },
      { type: 'message', messageId: `web:${conversation}:m3`, text: 'Try again please.', sender: `web:${conversation}` },
      { type: 'part', turnId: 'h3', partId: 'p', turnState: 'awaiting', part: { text: '2 of 3 fares checked', metadata: { partType: 'progress' } } },
      {
        type: 'part',
        turnId: 'h3',
        partId: 'r',
        turnState: 'suspended',
        part: {
          text: 'Booking needs your approval.',
          data: {
            approvalId: 'appr-h3',
            toolName: 'book_flight',
            toolCallId: 'toolu_1',
            args: { flight: 'EJ4521', passengers: 2, total: '<b>£188</b>' },
            handler: 'concierge',
            turn: 'h3',
            session: 's-1',
            expiresAt: '2030-01-01T11:00:00Z',
          },
          metadata: { partType: 'approval-request' },
        },
      },
      { type: 'part', turnId: 'h3', partId: 'd', turnState: 'suspended', part: { data: { flights: [] }, metadata: { partType: 'domain-data' } } },
    ];
    for (const [index, payload] of events.entries()) {
      await harness.sender.send({ channel: 'web', destination: { channel: 'web', address: conversation }, idempotencyKey: `h-${index}`, payload });
    }
    const page = await harness.openPage(conversation, { width: 900, height: 1400 });
    await page.locator('.part-approval').waitFor();

    expect(await page.locator('.message-person').count()).toBe(4);
    expect(await page.locator('.message-person').nth(2).textContent()).toContain('<script>alert(1)</script>');
    expect(await page.locator('.part-response p').count()).toBe(2);
    expect(await page.locator('.part-clarify .part-label').textContent()).toBe('Question');
    expect(await page.locator('.part-error').getAttribute('role')).toBe('alert');
    // Settled turns keep no transient status; the suspended one waits for approval.
    expect(await page.locator('.turn[data-turn-id="h1"] .turn-status').isHidden()).toBe(true);
    expect(await page.locator('.turn[data-turn-id="h1"] .working').isHidden()).toBe(true);
    expect(await page.locator('.turn[data-turn-id="h3"] .turn-status').textContent()).toBe('2 of 3 fares checked');
    expect(await page.locator('.turn[data-turn-id="h3"] .working').textContent()).toBe('Waiting for approval…');
    const card = page.locator('.part-approval');
    expect(await card.locator('code').textContent()).toBe('book_flight');
    expect(await card.locator('.approval-args dd').allTextContents()).toEqual(['EJ4521', '2', '<b>£188</b>']);
    expect(await card.locator('b').count()).toBe(0);
    expect(await card.locator('time').getAttribute('datetime')).toBe('2030-01-01T11:00:00Z');
    expect(await card.getByRole('button', { name: 'Approve' }).isEnabled()).toBe(true);
    expect(await card.getByRole('button', { name: 'Deny' }).isEnabled()).toBe(true);
    expect(await page.locator('[data-part-type="domain-data"]').count()).toBe(0);

    expect(harness.pageErrors).toEqual([]);
    await page.screenshot({ path: SCREENSHOT });
  });

  it('names the missing model variables in a banner when the model is not configured', async () => {
    const harness = await startHarness();
    harness.status.current = { modelConfigured: false, missing: ['ANTHROPIC_API_KEY'] };
    const page = await harness.openPage('browser-banner');
    const banner = page.locator('#config-banner');
    await banner.waitFor();
    const text = await banner.textContent();
    expect(text).toContain('ANTHROPIC_API_KEY');
    expect(text).toContain('ANTHROPIC_BASE_URL');
    expect(text).toContain('Missing: ANTHROPIC_API_KEY');
  });

  it('shows who is signed in after a sign-in link, with an HttpOnly session cookie, and posts with the CSRF token', async () => {
    const harness = await startHarness();
    const link = await harness.signInLink('ada');
    const page = await harness.openPage('browser-signed-in', undefined, async (fresh) => {
      await fresh.goto(link);
      await fresh.waitForURL(`${harness.server.url}/`);
    });
    await page.locator('#identity', { hasText: 'Signed in as Ada Lovelace' }).waitFor();
    expect(await page.evaluate('document.cookie')).not.toContain('sb_session');
    const [cookie] = (await page.context().cookies()).filter((candidate) => candidate.name === 'sb_session');
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/' });
    await send(page, 'Hello from Ada');
    await page.locator('.part-response', { hasText: 'You asked: Hello from Ada' }).waitFor();
    expect(harness.pageErrors).toEqual([]);
  });

  it("refuses another browser a conversation that is not its own, and says so", async () => {
    const harness = await startHarness();
    const owner = await harness.openPage('browser-owned');
    await send(owner, 'Mine');
    await owner.locator('.part-response', { hasText: 'You asked: Mine' }).waitFor();

    const context = await browser().newContext();
    cleanups.push(() => context.close());
    const intruder = await context.newPage();
    intruder.setDefaultTimeout(UI_TIMEOUT_MS);
    await intruder.goto(`${harness.server.url}/?c=browser-owned`);
    await intruder.locator('#access-banner', { hasText: 'belongs to another browser' }).waitFor();
    expect(await intruder.locator('#connection').getAttribute('data-state')).toBe('offline');
    expect(await intruder.locator('.message-person').count()).toBe(0);
    await send(intruder, 'Let me in');
    await intruder.locator('.message-person[data-state="failed"]', { hasText: 'belongs to another browser' }).waitFor();
    expect(await owner.locator('.message-person').count()).toBe(1);
  });
});
