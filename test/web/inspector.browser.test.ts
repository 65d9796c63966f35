/**
 * The inspector pages in a real headless Chromium, against the running service with the SMS
 * channel (signed Twilio webhooks in, the real twilio SDK out to a fake of Twilio's API) and a
 * scripted model: a person texts the bot, the turn calls the example app's booking tool, which
 * needs their approval; they approve by text, the answer goes out by SMS, and Twilio reports it
 * delivered. Then an operator finds the conversation by the phone number on /admin/conversations,
 * opens its timeline and sees the model call, the tool call, the approval and the SMS delivery;
 * the provider's `delivered` arrives while the page is open and appears without a reload.
 */
import { rmSync } from 'node:fs';
import type { BrowserContext, Page } from 'playwright-core';
import { pino } from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { smsChannel } from '../../channels/sms/index.ts';
import { startService, type Service } from '../../service/create-service.ts';
import { loadEnv } from '../../src/config/env.ts';
import { startFakeAnthropic } from '../fakes/fake-anthropic.ts';
import type { FakeAnthropic } from '../fakes/fake-anthropic-types.ts';
import { startFakeTwilio } from '../fakes/fake-twilio.ts';
import type { FakeTwilio } from '../fakes/fake-twilio-types.ts';
import { inboundSmsParams, postTwilioWebhook } from '../fakes/twilio-webhook.ts';
import { useBrowser, useScreenshots } from '../support/browser.ts';
import { openExampleApp } from '../support/open-example-app.ts';
import { useRedis, uniquePrefix } from '../support/redis.ts';
import { part, reply, respond, scenarioScript, toolCall } from '../support/scenario-model.ts';
import { waitFor } from '../support/wait-for.ts';

const ACCOUNT = `AC${'3'.repeat(32)}`;
const TOKEN = 'inspector-test-auth-token';
const BOT = '+15005550006';
const PUBLIC_URL = 'https://bot.example.com';
const ADA = '+15550107001';
const HOSTILE = '<img src=x onerror="window.pwned=1">';
const UI_TIMEOUT_MS = 30_000;

const redisUrl = useRedis();
const appDir = openExampleApp('switchboard-inspector-', ['sms']);
const browser = useBrowser();
const shoot = useScreenshots('inspector');
let fake: FakeAnthropic;
let twilio: FakeTwilio;
let service: Service;

beforeAll(async () => {
  fake = await startFakeAnthropic();
  twilio = await startFakeTwilio({ accountSid: ACCOUNT, authToken: TOKEN, numbers: [BOT] });
  fake.respondWith(scenarioScript({
    book: [
      () => reply(respond([part('ack', `Booking MW 304 ${HOSTILE}; it needs your approval.`)], 'awaiting'), toolCall('book_flight', { flightNumber: 'MW 304', date: '2026-12-18', passengers: [{ fullName: HOSTILE }], totalCost: 118, currency: 'GBP' })),
      (call) => reply(respond([part('response', `Result: ${call.toolResults.map((result) => result.content).join(' ')}`)], 'complete')),
    ],
  }));
  const env = loadEnv({
    ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: fake.url, LOG_LEVEL: 'silent', PUBLIC_URL,
    TWILIO_ACCOUNT_SID: ACCOUNT, TWILIO_AUTH_TOKEN: TOKEN, TWILIO_SMS_FROM: BOT, TWILIO_API_URL: twilio.url,
  }, { appDir });
  service = await startService({ env, role: 'all', redisUrl: redisUrl(), logger: pino({ level: 'silent' }), prefix: uniquePrefix('inspector'), port: 0, sessionLockTtlMs: 5000, jobLockDurationMs: 5000, channels: [smsChannel] });
});

afterAll(async () => {
  await service.close();
  await twilio.close();
  await fake.close();
  rmSync(appDir, { recursive: true, force: true });
});

const contexts: BrowserContext[] = [];
afterEach(async () => {
  for (const context of contexts.splice(0)) await context.close();
});

let counter = 0;
/** Texts the bot from `from`, signed over the public URL as Twilio would. */
async function text(from: string, body: string): Promise<void> {
  counter += 1;
  const params = inboundSmsParams({ from, to: BOT, body, accountSid: ACCOUNT, messageSid: `SM${counter.toString(16).padStart(32, 'a')}` });
  const answer = await postTwilioWebhook({ url: `${service.url ?? ''}/webhooks/twilio/sms`, signedUrl: `${PUBLIC_URL}/webhooks/twilio/sms`, authToken: TOKEN, params });
  expect(answer.status).toBe(200);
}

async function waitForText(match: (body: string) => boolean, what: string): Promise<{ sid: string; body: string }> {
  await waitFor(() => twilio.messages(ADA).some((message) => match(message.body)), what, 20_000);
  const found = twilio.messages(ADA).find((message) => match(message.body));
  return { sid: found?.sid ?? '', body: found?.body ?? '' };
}

async function openPage(): Promise<{ page: Page; problems: string[] }> {
  const context = await browser().newContext({ viewport: { width: 1200, height: 1400 } });
  contexts.push(context);
  const page = await context.newPage();
  page.setDefaultTimeout(UI_TIMEOUT_MS);
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(error.message));
  page.on('console', (message) => {
    if (message.type() === 'error' || /Content Security Policy/i.test(message.text())) problems.push(message.text());
  });
  return { page, problems };
}

describe('the inspector', { timeout: 120_000 }, () => {
  it('finds an SMS conversation by its number and shows its model call, tool call, approval and delivery with the later status', async () => {
    await text(ADA, 'Book MW 304 please #book');
    const request = await waitForText((body) => /APPROVE [A-Z0-9]{6}/.test(body), 'the approval text');
    const code = /APPROVE ([A-Z0-9]{6})/.exec(request.body)?.[1] ?? '';
    await text(ADA, `APPROVE ${code}`);
    const confirmation = await waitForText((body) => body.includes('Result:'), 'the confirmation');

    const { page, problems } = await openPage();
    await page.goto(`${service.url ?? ''}/admin/conversations`);
    await page.fill('input[name="address"]', ADA);
    await page.click('form.filters button[type="submit"]');
    const row = page.locator('tr.conversation', { hasText: ADA });
    await row.waitFor();
    expect(await page.locator('tr.conversation').count()).toBe(1);
    expect(await row.textContent()).toContain('sms');
    console.info(`screenshot: ${await shoot(page, 'conversations')}`);

    await row.locator('a').first().click();
    await page.waitForURL(/\/admin\/conversations\/[A-Za-z0-9_-]+$/);
    await page.locator('#live[data-state="connected"]').waitFor();

    // The message that started it: who sent it and what the channel verified about them.
    const message = page.locator('.entry[data-type="injection"]').first();
    await message.waitFor();
    expect(await message.textContent()).toContain(ADA);
    expect(await message.textContent()).toMatch(/Verified/);

    const modelCall = page.locator('.entry[data-type="model_response"]').first();
    await modelCall.waitFor();
    expect(await modelCall.textContent()).toContain('Tokens in');
    expect(await modelCall.textContent()).toContain('respond() part: ack');
    const tools = page.locator('.entry[data-type="tool_call"]', { hasText: 'book_flight' });
    await tools.first().waitFor();
    expect(await tools.allTextContents()).toEqual(expect.arrayContaining([expect.stringContaining('approval required'), expect.stringContaining('(ok)')]));
    const approval = page.locator('.approval-record[data-status="granted"]');
    await approval.waitFor();
    expect(await approval.textContent()).toContain(ADA);
    const decided = page.locator('.entry[data-type="approval"]', { hasText: 'Approval decided' });
    await decided.waitFor();
    expect(await decided.textContent()).toContain('Decided by');
    const sent = page.locator('.entry[data-type="delivery"]', { hasText: confirmation.sid });
    await sent.waitFor();
    expect(await sent.textContent()).toContain('Delivery on sms');

    // Twilio reports the answer delivered while the timeline is open: the row appears live.
    await twilio.deliverStatuses(confirmation.sid, ['sent', 'delivered'], { url: `${service.url ?? ''}/webhooks/twilio/status`, signedUrl: `${PUBLIC_URL}/webhooks/twilio/status` });
    const status = page.locator(`.entry[data-type="delivery_status"][data-provider-message-id="${confirmation.sid}"]`, { hasText: 'delivered' });
    await status.waitFor();
    // It joins the turn that sent the SMS.
    expect(await page.locator('section.turn', { has: status }).locator(`.entry[data-type="delivery"][data-provider-message-id="${confirmation.sid}"]`).count()).toBe(1);

    expect(await page.locator('img').count()).toBe(0);
    expect(await page.evaluate('window.pwned')).toBeUndefined();
    console.info(`screenshot: ${await shoot(page, 'timeline')}`);

    // The same rows come from the server on a reload: the status sits under the turn that sent the SMS.
    await page.reload();
    const reloaded = page.locator(`section[data-turn] .entry[data-type="delivery_status"][data-provider-message-id="${confirmation.sid}"]`, { hasText: 'delivered' });
    await reloaded.waitFor();
    expect(await page.locator('.turn-facts').allTextContents()).toEqual(expect.arrayContaining([expect.stringMatching(/model call/)]));
    expect(await page.locator('.deliveries').allTextContents()).toEqual(expect.arrayContaining([expect.stringContaining(`(${confirmation.sid}); provider: sent, delivered`)]));

    // A captured model call opens in full.
    await page.locator('.entry[data-type="model_request"] a', { hasText: 'full request and response' }).first().click();
    await page.locator('pre.capture-request').waitFor();
    expect(await page.locator('pre.capture-request').textContent()).toContain('book_flight');
    expect(problems).toEqual([]);
  });
});
