/**
 * A web chat session this process already knows is not read from Redis again for a message: the
 * message's accept checks, in its own script, that the session is still there. Revoked elsewhere
 * (another process signed the browser in again, or an operator deleted it), the next message is
 * answered 401 and nothing of it is stored, echoed or answered.
 */
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWebEventStore } from '../../channels/web/stream/event-store.ts';
import { loadEnv } from '../../src/config/env.ts';
import type { ModelClient } from '../../src/runtime/model/model-types.ts';
import { sessionIdOf } from '../../src/runtime/session/session-id.ts';
import { startService, type Service } from '../../service/create-service.ts';
import { useRedis, uniquePrefix } from '../support/redis.ts';
import { waitFor } from '../support/wait-for.ts';
import { createWebClient } from './web-client.ts';

const appDir = fileURLToPath(new URL('../fixtures/followup-app/', import.meta.url));
const redisUrl = useRedis();
const prefix = uniquePrefix('revoked-session');

/** The texts the model was asked about, in order. */
const asked: string[] = [];

const model: ModelClient = {
  create(request) {
    const text = request.messages.at(-1)?.content.flatMap((block) => (block.type === 'text' ? [block.text] : [])).at(-1) ?? '';
    asked.push(text);
    return Promise.resolve({
      id: 'msg_revoked', model: request.model, stopReason: 'tool_use',
      usage: { inputTokens: 1, outputTokens: 1, cacheReadInputTokens: 0, cacheCreationInputTokens: 0 },
      content: [{ type: 'tool_use', id: `toolu_${String(asked.length)}`, name: 'respond', input: { parts: [{ text: `re ${text}`, metadata: { partType: 'response' } }], turnState: 'complete' } }],
    });
  },
};

let service: Service;
let redis: Redis;

beforeAll(async () => {
  const env = loadEnv({ SWITCHBOARD_APP: appDir, LOG_LEVEL: 'silent', REDIS_URL: redisUrl() }, { appDir });
  service = await startService({ env, role: 'all', redisUrl: redisUrl(), logger: pino({ level: 'silent' }), prefix, port: 0, model });
  redis = new Redis(redisUrl());
});

afterAll(async () => {
  await redis.quit();
  await service.close();
});

describe('a web chat session revoked while this process remembers it', () => {
  it('answers the next message 401 and stores, echoes and answers nothing of it', async () => {
    const store = createWebEventStore({ redis, keyPrefix: prefix });
    const browser = createWebClient(service.url ?? '');
    await browser.session();
    const texts = async (): Promise<string[]> => (await store.readAfter('revoked-1', '0', 100)).flatMap(({ event }) => {
      if (event.type === 'message') return [event.text];
      if (event.type === 'part') return [event.part.text ?? ''];
      return [];
    });
    expect((await browser.post('/api/chat/revoked-1/messages', { text: 'first', id: 'r1' })).status).toBe(202);
    await waitFor(async () => (await texts()).includes('re first'), 'the first answer', 10_000, 5);

    const [sid] = (browser.cookie ?? '').slice('sb_session='.length).split('.');
    await redis.del(`${prefix}:web:sid:${sid ?? ''}`);
    const refused = await browser.post('/api/chat/revoked-1/messages', { text: 'second', id: 'r2' });
    expect(refused.status).toBe(401);
    expect(refused.body['error']).toMatchObject({ code: 'http.unauthorized' });

    // A new session of the same page is let in, and its message comes after the first only.
    const again = createWebClient(service.url ?? '');
    await again.session();
    const other = await again.post('/api/chat/revoked-2/messages', { text: 'third', id: 'r3' });
    expect(other.status).toBe(202);
    await waitFor(() => asked.includes('third'), 'the third message reaching the model', 10_000, 5);
    expect(asked).toEqual(['first', 'third']);
    expect(await texts()).toEqual(['first', 're first']);
    // The refused message's id was not even remembered: sent again on a valid session, it is taken.
    expect([await redis.exists(`${prefix}:inj:web:revoked-1:r1`), await redis.exists(`${prefix}:inj:web:revoked-1:r2`)]).toEqual([1, 0]);
    expect(await redis.llen(`${prefix}:s:${sessionIdOf('default', 'web', 'revoked-1')}:pending`)).toBe(0);
    await store.close();
  });
});
