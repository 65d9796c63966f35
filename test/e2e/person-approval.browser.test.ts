/**
 * A configured person on the web, in a real headless Chromium against the running service: the
 * finance desk opens a one-time sign-in link (the session rotates, the old cookie stops working),
 * asks to pay an invoice, and approves it on the card as the person `fin`; a browser that is
 * nobody in particular is refused (403) and its attempt stays in the audit trail.
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { issueSignInLink } from '../../channels/web/identity/sign-in-links.ts';
import { createApprovalStore } from '../../src/runtime/approvals/redis-approval-store.ts';
import { useBrowser } from '../support/browser.ts';
import { useRedis } from '../support/redis.ts';
import { part, reply, respond, scenarioScript, toolCall } from '../support/scenario-model.ts';
import { useSwitchboard } from '../support/switchboard-harness.ts';

const appDir = fileURLToPath(new URL('../fixtures/loop-app/', import.meta.url));
const redisUrl = useRedis();
const sb = useSwitchboard({ appDir, redisUrl });
const browser = useBrowser();

describe('a person signed in with a link approves on the card', () => {
  it('binds the browser to the person, refuses a stranger, and records who decided on what basis', async () => {
    sb().fake.respondWith(
      scenarioScript({
        finpay: [
          () => reply(respond([part('ack', 'Paying INV-42; it needs approval.')], 'awaiting'), toolCall('pay_invoice', { invoice: 'INV-42', amount: 420 })),
          (call) => reply(respond([part('response', `Paid: ${call.toolResults.at(-1)?.content ?? ''}`)], 'complete')),
        ],
      }),
    );
    const context = await browser().newContext();
    try {
      const page = await context.newPage();
      await page.goto(`${sb().url}/?c=fin-pay`);
      await page.locator('#connection[data-state="connected"]').waitFor({ timeout: 30_000 });
      expect(await page.locator('#identity').isHidden()).toBe(true);
      const anonymousCookie = (await context.cookies()).find((cookie) => cookie.name === 'sb_session')?.value ?? '';

      const link = await issueSignInLink({ redis: sb().redis(), prefix: sb().prefix, publicUrl: sb().url }, 'fin', 'invite by operator');
      await page.goto(link.url);
      await page.waitForURL(`${sb().url}/`);
      await page.goto(`${sb().url}/?c=fin-pay`);
      await page.locator('#identity', { hasText: 'Signed in as Finance desk' }).waitFor({ timeout: 30_000 });
      const replayed = await fetch(`${sb().url}/api/chat/fin-pay/events`, { method: 'HEAD', headers: { cookie: `sb_session=${anonymousCookie}` } });
      expect(replayed.status).toBe(401);
      expect((await page.goto(link.url))?.status()).toBe(404);
      await page.goto(`${sb().url}/?c=fin-pay`);
      await page.locator('#connection[data-state="connected"]').waitFor({ timeout: 30_000 });

      await page.fill('#message', 'Pay INV-42 please #finpay');
      await page.press('#message', 'Enter');
      const card = page.locator('.part-approval');
      await card.getByRole('button', { name: 'Approve' }).waitFor({ timeout: 30_000 });
      const approvalId = (await card.getAttribute('data-approval-id')) ?? '';

      const stranger = await sb().decide(approvalId, 'granted', { as: sb().client() });
      expect(stranger.status).toBe(403);
      expect(await card.getAttribute('data-status')).toBe('pending');

      await card.getByRole('button', { name: 'Approve' }).click();
      await page.locator('.part-approval[data-status="granted"] .approval-result', { hasText: /^Approved by fin at / }).waitFor({ timeout: 30_000 });
      await page.locator('[data-part-type="response"]', { hasText: 'Paid: {"paid":"INV-42"' }).waitFor({ timeout: 30_000 });
      await page.screenshot({ path: '/tmp/e2e-person-approval.png' });

      const audit = await createApprovalStore({ redis: sb().redis(), prefix: sb().prefix }).audit(approvalId);
      expect(audit.slice(0, 3).map((entry) => entry.action)).toEqual(['requested', 'refused', 'granted']);
      expect(audit[0]?.by).toMatchObject({ channel: 'web', personId: 'fin', verified: true });
      expect(audit[1]?.by).toMatchObject({ channel: 'web', verified: true, basis: 'web session cookie' });
      expect(audit[1]?.by?.personId).toBeUndefined();
      expect(audit[2]?.by).toMatchObject({ channel: 'web', personId: 'fin', verified: true, basis: 'web session cookie; sign-in link: invite by operator' });
    } finally {
      await context.close();
    }
  }, 120_000);
});
