import { describe, expect, it } from 'vitest';
import { callRoute } from '../../../test/support/in-memory-http.ts';
import { signedWebhook, statusWebhook } from '../../../test/fakes/whatsapp-webhook.ts';
import type { ProviderDeliveryStatus } from '../../../src/runtime/inspect/delivery-status.ts';
import { createCloudRoutes } from './cloud-routes.ts';

const SECRET = 'status-app-secret';
const quiet = { debug: () => undefined, info: () => undefined, warn: () => undefined };

describe("WhatsApp Cloud statuses report a message's progress", () => {
  it('reports a status the store saved, and not one it refused as a step back', async () => {
    const reports: ProviderDeliveryStatus[] = [];
    const routes = createCloudRoutes({
      appSecret: SECRET,
      verifyToken: 'verify',
      phoneNumberId: '106540352242922',
      intake: { take: () => Promise.reject(new Error('no message expected')) },
      statuses: { record: (status) => Promise.resolve(status.status !== 'sent'), rememberTag: () => Promise.resolve() },
      media: { client: { mediaInfo: () => Promise.reject(new Error('none')), download: () => Promise.reject(new Error('none')) }, artifacts: { put: () => Promise.reject(new Error('none')) } },
      logger: quiet,
      clock: () => new Date('2030-01-01T10:00:00.000Z'),
      onStatus: (report) => { reports.push(report); return Promise.resolve(); },
    });
    const body = JSON.stringify(statusWebhook(
      { wamid: 'wamid.1', status: 'sent', timestamp: 1_893_492_000 },
      { wamid: 'wamid.1', status: 'failed', timestamp: 1_893_492_001, error: { code: 131047, title: 'Re-engagement message' } },
    ));
    const post = routes.find((route) => route.method === 'POST');
    if (post === undefined) throw new Error('no POST route');
    const answer = await callRoute(post, { body, headers: signedWebhook(body, SECRET), url: '/webhooks/whatsapp' });
    expect(answer.status).toBe(200);
    expect(reports).toEqual([{ channel: 'whatsapp', providerMessageId: 'wamid.1', status: 'failed', errorCode: '131047', at: '2030-01-01T10:00:01.000Z' }]);
  });
});
