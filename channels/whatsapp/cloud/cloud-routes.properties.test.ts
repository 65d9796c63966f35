import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Injection } from '../../../src/runtime/injection.ts';
import { FUZZ_PEOPLE, jsonText, nastyString, useFuzzGuards } from '../../../test/support/fuzz-inputs.ts';
import { callRoute } from '../../../test/support/in-memory-http.ts';
import { expectWellFormedInjection } from '../../../test/support/well-formed-injection.ts';
import { cloudWebhookBody } from '../../../test/whatsapp/fuzz-cloud.ts';
import { createWhatsAppIntake } from '../intake.ts';
import { normaliseWhatsAppEvent } from '../normalise.ts';
import type { CloudDeliveryStatus } from './statuses.ts';
import { createCloudRoutes } from './cloud-routes.ts';
import { hubSignature } from './signature.ts';

useFuzzGuards();

const SECRET = 'fuzz-app-secret';
const quiet = { debug: () => undefined, info: () => undefined, warn: () => undefined };

function postRoute(enqueued: Injection[], windows: Date[], statuses: CloudDeliveryStatus[]) {
  const intake = createWhatsAppIntake({
    normalise: (event) => normaliseWhatsAppEvent(event, { people: FUZZ_PEOPLE, tenantId: 'tenant-1' }),
    enqueue: (injection) => {
      enqueued.push(injection);
      return Promise.resolve({ duplicate: false });
    },
    windows: {
      noteInbound: (_contact, at) => {
        windows.push(at);
        return Promise.resolve();
      },
    },
    logger: quiet,
  });
  const routes = createCloudRoutes({
    appSecret: SECRET,
    verifyToken: 'verify',
    phoneNumberId: '1000',
    intake,
    statuses: {
      rememberTag: () => Promise.resolve(),
      record: (status) => {
        statuses.push(status);
        return Promise.resolve(true);
      },
    },
    media: {
      client: {
        mediaInfo: (id) => (id.length % 2 === 0 ? Promise.resolve({ url: 'https://lookaside.fbsbx.com/m', mimeType: 'image/jpeg', fileSize: 3 }) : Promise.reject(new Error('gone'))),
        download: () => Promise.resolve(Buffer.from('abc')),
      },
      artifacts: { put: (artifact) => Promise.resolve({ artifactId: 'art-1', name: artifact.name, mimeType: artifact.mimeType, sizeBytes: artifact.bytes.length, sha256: '0'.repeat(64), createdAt: '2026-01-01T00:00:00.000Z' }) },
    },
    logger: quiet,
    clock: () => new Date('2026-03-01T12:00:00.000Z'),
  });
  const post = routes.find((route) => route.method === 'POST');
  if (post === undefined) throw new Error('no POST route');
  return post;
}

const body = fc.oneof({ weight: 5, arbitrary: cloudWebhookBody.map(jsonText) }, nastyString);

describe('the Cloud API webhook route (properties)', () => {
  it('answers every signed body 200, 400 or 413 with healthy stores, takes only well-formed injections and valid times, and nothing unsigned (403, or 413 for a body over the cap)', async () => {
    await fc.assert(
      fc.asyncProperty(body, fc.constantFrom('signed', 'signed', 'signed', 'forged', 'none'), async (raw, how) => {
        const enqueued: Injection[] = [];
        const windows: Date[] = [];
        const statuses: CloudDeliveryStatus[] = [];
        const signature = hubSignature(Buffer.from(raw, 'utf8'), how === 'forged' ? 'another-secret' : SECRET);
        const answer = await callRoute(postRoute(enqueued, windows, statuses), { body: raw, headers: how === 'none' ? {} : { 'x-hub-signature-256': signature }, url: '/webhooks/whatsapp' });
        if (how === 'signed') expect([200, 400, 413]).toContain(answer.status);
        else {
          expect([403, 413]).toContain(answer.status);
          expect(enqueued).toEqual([]);
        }
        for (const injection of enqueued) expectWellFormedInjection(injection, raw);
        for (const at of windows) expect(Number.isFinite(at.getTime())).toBe(true);
        for (const status of statuses) expect(Number.isFinite(Date.parse(status.at))).toBe(true);
      }),
      { numRuns: 400 },
    );
  });
});
