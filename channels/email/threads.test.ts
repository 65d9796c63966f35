import { Redis } from 'ioredis';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { useKeyPrefix, useRedis } from '../../test/support/redis.ts';
import { createEmailStore, type EmailStore } from './email-store.ts';
import { resolveConversation } from './threads.ts';

const redisUrl = useRedis();
const prefix = useKeyPrefix(redisUrl);
let redis: Redis;
let store: EmailStore;

beforeEach(() => {
  redis = new Redis(redisUrl());
  store = createEmailStore({ redis, prefix: `${prefix()}:email` });
});
afterEach(async () => { await redis.quit(); });

describe('conversations of email threads', () => {
  it('keeps a reply in the conversation its thread started, even when the client kept only In-Reply-To', async () => {
    const first = await resolveConversation(store, 'grace@example.com', { messageId: '<root@mail.example.com>' });
    expect(first).toBe('grace@example.com <root@mail.example.com>');
    await store.rememberThread('<sb.d.answer@bot.example>', first);
    expect(await resolveConversation(store, 'grace@example.com', { messageId: '<r1@x>', inReplyTo: '<sb.d.answer@bot.example>', references: '<root@mail.example.com> <sb.d.answer@bot.example>' })).toBe(first);
    expect(await resolveConversation(store, 'grace@example.com', { messageId: '<r2@x>', inReplyTo: '<sb.d.answer@bot.example>' })).toBe(first);
    expect(await resolveConversation(store, 'grace@example.com', { messageId: '<r3@x>', inReplyTo: '<r2@x>' })).toBe(first);
  });

  it('starts a new conversation for a new mail from the same sender', async () => {
    const a = await resolveConversation(store, 'grace@example.com', { messageId: '<a@x>' });
    const b = await resolveConversation(store, 'grace@example.com', { messageId: '<b@x>' });
    expect(a).not.toBe(b);
  });

  it('never joins another sender to a conversation by naming its Message-IDs', async () => {
    const graces = await resolveConversation(store, 'grace@example.com', { messageId: '<g@x>' });
    const intruder = await resolveConversation(store, 'mallory@evil.test', { messageId: '<m@x>', inReplyTo: '<g@x>', references: '<g@x>' });
    expect(intruder).not.toBe(graces);
    expect(intruder.startsWith('mallory@evil.test ')).toBe(true);
  });

  it('continues a proactive mail\'s conversation (keyed by the address) when the person replies', async () => {
    await store.rememberThread('<sb.d.summary@bot.example>', 'grace@example.com');
    expect(await resolveConversation(store, 'grace@example.com', { messageId: '<r@x>', inReplyTo: '<sb.d.summary@bot.example>', references: '<sb.d.summary@bot.example>' })).toBe('grace@example.com');
  });

  it('caps mails per sender per window, and remembers taken Message-IDs once', async () => {
    const now = 1_700_000_000_000;
    const results = [];
    for (let index = 0; index < 4; index += 1) results.push(await store.underRateCap('grace@example.com', 3, 60_000, now));
    expect(results).toEqual([true, true, true, false]);
    expect(await store.underRateCap('ada@example.com', 3, 60_000, now)).toBe(true);
    expect(await store.markSeen('<m@x>')).toBe(true);
    expect(await store.markSeen('<m@x>')).toBe(false);
    expect(await store.seen('<m@x>')).toBe(true);
  });
});
