/**
 * The web chat's approval card in a real headless Chromium, against a real HTTP server with the
 * web routes (real sessions, CSRF and conversation owners) and a real Redis. A fake `decide` (in
 * memory, first answer wins, approvers by address) stands in for the approval store and, like the
 * runtime, appends the `approval` event to the conversation after a decision so every open page
 * updates.
 */

import type { BrowserContext, Page } from 'playwright-core';
import { afterEach, describe, expect, it } from 'vitest';
import type { DecisionOutcome } from '../../src/runtime/approvals/approval-types.ts';
import type { ApprovalRequest } from '../../src/protocol/parts/approval-parts.ts';
import { createWebEventStore, type WebEventStore } from '../../channels/web/stream/event-store.ts';
import type { WebApprovalDecision } from '../../channels/web/approvals.ts';
import { createWebRoutes } from '../../channels/web/inbound.ts';
import { useKeyPrefix, useRedis } from '../support/redis.ts';
import { startTestServer, type TestServer } from './http-test-server.ts';
import { useRedisClients } from '../support/redis-clients.ts';
import { createTestIdentity } from './test-identity.ts';
import { createWebClient } from './web-client.ts';
import { useBrowser } from '../support/browser.ts';

const redisUrl = useRedis();
const prefix = useKeyPrefix(redisUrl);
const connect = useRedisClients(redisUrl);

const UI_TIMEOUT_MS = 30_000;
const SCREENSHOT = '/tmp/approval-card.png';

const browser = useBrowser();

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

interface FakeApproval {
  status: 'pending' | 'granted' | 'denied' | 'expired';
  decidedBy?: string;
  decidedAt?: string;
  readonly approvers: readonly string[];
  readonly conversationId: string;
}

interface Harness {
  readonly server: TestServer;
  readonly store: WebEventStore;
  readonly approvals: Map<string, FakeApproval>;
  readonly decisions: WebApprovalDecision[];
  readonly pageErrors: string[];
  /** Opens the conversation in a new browser, or in `context` (same cookies: the same browser). */
  openPage(conversationId: string, context?: BrowserContext): Promise<Page>;
  /** Appends the `approval-request` part for `approvalId` to the conversation. */
  ask(conversationId: string, approvalId: string, approvers: readonly string[], extra?: Record<string, unknown>): Promise<void>;
}

function refused(refusal: 'unknown_approval' | 'not_an_approver' | 'already_decided' | 'expired', message: string): DecisionOutcome {
  return { ok: false, refusal, message };
}

async function startHarness(): Promise<Harness> {
  const store = createWebEventStore({ redis: await connect(), keyPrefix: prefix() });
  cleanups.push(() => store.close());
  const approvals = new Map<string, FakeApproval>();
  const decisions: WebApprovalDecision[] = [];
  const pageErrors: string[] = [];

  /** First valid answer wins; the winner's outcome is appended to the conversation as the runtime will. */
  const decide = async (input: WebApprovalDecision): Promise<DecisionOutcome> => {
    decisions.push(input);
    const approval = approvals.get(input.approvalId);
    const by = input.by.address;
    if (approval === undefined) return refused('unknown_approval', 'There is no such approval.');
    if (!approval.approvers.includes(by)) return refused('not_an_approver', 'You are not one of the approvers of this request.');
    if (approval.status !== 'pending') {
      const verb = approval.status === 'granted' ? 'approved' : approval.status;
      return refused('already_decided', `This request was already ${verb} by ${approval.decidedBy ?? 'someone'}.`);
    }
    approval.status = input.decision;
    approval.decidedBy = by;
    approval.decidedAt = new Date().toISOString();
    await store.append(
      approval.conversationId,
      { type: 'approval', approvalId: input.approvalId, status: input.decision, decidedBy: by, decidedAt: approval.decidedAt },
      `approval:${input.approvalId}`,
    );
    // Only the fields the route reads matter to this fake.
    const record = { approvalId: input.approvalId, status: input.decision, decidedBy: { channel: 'web', address: by }, decidedAt: approval.decidedAt };
    return { ok: true, record: record as unknown as Extract<DecisionOutcome, { ok: true }>['record'] };
  };

  const server = await startTestServer(
    createWebRoutes({
      store,
      identity: createTestIdentity(await connect(), prefix()),
      tenantId: 'test',
      heartbeatMs: 60_000,
      status: () => ({ modelConfigured: true }),
      enqueue: () => Promise.resolve({ duplicate: false }),
      decideApproval: decide,
    }),
  );
  cleanups.push(() => server.close());

  return {
    server,
    store,
    approvals,
    decisions,
    pageErrors,
    async openPage(conversationId, shared) {
      let context = shared;
      if (context === undefined) {
        const fresh = await browser().newContext({ viewport: { width: 900, height: 700 } });
        cleanups.push(() => fresh.close());
        context = fresh;
      }
      const page = await context.newPage();
      page.setDefaultTimeout(UI_TIMEOUT_MS);
      page.on('pageerror', (error) => pageErrors.push(error.message));
      page.on('console', (message) => {
        // A refused decision is an HTTP error answer, which Chromium also logs; that is expected.
        if (message.type() === 'error' && !message.text().includes('the server responded with a status of 4')) pageErrors.push(message.text());
      });
      await page.goto(`${server.url}/?c=${conversationId}`);
      await page.locator('#connection[data-state="connected"]').waitFor();
      return page;
    },
    async ask(conversationId, approvalId, approvers, extra = {}) {
      approvals.set(approvalId, { status: 'pending', approvers, conversationId });
      const request: ApprovalRequest = {
        approvalId,
        toolName: 'book_flight',
        toolCallId: 'toolu_01',
        args: { flight: 'EJ4521', passengers: 2, note: '<img src=x onerror=alert(1)>' },
        handler: 'concierge',
        turn: `turn-${approvalId}`,
        session: 'session-1',
        expiresAt: '2030-01-01T11:00:00Z',
      };
      await store.append(
        conversationId,
        {
          type: 'part',
          turnId: `turn-${approvalId}`,
          partId: 'approval',
          turnState: 'suspended',
          part: { text: 'Booking needs your approval.', data: { ...request, ...extra }, metadata: { partType: 'approval-request' } },
        },
        `ask:${approvalId}`,
      );
    },
  };
}

/** The browser identity of the page's session, as the server issued it. */
async function identityOf(page: Page): Promise<string> {
  return page.evaluate(async () => ((await (await fetch('/api/chat/session')).json()) as { identity: string }).identity);
}

describe('the approval card', { timeout: 120_000 }, () => {
  it('approves from one page and shows the outcome in a second open page of the conversation', async () => {
    const harness = await startHarness();
    const conversation = 'approval-flow';
    const first = await harness.openPage(conversation);
    const second = await harness.openPage(conversation, first.context());
    const me = await identityOf(first);
    await harness.ask(conversation, 'appr-one', [`web:${me}`]);

    const card = first.locator('.part-approval[data-approval-id="appr-one"]');
    const otherCard = second.locator('.part-approval[data-approval-id="appr-one"]');
    await card.waitFor();
    await otherCard.waitFor();
    expect(await card.locator('code').textContent()).toBe('book_flight');
    expect(await card.locator('.approval-args dd').allTextContents()).toEqual([
      'EJ4521',
      '2',
      '<img src=x onerror=alert(1)>',
    ]);
    expect(await card.locator('img').count()).toBe(0);
    expect(await card.locator('.approval-expiry time').getAttribute('datetime')).toBe('2030-01-01T11:00:00Z');

    const otherButtons = otherCard.getByRole('button');

    await card.getByRole('button', { name: 'Approve' }).click();
    await first.locator('.part-approval[data-status="granted"]').waitFor();
    expect(await card.locator('.approval-result').textContent()).toMatch(/^Approved by you at /);
    expect(await card.getByRole('button').count()).toBe(0);
    expect(harness.decisions).toEqual([
      {
        approvalId: 'appr-one',
        decision: 'granted',
        by: { channel: 'web', address: `web:${me}`, verified: true, basis: 'web session cookie' },
        conversationId: conversation,
      },
    ]);

    // The other page learns it from the stream.
    await second.locator('.part-approval[data-status="granted"]').waitFor();
    expect(await otherCard.locator('.approval-result').textContent()).toMatch(/^Approved by you at /);
    expect(await otherButtons.count()).toBe(0);
    await first.screenshot({ path: SCREENSHOT });
    expect(harness.pageErrors).toEqual([]);
  });

  it('shows a requester who may not decide whom the request waits for, with no buttons', async () => {
    const harness = await startHarness();
    const conversation = 'approval-waiting';
    const page = await harness.openPage(conversation);
    await harness.ask(conversation, 'appr-wait', ['email:grace@example.com'], { mayDecide: false, waitingFor: "Waiting for grace's approval." });
    const card = page.locator('.part-approval[data-approval-id="appr-wait"]');
    await card.locator('.approval-waiting').filter({ hasText: "Waiting for grace's approval." }).waitFor({ timeout: UI_TIMEOUT_MS });
    expect(await card.getByRole('button').count()).toBe(0);
    expect(harness.pageErrors).toEqual([]);
  });

  it('shows the refusal message on the card and keeps it answerable', async () => {
    const harness = await startHarness();
    const conversation = 'approval-refused';
    const page = await harness.openPage(conversation);
    await harness.ask(conversation, 'appr-two', ['web:someone-else']);
    const card = page.locator('.part-approval[data-approval-id="appr-two"]');
    await card.getByRole('button', { name: 'Deny' }).click();
    await card.locator('.approval-problem').filter({ hasText: 'You are not one of the approvers of this request.' }).waitFor();
    expect(await card.getAttribute('data-status')).toBe('pending');
    expect(await card.getByRole('button', { name: 'Deny' }).isEnabled()).toBe(true);
    expect(harness.approvals.get('appr-two')?.status).toBe('pending');
    expect(harness.pageErrors).toEqual([]);
  });

  it('shows the already-decided refusal of a late answer', async () => {
    const harness = await startHarness();
    const conversation = 'approval-late';
    const page = await harness.openPage(conversation);
    await harness.ask(conversation, 'appr-three', [`web:${await identityOf(page)}`]);
    const card = page.locator('.part-approval[data-approval-id="appr-three"]');
    await card.waitFor();
    // Someone else decided first, on another channel (no event reached this page).
    const approval = harness.approvals.get('appr-three');
    if (approval === undefined) throw new Error('no approval');
    approval.status = 'denied';
    approval.decidedBy = 'web:ops-desk';
    await card.getByRole('button', { name: 'Approve' }).click();
    await card.locator('.approval-problem').filter({ hasText: 'This request was already denied by web:ops-desk.' }).waitFor();
  });

  it("refuses, before deciding, an answer that names another browser's conversation; the approval stays pending", async () => {
    const harness = await startHarness();
    const page = await harness.openPage('approval-owned');
    await harness.ask('approval-owned', 'appr-four', [`web:${await identityOf(page)}`]);
    await page.locator('.part-approval[data-approval-id="appr-four"]').waitFor();
    const stranger = createWebClient(harness.server.url);
    const answer = await stranger.post('/api/approvals/appr-four', { decision: 'granted', conversationId: 'approval-owned' });
    expect(answer.status).toBe(403);
    expect(answer.body['error']).toMatchObject({ code: 'http.forbidden', details: { reason: 'not_owner' } });
    expect(harness.decisions).toEqual([]);
    expect(harness.approvals.get('appr-four')?.status).toBe('pending');
    expect(await page.locator('.part-approval[data-approval-id="appr-four"]').getAttribute('data-status')).toBe('pending');
  });
});
