/**
 * `switchboard doctor`'s Cloud API check against the fake Graph API: ok with the right token and
 * number id (naming the display number, verified name and quality rating), a clear failure with a
 * wrong or expired token (Meta's 190) or an unknown number id, the token never quoted, and only
 * reads made.
 */
import { createServer } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cloudDoctor } from '../../channels/whatsapp/cloud/cloud-doctor.ts';
import type { WhatsAppCloudEnv } from '../../src/config/env-types.ts';
import { startFakeGraph } from '../fakes/fake-graph.ts';
import type { FakeGraph } from '../fakes/fake-graph-types.ts';
import { readWhatsAppFixture } from '../fakes/whatsapp-webhook.ts';
import { listenOnLoopback } from '../support/loopback-server.ts';

const TOKEN = 'EAAG-doctor-token-9Qz';
let graph: FakeGraph;

beforeAll(async () => {
  graph = await startFakeGraph({ token: TOKEN });
});

afterAll(async () => {
  await graph.close();
});

function env(overrides: Partial<WhatsAppCloudEnv> = {}): WhatsAppCloudEnv {
  return { mode: 'cloud', token: TOKEN, phoneNumberId: graph.phoneNumberId, appSecret: 'app-secret', verifyToken: 'verify', apiUrl: graph.apiUrl, ...overrides };
}

describe('cloud doctor', () => {
  it('passes with the right token and number id, naming the number', async () => {
    graph.reset();
    expect(await cloudDoctor(env())).toEqual([{
      name: 'whatsapp cloud',
      status: 'ok',
      detail: `+1 555-078-3881 (Switchboard Travel), number id ${graph.phoneNumberId}, quality GREEN; point the app's webhook at /webhooks/whatsapp`,
    }]);
    expect(graph.requests()).toEqual([{
      method: 'GET', path: `/v26.0/${graph.phoneNumberId}?fields=display_phone_number,verified_name,quality_rating`, status: 200, authorized: true,
    }]);
    expect(graph.sends()).toEqual([]);
  });

  it('fails with a wrong token, naming Meta\'s 190 and what to do, never quoting a token', async () => {
    const wrong = 'EAAG-wrong-token-4Lk';
    const [check] = await cloudDoctor(env({ token: wrong }));
    expect(check?.status).toBe('fail');
    expect(check?.detail).toContain('(Graph 190)');
    expect(check?.detail).toContain('the token is expired or invalid; create a new system-user token and set WHATSAPP_TOKEN');
    expect(check?.detail).not.toContain(wrong);
    expect(check?.detail).not.toContain(TOKEN);
  });

  it('fails for an expired token with Meta\'s words (through an injected fetch)', async () => {
    const expired = readWhatsAppFixture('graph-error-190');
    const fetchExpired: typeof fetch = () => Promise.resolve(new Response(JSON.stringify(expired), { status: 401, headers: { 'content-type': 'application/json' } }));
    const [check] = await cloudDoctor(env(), fetchExpired);
    expect(check?.status).toBe('fail');
    expect(check?.detail).toContain('(Graph 190/463): Error validating access token: Session has expired');
  });

  it('fails for a number id that is not the business number\'s', async () => {
    const [check] = await cloudDoctor(env({ phoneNumberId: '123456789012345' }));
    expect(check?.status).toBe('fail');
    expect(check?.detail).toContain('check WHATSAPP_PHONE_NUMBER_ID');
  });

  it('fails when the API cannot be reached', async () => {
    const closed = await listenOnLoopback(createServer());
    await closed.close();
    const [check] = await cloudDoctor(env({ apiUrl: `${closed.origin}/v26.0` }));
    expect(check?.status).toBe('fail');
    expect(check?.detail).toContain('could not be reached to read the phone number: fetch failed (ECONNREFUSED)');
  });
});
