/**
 * A message's echo is in its conversation's stream before its answer, also when the model answers
 * at once: in a process that runs turns inline, the turn's begin leaves with the message's accept,
 * and the turn can reach its first delivery before the message route sends the echo.
 */
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWebEventStore } from '../../channels/web/stream/event-store.ts';
import { loadEnv } from '../../src/config/env.ts';
import type { ModelClient } from '../../src/runtime/model/model-types.ts';
import { startService, type Service } from '../../service/create-service.ts';
import { useRedis, uniquePrefix } from '../support/redis.ts';
import { waitFor } from '../support/wait-for.ts';
import { createWebClient } from './web-client.ts';

const appDir = fileURLToPath(new URL('../fixtures/followup-app/', import.meta.url));
const redisUrl = useRedis();
const prefix = uniquePrefix('echo-order');

/** Answers every call in the same turn of the event loop, echoing the person's last message. */
const instantModel: ModelClient = {
  create(request) {
    const text = request.messages.at(-1)?.content.flatMap((block) => (block.type === 'text' ? [block.text] : [])).at(-1) ?? '';
    return Promise.resolve({
      id: 'msg_instant', model: request.model, stopReason: 'tool_use',
      usage: { inputTokens: 1, outputTokens: 1, cacheReadInputTokens: 0, cacheCreationInputTokens: 0 },
      content: [{ type: 'tool_use', id: `toolu_${text}`, name: 'respond', input: { parts: [{ text: `re ${text}`, metadata: { partType: 'response' } }], turnState: 'complete' } }],
    });
  },
};

let service: Service;
let redis: Redis;

beforeAll(async () => {
  const env = loadEnv({ SWITCHBOARD_APP: appDir, LOG_LEVEL: 'silent', REDIS_URL: redisUrl() }, { appDir });
  service = await startService({ env, role: 'all', redisUrl: redisUrl(), logger: pino({ level: 'silent' }), prefix, port: 0, model: instantModel });
  redis = new Redis(redisUrl());
});

afterAll(async () => {
  await redis.quit();
  await service.close();
});

describe('the web chat stream', () => {
  it('has each message before its answer, for many conversations posting at once', async () => {
    const store = createWebEventStore({ redis, keyPrefix: prefix });
    const conversations = Array.from({ length: 12 }, (_, index) => `echo-${String(index)}`);
    const rounds = 4;
    await Promise.all(conversations.map(async (conversation) => {
      const browser = createWebClient(service.url ?? '');
      await browser.session();
      for (let round = 0; round < rounds; round += 1) {
        const text = `${conversation}-m${String(round)}`;
        const posted = await browser.post(`/api/chat/${conversation}/messages`, { text, id: text });
        expect(posted.status).toBe(202);
        // The next message once this one's answer is in: each turn starts from a fresh message.
        await waitFor(async () => (await store.readAfter(conversation, '0', 100)).some(({ event }) => event.type === 'part' && event.part.text === `re ${text}`), `the answer to ${text}`, 10_000, 5);
      }
    }));
    for (const conversation of conversations) {
      const order = (await store.readAfter(conversation, '0', 100)).flatMap(({ event }) => {
        if (event.type === 'message') return [`asked ${event.text}`];
        if (event.type === 'part' && event.part.metadata.partType === 'response') return [`answered ${(event.part.text ?? '').slice('re '.length)}`];
        return [];
      });
      const expected = Array.from({ length: rounds }, (_, round) => [`asked ${conversation}-m${String(round)}`, `answered ${conversation}-m${String(round)}`]).flat();
      expect(order).toEqual(expected);
    }
    await store.close();
  });
});
