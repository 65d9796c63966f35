/**
 * The fake Graph API itself, spoken to with plain `fetch` as Meta's documentation shows: the bearer
 * token, Meta's answer to a send, the 24-hour window (free-form refused with 131047 outside it,
 * templates accepted), Meta's checks of parameters, multipart uploads, and scripted failures.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFakeGraph } from './fake-graph.ts';
import type { FakeGraph } from './fake-graph-types.ts';

const TOKEN = 'EAAG-fake-graph-test';
let graph: FakeGraph;
let now = new Date('2026-03-01T12:00:00Z');

beforeAll(async () => {
  graph = await startFakeGraph({ token: TOKEN, clock: () => now });
});

afterAll(async () => {
  await graph.close();
});

beforeEach(() => {
  graph.reset();
  now = new Date('2026-03-01T12:00:00Z');
});

async function send(body: unknown, token = TOKEN): Promise<{ status: number; json: Record<string, unknown> }> {
  const response = await fetch(`${graph.apiUrl}/${graph.phoneNumberId}/messages`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, json: (await response.json()) as Record<string, unknown> };
}

const text = (to: string, body = 'Hi') => ({ messaging_product: 'whatsapp', to, type: 'text', text: { body } });
const errorCode = (json: Record<string, unknown>): unknown => (json['error'] as Record<string, unknown> | undefined)?.['code'];

describe('fake Graph API', () => {
  it('answers a send inside the window like Meta, and records it', async () => {
    graph.contactWrote('+16505551234');
    const { status, json } = await send(text('16505551234'));
    expect(status).toBe(200);
    expect(json).toEqual({ messaging_product: 'whatsapp', contacts: [{ input: '16505551234', wa_id: '16505551234' }], messages: [{ id: expect.stringMatching(/^wamid\./) as unknown }] });
    expect(graph.sends('+16505551234')).toHaveLength(1);
  });

  it('refuses free-form messages 24 hours after the contact wrote (131047), but takes templates', async () => {
    graph.contactWrote('16505551234', new Date(now.getTime() - 23 * 3_600_000));
    expect((await send(text('16505551234'))).status).toBe(200);
    now = new Date(now.getTime() + 2 * 3_600_000);
    const refused = await send(text('16505551234'));
    expect(refused.status).toBe(400);
    expect(errorCode(refused.json)).toBe(131047);
    const template = await send({ messaging_product: 'whatsapp', to: '16505551234', type: 'template', template: { name: 'hello_world', language: { code: 'en_US' } } });
    expect(template.status).toBe(200);
    expect(template.json['messages']).toEqual([{ id: expect.stringMatching(/^wamid\./) as unknown, message_status: 'accepted' }]);
    expect(errorCode((await send(text('447700900999'))).json)).toBe(131047);
  });

  it('refuses a wrong token (401 / 190) without recording a send', async () => {
    const { status, json } = await send(text('16505551234'), 'EAAG-wrong');
    expect(status).toBe(401);
    expect(errorCode(json)).toBe(190);
    expect(graph.requests()).toEqual([expect.objectContaining({ authorized: false, status: 401 })]);
  });

  it('checks parameters as Meta does', async () => {
    graph.contactWrote('16505551234');
    expect(errorCode((await send({ to: '16505551234', type: 'text', text: { body: 'x' } })).json)).toBe(100);
    expect(errorCode((await send(text('16505551234', 'x'.repeat(4097)))).json)).toBe(131009);
    const fourButtons = { type: 'button', body: { text: 'Pick' }, action: { buttons: ['a', 'b', 'c', 'd'].map((id) => ({ type: 'reply', reply: { id, title: id } })) } };
    expect(errorCode((await send({ messaging_product: 'whatsapp', to: '16505551234', type: 'interactive', interactive: fourButtons })).json)).toBe(131009);
    const newline = { name: 'n', language: { code: 'en' }, components: [{ type: 'body', parameters: [{ type: 'text', text: 'a\nb' }] }] };
    expect(errorCode((await send({ messaging_product: 'whatsapp', to: '16505551234', type: 'template', template: newline })).json)).toBe(100);
    expect(graph.sends()).toEqual([]);
  });

  it('takes a multipart upload and serves it back through the media URL', async () => {
    const form = new FormData();
    form.append('messaging_product', 'whatsapp');
    form.append('type', 'application/pdf');
    form.append('file', new Blob([Buffer.from('%PDF-1.7 bytes\r\n--x')], { type: 'application/pdf' }), 'ticket.pdf');
    const auth = { authorization: `Bearer ${TOKEN}` };
    const uploaded = (await (await fetch(`${graph.apiUrl}/${graph.phoneNumberId}/media`, { method: 'POST', headers: auth, body: form })).json()) as { id: string };
    expect(graph.uploads()).toMatchObject([{ mediaId: uploaded.id, name: 'ticket.pdf', mimeType: 'application/pdf', typeField: 'application/pdf' }]);
    const info = (await (await fetch(`${graph.apiUrl}/${uploaded.id}`, { headers: auth })).json()) as { url: string; file_size: number };
    const bytes = Buffer.from(await (await fetch(info.url, { headers: auth })).arrayBuffer());
    expect(bytes.toString()).toBe('%PDF-1.7 bytes\r\n--x');
    expect(info.file_size).toBe(bytes.length);
  });

  it('answers scripted failures to the next sends, then accepts again', async () => {
    graph.contactWrote('16505551234');
    graph.failNext(1, 429);
    graph.failNext(1, { status: 400, code: 131056, message: '(#131056) Pair rate limit hit', retryAfterSeconds: 9 });
    expect(errorCode((await send(text('16505551234'))).json)).toBe(130429);
    expect(errorCode((await send(text('16505551234'))).json)).toBe(131056);
    expect((await send(text('16505551234'))).status).toBe(200);
    expect(graph.attempts().map((attempt) => [attempt.status, attempt.code])).toEqual([[429, 130429], [400, 131056], [200, undefined]]);
  });
});
