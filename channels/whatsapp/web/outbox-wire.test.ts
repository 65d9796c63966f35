import { describe, expect, it } from 'vitest';
import { parseOutboxReply, parseOutboxRequest } from './outbox-wire.ts';

describe('the outbox wire format', () => {
  it('reads requests and answers, and nothing malformed', () => {
    const request = { requestId: 'r1', idempotencyKey: 'k1', message: { kind: 'text', to: '+447700900123', text: 'Hi' }, deadline: 1 };
    expect(parseOutboxRequest(JSON.stringify(request))).toEqual(request);
    expect(parseOutboxRequest(JSON.stringify({ ...request, message: 'Hi' }))).toBeUndefined();
    expect(parseOutboxRequest(JSON.stringify({ ...request, deadline: 'soon' }))).toBeUndefined();
    expect(parseOutboxRequest('null')).toBeUndefined();

    expect(parseOutboxReply('{"ok":true,"id":"true_1@c.us_X"}')).toEqual({ ok: true, id: 'true_1@c.us_X' });
    expect(parseOutboxReply('{"ok":false,"permanent":true,"message":"no","providerCode":"not-on-whatsapp"}')).toMatchObject({ ok: false, permanent: true });
    expect(parseOutboxReply('{"ok":false,"message":"no"}')).toBeUndefined();
    expect(parseOutboxReply('{"ok":true}')).toBeUndefined();
  });
});
