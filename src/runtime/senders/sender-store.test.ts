import { Redis } from 'ioredis';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { useKeyPrefix, useRedis } from '../../../test/support/redis.ts';
import type { Injection } from '../injection.ts';
import { newPairingCode, normalizePairingCode } from './pairing-code.ts';
import { createSenderStore, type AdmitRequest, type SenderStoreOptions } from './sender-store.ts';

const redisUrl = useRedis();
const prefix = useKeyPrefix(redisUrl);
let redis: Redis;
let now: Date;

beforeEach(() => {
  redis = new Redis(redisUrl());
  now = new Date('2026-12-01T09:00:00Z');
});
afterEach(async () => {
  await redis.quit();
});

function store(options: Partial<SenderStoreOptions> = {}) {
  return createSenderStore({ redis, prefix: prefix(), clock: () => now, ...options });
}

let counter = 0;
function message(from: string, channel = 'sms'): Injection {
  counter += 1;
  return {
    id: `${channel}:m${String(counter)}`, kind: 'message', channel, tenantId: 'default', conversationKey: from,
    sender: { id: from, verified: true }, text: `hello ${String(counter)}`, replyTo: { channel, address: from }, receivedAt: now.toISOString(),
  };
}

const pairing = (injection: Injection, listed = false): AdmitRequest => ({ mode: 'pairing', listed, refusal: 'daily', injection });

describe('pairing codes', () => {
  it('are two groups of four unambiguous characters, typed in any case and spacing', () => {
    const code = newPairingCode();
    expect(code).toMatch(/^[ACDEFGHJKMNPQRTUVWXY34679]{4}-[ACDEFGHJKMNPQRTUVWXY34679]{4}$/);
    expect(normalizePairingCode(code.toLowerCase().replace('-', ' '))).toBe(code);
    expect(normalizePairingCode('K7QX3MAO')).toBeUndefined();
    expect(normalizePairingCode('K7QX')).toBeUndefined();
  });
});

describe('the sender store', () => {
  it('holds an unknown sender\'s messages, issues one code, and lets them in once the code is approved', async () => {
    const senders = store();
    const first = message('+15550100001');
    const issued = await senders.admit(pairing(first));
    expect(issued).toMatchObject({ outcome: 'pairing-code-sent', kept: true });
    const code = issued.outcome === 'pairing-code-sent' ? issued.code : '';
    expect(await senders.admit(pairing(message('+15550100001')))).toEqual({ outcome: 'held', kept: true, why: 'code-pending' });
    expect(await senders.admit(pairing(first))).toEqual({ outcome: 'duplicate' });

    const listed = await senders.list();
    expect(listed.pending).toEqual([{ code, channel: 'sms', address: '+15550100001', issuedAt: now.toISOString(), expiresAt: '2026-12-01T10:00:00.000Z', held: 2 }]);

    expect(await senders.approve(code.toLowerCase(), 'cli ops')).toEqual({ status: 'approved', channel: 'sms', address: '+15550100001', code });
    expect((await senders.held('sms', '+15550100001')).map((held) => held.text)).toEqual([first.text, 'hello ' + String(counter)]);
    await senders.released('sms', '+15550100001', 2);
    expect(await senders.held('sms', '+15550100001')).toEqual([]);
    expect(await senders.admit(pairing(message('+15550100001')))).toEqual({ outcome: 'allowed', heldWaiting: 0 });
    expect((await senders.list()).known).toEqual([{ channel: 'sms', address: '+15550100001', state: 'approved', by: 'cli ops', at: now.toISOString(), code }]);
    // A code is used once.
    expect(await senders.approve(code, 'cli ops')).toMatchObject({ status: 'unknown' });
  });

  it('gives a sender at most three codes a day, a new one only after the last expired', async () => {
    const senders = store({ codeTtlMs: 60_000 });
    const sent: string[] = [];
    for (let minute = 0; minute < 10; minute += 1) {
      now = new Date(Date.parse('2026-12-01T09:00:00Z') + minute * 61_000);
      const result = await senders.admit(pairing(message('+15550100002')));
      if (result.outcome === 'pairing-code-sent') sent.push(result.code);
      else expect(result.outcome).toBe('held');
    }
    expect(sent).toHaveLength(3);
    now = new Date('2026-12-02T09:00:00Z');
    expect((await senders.admit(pairing(message('+15550100002')))).outcome).toBe('pairing-code-sent');
  });

  it('lets known people, allowed entries and open channels in without a code', async () => {
    const senders = store();
    expect(await senders.admit(pairing(message('+15550100003'), true))).toEqual({ outcome: 'allowed', heldWaiting: 0 });
    expect(await senders.admit({ mode: 'open', listed: false, refusal: 'daily', injection: message('+15550100003') })).toEqual({ outcome: 'allowed', heldWaiting: 0 });
    expect((await senders.list()).pending).toEqual([]);
  });

  it('tells a sender let in by the policy how many of their messages were held before (added to people, or the channel opened)', async () => {
    const senders = store();
    expect((await senders.admit(pairing(message('+15550100013')))).outcome).toBe('pairing-code-sent');
    expect((await senders.admit(pairing(message('+15550100013')))).outcome).toBe('held');
    expect(await senders.admit(pairing(message('+15550100013'), true))).toEqual({ outcome: 'allowed', heldWaiting: 2 });
    expect(await senders.admit({ mode: 'open', listed: false, refusal: 'daily', injection: message('+15550100013') })).toEqual({ outcome: 'allowed', heldWaiting: 2 });
  });

  it('refuses unlisted senders of an allowlist once a day when told to, and never otherwise', async () => {
    const senders = store();
    const allowlist = (from: string, refusal: 'daily' | 'never'): AdmitRequest => ({ mode: 'allowlist', listed: false, refusal, injection: message(from) });
    expect(await senders.admit(allowlist('+15550100004', 'daily'))).toEqual({ outcome: 'refused', notify: true });
    expect(await senders.admit(allowlist('+15550100004', 'daily'))).toEqual({ outcome: 'refused', notify: false });
    expect(await senders.admit(allowlist('+15550100005', 'never'))).toEqual({ outcome: 'refused', notify: false });
    now = new Date('2026-12-02T09:00:00Z');
    expect(await senders.admit(allowlist('+15550100004', 'daily'))).toEqual({ outcome: 'refused', notify: true });
  });

  it('blocks a sender whatever the mode, dropping their code and held messages; revoking forgets them', async () => {
    const senders = store();
    const issued = await senders.admit(pairing(message('+15550100006')));
    const code = issued.outcome === 'pairing-code-sent' ? issued.code : '';
    expect(await senders.block('sms', '+15550100006', 'admin page')).toBe(1);
    expect(await senders.admit({ mode: 'open', listed: true, refusal: 'daily', injection: message('+15550100006') })).toEqual({ outcome: 'blocked' });
    expect(await senders.approve(code, 'admin page')).toMatchObject({ status: 'unknown' });
    expect((await senders.list()).known).toMatchObject([{ address: '+15550100006', state: 'blocked', by: 'admin page' }]);

    expect(await senders.revoke('sms', '+15550100006')).toBe(true);
    expect(await senders.revoke('sms', '+15550100006')).toBe(false);
    expect((await senders.admit(pairing(message('+15550100006')))).outcome).toBe('pairing-code-sent');
  });

  it('lets an operator approve an address without a code, unless it is blocked', async () => {
    const senders = store();
    expect(await senders.allow('whatsapp', '+447700900123', 'cli ops')).toBe('approved');
    expect(await senders.admit({ mode: 'allowlist', listed: false, refusal: 'daily', injection: message('+447700900123', 'whatsapp') })).toEqual({ outcome: 'allowed', heldWaiting: 0 });
    await senders.block('whatsapp', '+447700900124', 'cli ops');
    expect(await senders.allow('whatsapp', '+447700900124', 'cli ops')).toBe('blocked');
    expect((await senders.list()).known.map((entry) => `${entry.state} ${entry.address} ${entry.by}`)).toEqual(['approved +447700900123 cli ops', 'blocked +447700900124 cli ops']);
  });

  it('a revoked sender is unknown again: their next message is held, not allowed', async () => {
    const senders = store();
    const issued = await senders.admit(pairing(message('+15550100007')));
    await senders.approve(issued.outcome === 'pairing-code-sent' ? issued.code : '', 'cli ops');
    expect((await senders.admit(pairing(message('+15550100007')))).outcome).toBe('allowed');
    await senders.revoke('sms', '+15550100007');
    expect((await senders.admit(pairing(message('+15550100007')))).outcome).toBe('pairing-code-sent');
    expect(await senders.admit({ mode: 'allowlist', listed: false, refusal: 'never', injection: message('+15550100007') })).toEqual({ outcome: 'refused', notify: false });
  });

  it('bounds guessing: ten wrong codes an hour per approver, then even the right one is refused', async () => {
    const senders = store();
    const issued = await senders.admit(pairing(message('+15550100008')));
    const code = issued.outcome === 'pairing-code-sent' ? issued.code : '';
    const answers = [];
    for (let guess = 0; guess < 10; guess += 1) answers.push(await senders.approve(newPairingCode(), 'cli mallory'));
    expect(answers.map((answer) => answer.status)).toEqual(Array(10).fill('unknown'));
    expect(answers.at(-1)).toEqual({ status: 'unknown', triesLeft: 0 });
    expect(await senders.approve(code, 'cli mallory')).toEqual({ status: 'throttled' });
    // Another operator is not held back, and the code still works for them.
    expect((await senders.approve(code, 'cli ops')).status).toBe('approved');
    expect(await redis.ttl(`${prefix()}:snd:misses:cli mallory`)).toBeGreaterThan(3500);
  });

  it('tries another code when the new one is another sender\'s live code, and gives up after six tries', async () => {
    const codes = ['AAAA-AAAA', 'AAAA-AAAA', 'CCCC-CCCC'];
    const senders = store({ newCode: () => codes.shift() ?? 'AAAA-AAAA' });
    expect(await senders.admit(pairing(message('+15550100010')))).toMatchObject({ outcome: 'pairing-code-sent', code: 'AAAA-AAAA' });
    expect(await senders.admit(pairing(message('+15550100011')))).toMatchObject({ outcome: 'pairing-code-sent', code: 'CCCC-CCCC' });
    // Nothing was held twice by the retry.
    expect(await senders.held('sms', '+15550100011')).toHaveLength(1);
    await expect(senders.admit(pairing(message('+15550100012')))).rejects.toThrow('no free pairing code after 6 tries');
    expect(await senders.held('sms', '+15550100012')).toEqual([]);
  });

  it('holds at most heldPerSender messages, and a code expires with its hour', async () => {
    const senders = store({ heldPerSender: 2 });
    const results = [];
    for (let i = 0; i < 4; i += 1) results.push(await senders.admit(pairing(message('+15550100009'))));
    expect(results.map((result) => ('kept' in result ? result.kept : undefined))).toEqual([true, true, false, false]);
    const code = results[0]?.outcome === 'pairing-code-sent' ? results[0].code : '';
    now = new Date(now.getTime() + 3_600_000);
    expect(await senders.approve(code, 'cli ops')).toMatchObject({ status: 'unknown' });
    expect((await senders.list()).pending).toEqual([]);
    // The next message gets a new code, and the held ones are still there for it.
    expect((await senders.admit(pairing(message('+15550100009')))).outcome).toBe('pairing-code-sent');
    expect(await senders.held('sms', '+15550100009')).toHaveLength(2);
  });
});
