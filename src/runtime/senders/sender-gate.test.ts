import { Redis } from 'ioredis';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { useKeyPrefix, useRedis } from '../../../test/support/redis.ts';
import type { SendersConfig } from '../app/app-types.ts';
import type { Injection, Sender } from '../injection.ts';
import { approvePairing } from './release-held.ts';
import { createSenderGate, type SenderOutcomeEvent } from './sender-gate.ts';
import { senderPolicies } from './sender-policy.ts';
import { createSenderStore, type SenderStore } from './sender-store.ts';

const redisUrl = useRedis();
const prefix = useKeyPrefix(redisUrl);
let redis: Redis;
let store: SenderStore;
let notices: { address: string; text: string; key: string }[];
let accepted: Injection[];
let outcomes: SenderOutcomeEvent[];

const settings = (overrides: Partial<Record<string, SendersConfig>> = {}): Record<'web' | 'email' | 'sms' | 'slack' | 'whatsapp', SendersConfig> => ({
  web: { allow: [], refusal: 'daily' },
  email: { allow: [], refusal: 'daily' },
  sms: { allow: [], refusal: 'daily' },
  slack: { allow: [], refusal: 'daily' },
  whatsapp: { allow: [], refusal: 'daily' },
  ...overrides,
});

function gate(overrides: Partial<Record<string, SendersConfig>> = {}) {
  return createSenderGate({
    policies: senderPolicies(settings(overrides)),
    store,
    notify: (destination, text, key) => { notices.push({ address: destination.address, text, key }); return Promise.resolve(); },
    accept: (injection) => { accepted.push(injection); return Promise.resolve(); },
    onOutcome: (event) => { outcomes.push(event); return Promise.resolve(); },
  });
}

let counter = 0;
function message(channel: string, sender: Partial<Sender> & { id: string }, kind: Injection['kind'] = 'message'): Injection {
  counter += 1;
  return {
    id: `${channel}:g${String(counter)}`, kind, channel, tenantId: 'default', conversationKey: sender.id,
    sender: { verified: true, ...sender }, text: `message ${String(counter)}`, replyTo: { channel, address: sender.id }, receivedAt: new Date().toISOString(),
  };
}

beforeEach(() => {
  redis = new Redis(redisUrl());
  store = createSenderStore({ redis, prefix: prefix() });
  notices = [];
  accepted = [];
  outcomes = [];
});
afterEach(async () => {
  await redis.quit();
});

describe('the sender gate', () => {
  it('pairs an unknown SMS sender: one code message, the messages held, then released in order once approved', async () => {
    const sms = gate();
    const first = message('sms', { id: '+447700900001' });
    const second = message('sms', { id: '+447700900001' });
    expect(await sms.admit(first)).toEqual({ admitted: false, duplicate: false });
    expect(await sms.admit(second)).toEqual({ admitted: false, duplicate: false });
    expect(await sms.admit(first)).toEqual({ admitted: false, duplicate: true });
    expect(notices).toHaveLength(1);
    const code = /pairing code is ([A-Z0-9]{4}-[A-Z0-9]{4})/.exec(notices[0]?.text ?? '')?.[1] ?? '';
    expect(notices[0]).toMatchObject({ address: '+447700900001', key: `senders:pairing:sms:+447700900001:${code}` });
    expect(notices[0]?.text).toContain('within 1 hour');
    expect(outcomes.map((event) => event.outcome)).toEqual(['pairing-code-sent', 'held']);

    const approval = await approvePairing({ store, accept: (injection) => { accepted.push(injection); return Promise.resolve(); } }, code, 'admin page');
    expect(approval).toMatchObject({ status: 'approved', address: '+447700900001', released: 2 });
    expect(accepted.map((injection) => injection.id)).toEqual([first.id, second.id]);
    expect(await sms.admit(message('sms', { id: '+447700900001' }))).toEqual({ admitted: true });
  });

  it('lets known people and decisions through, and leaves channels without a policy alone', async () => {
    const sms = gate();
    expect(await sms.admit(message('sms', { id: '+447700900002', personId: 'ada' }))).toEqual({ admitted: true });
    expect(await sms.admit(message('sms', { id: '+447700900003' }, 'approval-response'))).toEqual({ admitted: true });
    expect(await sms.admit(message('a2a', { id: 'peer-desk', agent: true }))).toEqual({ admitted: true });
    expect(notices).toEqual([]);
  });

  it('applies allowlist patterns, refusing the others once a day, politely', async () => {
    const strict = gate({
      sms: { mode: 'allowlist', allow: ['+44*'], refusal: 'daily' },
      email: { mode: 'allowlist', allow: ['*@example.com'], refusal: 'never' },
      slack: { mode: 'allowlist', allow: ['T0123:*'], refusal: 'daily' },
    });
    expect(await strict.admit(message('sms', { id: '+447700900004' }))).toEqual({ admitted: true });
    expect(await strict.admit(message('sms', { id: '+15550100004' }))).toEqual({ admitted: false, duplicate: false });
    expect(await strict.admit(message('sms', { id: '+15550100004' }))).toEqual({ admitted: false, duplicate: false });
    expect(await strict.admit(message('email', { id: 'ada@example.com' }))).toEqual({ admitted: true });
    expect(await strict.admit(message('email', { id: 'eve@elsewhere.org' }))).toEqual({ admitted: false, duplicate: false });
    expect(await strict.admit(message('slack', { id: 'T0123:U0456' }))).toEqual({ admitted: true });
    expect(await strict.admit(message('slack', { id: 'T0999:U0456' }))).toEqual({ admitted: false, duplicate: false });
    expect(notices.map((notice) => notice.address)).toEqual(['+15550100004', 'T0999:U0456']);
    expect(notices[0]?.text).toMatch(/^Sorry/);
    expect(outcomes.map((event) => event.outcome)).toEqual(['allowed', 'refused', 'refused', 'allowed', 'refused', 'allowed', 'refused']);
  });

  it('sends nothing to an unknown sender the channel could not verify (a forged From)', async () => {
    const email = gate();
    expect(await email.admit(message('email', { id: 'someone@forged.example', verified: false }))).toEqual({ admitted: false, duplicate: false });
    expect(notices).toEqual([]);
    expect(outcomes).toMatchObject([{ outcome: 'refused', reason: 'unverified sender' }]);
    expect((await store.list()).pending).toEqual([]);
  });

  it('keeps open channels open, web by default, and blocks a blocked sender everywhere', async () => {
    const open = gate({ sms: { mode: 'open', allow: [], refusal: 'daily' } });
    expect(await open.admit(message('web', { id: 'b_visitor' }))).toEqual({ admitted: true });
    expect(await open.admit(message('sms', { id: '+15550100005' }))).toEqual({ admitted: true });
    await store.block('sms', '+15550100005', 'cli ops');
    await store.block('web', 'b_visitor', 'cli ops');
    expect(await open.admit(message('sms', { id: '+15550100005' }))).toEqual({ admitted: false, duplicate: false });
    expect(await open.admit(message('web', { id: 'b_visitor' }, 'user-action'))).toEqual({ admitted: false, duplicate: false });
    expect(notices).toEqual([]);
    expect(outcomes.map((event) => event.outcome)).toEqual(['allowed', 'allowed', 'blocked', 'blocked']);
  });

  it('hands the check of a sender the policy lets in by itself to the accept, and asks about the others', async () => {
    const sms = gate({ sms: { allow: ['+4477009*'], refusal: 'daily' } });
    expect(sms.quick(message('sms', { id: '+447700900007' }, 'approval-response'))).toEqual({ way: 'free' });
    expect(sms.quick(message('a2a', { id: 'peer-desk', agent: true }))).toEqual({ way: 'free' });
    expect(sms.quick(message('sms', { id: '+15550100007' }))).toEqual({ way: 'admit' });
    const listed = message('sms', { id: '+447700900007' });
    const quick = sms.quick(listed);
    if (quick.way !== 'guarded') throw new Error(`expected a guarded way, got ${quick.way}`);
    // The guard names the very keys a block and held messages are kept in.
    await store.block('sms', '+447700900007', 'cli ops');
    expect(await redis.hexists(quick.guard.blockedKey, quick.guard.blockedField)).toBe(1);
    expect(quick.guard.heldKey).toBe(`${prefix()}:snd:sms:held:+447700900007`);
    expect(outcomes).toEqual([]);
    await quick.allowed();
    expect(outcomes).toMatchObject([{ outcome: 'allowed', injection: { id: listed.id } }]);
  });

  it('releases what a crash left held with the sender\'s next message, ahead of it', async () => {
    const sms = gate();
    const held = message('sms', { id: '+447700900006' });
    await sms.admit(held);
    const code = /([A-Z0-9]{4}-[A-Z0-9]{4})/.exec(notices[0]?.text ?? '')?.[1] ?? '';
    // Approved, but the process stopped before the held message was released.
    expect((await store.approve(code, 'cli ops')).status).toBe('approved');
    expect(await sms.admit(message('sms', { id: '+447700900006' }))).toEqual({ admitted: true });
    expect(accepted.map((injection) => injection.id)).toEqual([held.id]);
    expect(outcomes.at(-1)).toMatchObject({ outcome: 'allowed', released: 1 });
  });
});
