import fc from 'fast-check';
import { getExpectedTwilioSignature } from 'twilio/lib/webhooks/webhooks.js';
import { describe, expect, it } from 'vitest';
import type { Injection } from '../../src/runtime/injection.ts';
import { FUZZ_PEOPLE, nastyString, ownEntries, PROTOTYPE_KEYS, useFuzzGuards } from '../../test/support/fuzz-inputs.ts';
import { callRoute } from '../../test/support/in-memory-http.ts';
import { expectWellFormedInjection } from '../../test/support/well-formed-injection.ts';
import { createSmsRoutes } from './inbound.ts';
import { normaliseSmsEvent } from './normalise.ts';

useFuzzGuards();

const check = { authToken: 'fuzz-auth-token', accountSid: `AC${'0'.repeat(32)}`, publicUrl: 'https://bot.example.com' };
const API = 'https://api.twilio.example';

/** Downloads that answer anything: a status, a length header that may lie, and some bytes. */
const download = fc.record({ status: fc.constantFrom(200, 200, 404, 500, 302), length: fc.option(fc.oneof(fc.nat().map(String), nastyString)), bytes: fc.uint8Array({ maxLength: 64 }) });

function routes(enqueued: Injection[], downloads: readonly { status: number; length: string | null; bytes: Uint8Array }[]) {
  let next = 0;
  return createSmsRoutes({
    check,
    ourNumber: '+15005550006',
    store: { optOut: () => Promise.resolve(), optIn: () => Promise.resolve(), isOptedOut: () => Promise.resolve(false), recordStatus: () => Promise.resolve(true), status: () => Promise.resolve(undefined) },
    media: {
      accountSid: check.accountSid,
      authToken: check.authToken,
      apiUrl: API,
      maxBytes: 32,
      artifacts: { put: (artifact) => Promise.resolve({ artifactId: 'art-1', name: artifact.name, mimeType: artifact.mimeType, sizeBytes: artifact.bytes.length, sha256: '0'.repeat(64), createdAt: '2026-01-01T00:00:00.000Z' }) },
      fetch: () => {
        const answer = downloads[next++ % Math.max(1, downloads.length)] ?? { status: 404, length: null, bytes: new Uint8Array() };
        return Promise.resolve(new Response(answer.status === 302 ? null : answer.bytes, { status: answer.status, headers: answer.length === null ? {} : { 'content-length': answer.length.replace(/[^\x20-\x7e]/g, '') } }));
      },
    },
    normalise: (event) => normaliseSmsEvent(event, { people: FUZZ_PEOPLE, tenantId: 'tenant-1' }),
    enqueue: (injection) => {
      enqueued.push(injection);
      return Promise.resolve();
    },
    helpText: 'Help!',
    logger: { info: () => undefined, warn: () => undefined },
    clock: () => new Date('2026-03-01T12:00:00.000Z'),
  });
}

const paramValue = fc.oneof(fc.string(), nastyString.map((text) => text.slice(0, 500)));
/** Webhook parameters: an inbound message's (each field sometimes odd), plus random and prototype-named extras. */
const params = fc
  .record({
    AccountSid: fc.oneof({ weight: 5, arbitrary: fc.constant(check.accountSid) }, paramValue),
    MessageSid: fc.oneof({ weight: 3, arbitrary: fc.stringMatching(/^(SM|MM)[0-9a-f]{32}$/) }, paramValue),
    From: fc.oneof({ weight: 3, arbitrary: fc.constantFrom('+447700900123', 'whatsapp:+447700900123', '+15551234567') }, paramValue),
    To: fc.oneof({ weight: 3, arbitrary: fc.constantFrom('+15005550006', 'whatsapp:+15005550006') }, paramValue),
    Body: fc.oneof(paramValue, fc.constantFrom('STOP', ' yes ', 'help', 'APPROVE K7QX3M')),
    NumMedia: fc.oneof(fc.constantFrom('0', '1', '2', '10', '11', '-1', '1e9', 'NaN', 'Infinity', '2.5'), paramValue),
    MediaUrl0: fc.oneof(fc.constant(`${API}/Media/ME1`), paramValue),
    MediaContentType0: fc.oneof(fc.constantFrom('image/jpeg', 'image/', '/', 'text/plain; charset=x', 'a/b/c'), paramValue),
    MediaUrl1: fc.oneof(fc.constant(`${API}/Media/ME2`), fc.constant('https://evil.example/x')),
    MessageStatus: fc.constantFrom('delivered', 'failed', 'undelivered'),
    ErrorCode: fc.constantFrom('21610', '30003', ''),
    extra: fc.array(fc.tuple(fc.oneof(fc.constantFrom(...PROTOTYPE_KEYS), fc.string({ maxLength: 8 })), paramValue), { maxLength: 3 }),
  }, { requiredKeys: ['AccountSid', 'extra'] })
  .map(({ extra, ...known }) => ownEntries([...Object.entries(known), ...extra.filter(([key]) => !Object.hasOwn(known, key))]) as Record<string, string>);

/** How the request comes: signed for its URL (the usual), forged, unsigned, or to an odd request target. */
const signing = fc.constantFrom('signed', 'signed', 'signed', 'forged', 'none');
const target = fc.oneof(
  { weight: 5, arbitrary: fc.constant((pattern: string) => pattern) },
  fc.constantFrom('?x=1', "?q='a b'", '/../x', '%zz', '#f').map((suffix) => (pattern: string) => `${pattern}${suffix}`),
  // The absolute form of a request target (`POST http://host/path HTTP/1.1`), which Node passes on as `req.url`.
  fc.constantFrom('http://evil.example', 'https://bot.example.com:99999', 'http://[::1').map((origin) => (pattern: string) => `${origin}${pattern}`),
);

describe('the Twilio webhook routes (properties)', () => {
  it('answer every request, enqueue only well-formed injections, and nothing for a request not signed for its URL', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(0, 1), params, signing, target, fc.array(download, { maxLength: 3 }), async (which, fields, how, targetOf, downloads) => {
        const enqueued: Injection[] = [];
        const route = routes(enqueued, downloads)[which];
        if (route === undefined) return;
        const path = targetOf(route.pattern);
        const body = new URLSearchParams(Object.entries(fields)).toString();
        const signature = getExpectedTwilioSignature(check.authToken, `${check.publicUrl}${path}`, Object.fromEntries(new URLSearchParams(body)));
        const headers = how === 'none' ? {} : { 'x-twilio-signature': how === 'signed' ? signature : `${signature.slice(1)}A`, 'i-twilio-idempotency-token': 'token-1' };
        const answer = await callRoute(route, { body, headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers }, url: path });
        // 413: a body over the 64 KiB cap, read (and refused) before its signature.
        expect([200, 400, 403, 413]).toContain(answer.status);
        if (how !== 'signed') expect([403, 413]).toContain(answer.status);
        for (const injection of enqueued) expectWellFormedInjection(injection, fields);
        if (enqueued.length > 0) expect(answer.status).toBe(200);
      }),
      { numRuns: 1000 },
    );
  });
});
