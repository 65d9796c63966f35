/**
 * The service's own API takes JSON bodies only, against a real web process: every route that
 * reads a JSON body (web chat messages, approval decisions, the operator's invites) refuses another
 * content type with 415 `http.unsupported_media_type` before reading it, and accepts
 * `application/json` with or without `charset=utf-8`. (Webhooks keep their providers' content
 * types: their own suites, test/sms, test/slack and test/whatsapp, post form and JSON bodies.)
 */
import { describe, expect, it } from 'vitest';
import { useRedis } from '../support/redis.ts';
import { createWebClient } from '../web/web-client.ts';
import { send, useWebService } from './web-service.ts';

const redisUrl = useRedis();
const web = useWebService({ redisUrl });

const NOT_JSON = ['text/plain', 'text/plain;charset=UTF-8', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/json; charset=iso-8859-1'];

describe('JSON request bodies', () => {
  it('the web chat message route refuses other content types with 415 and enqueues nothing', async () => {
    const browser = createWebClient(web().url);
    for (const contentType of NOT_JSON) {
      const answer = await browser.post('/api/chat/json-only/messages', JSON.stringify({ text: 'hi', id: 'm1' }), { contentType });
      expect(answer.status, contentType).toBe(415);
      expect(answer.body).toMatchObject({ error: { code: 'http.unsupported_media_type', details: { field: 'content-type' } } });
    }
    const accepted = await browser.post('/api/chat/json-only/messages', { text: 'hi', id: 'm1' }, { contentType: 'application/json; charset=utf-8' });
    expect(accepted).toMatchObject({ status: 202, body: { duplicate: false } });
  });

  it('the approval route refuses other content types with 415', async () => {
    const browser = createWebClient(web().url);
    for (const contentType of NOT_JSON) {
      const answer = await browser.post('/api/approvals/appr-1', JSON.stringify({ decision: 'granted' }), { contentType });
      expect(answer.status, contentType).toBe(415);
      expect(answer.body).toMatchObject({ error: { code: 'http.unsupported_media_type' } });
    }
    // As JSON it reaches the decision (an unknown approval).
    expect((await browser.post('/api/approvals/appr-1', { decision: 'granted' })).status).toBe(404);
  });

  it("the operator's invite route refuses other content types with 415", async () => {
    const invite = (contentType: string, body: string): Promise<{ status: number; body: string }> =>
      send(web().port, '/admin/api/invites', { method: 'POST', headers: { 'content-type': contentType }, body });
    for (const contentType of NOT_JSON) {
      const answer = await invite(contentType, 'personId=fin');
      expect(answer.status, contentType).toBe(415);
      expect(JSON.parse(answer.body)).toMatchObject({ error: { code: 'http.unsupported_media_type' } });
    }
    const answer = await invite('application/json', JSON.stringify({ personId: 'fin' }));
    expect(answer.status).toBe(201);
    expect(JSON.parse(answer.body)).toMatchObject({ personId: 'fin' });
  });
});
