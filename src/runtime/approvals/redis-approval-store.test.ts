import { Redis } from 'ioredis';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { useKeyPrefix, useRedis } from '../../../test/support/redis.ts';
import type { ChannelIdentity, NewApproval } from './approval-types.ts';
import { argsHash } from './canonical-json.ts';
import { createApprovalStore, type ApprovalStoreOptions } from './redis-approval-store.ts';

const redisUrl = useRedis();
const prefix = useKeyPrefix(redisUrl);
let redis: Redis;

beforeEach(() => {
  redis = new Redis(redisUrl());
});
afterEach(async () => {
  await redis.quit();
});

const alice: ChannelIdentity = { channel: 'slack', address: 'U-ALICE', personId: 'alice' };
const bob: ChannelIdentity = { channel: 'email', address: 'bob@example.com', personId: 'bob' };
const customer: ChannelIdentity = { channel: 'web', address: 'web:conv-1' };
const stranger: ChannelIdentity = { channel: 'sms', address: '+15550000000' };

function request(overrides: Partial<NewApproval> = {}): NewApproval {
  return {
    sessionId: 's-1',
    turnId: 't-1',
    actor: 'support',
    toolName: 'refund',
    toolCallId: 'toolu_1',
    args: { amount: 40, order: { id: 'o-9', lines: [1, 2] } },
    approvers: [alice, bob],
    requester: customer,
    allowRequester: false,
    ttlMs: 60_000,
    replyTo: { channel: 'web', address: 'conv-1' },
    ...overrides,
  };
}

/** A clock the test moves by hand. */
function manualClock(start = Date.parse('2026-03-01T10:00:00.000Z')): { now: () => Date; advance: (ms: number) => void } {
  let current = start;
  return {
    now: () => new Date(current),
    advance: (ms) => {
      current += ms;
    },
  };
}

function store(options: Partial<ApprovalStoreOptions> = {}) {
  return createApprovalStore({ redis, prefix: prefix(), ...options });
}

describe('redis approval store', () => {
  it('creates a pending record that get, findByShortCode, pendingFor and list return', async () => {
    const clock = manualClock();
    const approvals = store({ clock: clock.now });
    const record = await approvals.create(request());
    expect(record).toMatchObject({
      status: 'pending',
      createdAt: '2026-03-01T10:00:00.000Z',
      expiresAt: '2026-03-01T10:01:00.000Z',
      argsHash: argsHash({ order: { lines: [1, 2], id: 'o-9' }, amount: 40 }),
    });
    expect(record.approvalId).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(record.shortCode).toMatch(/^[A-Z0-9]{6}$/);
    expect(await approvals.get(record.approvalId)).toEqual(record);
    expect(await approvals.findByShortCode(bob, record.shortCode.toLowerCase())).toEqual(record);
    expect(await approvals.findByShortCode(stranger, record.shortCode)).toBeUndefined();
    expect(await approvals.findByShortCode(customer, record.shortCode)).toBeUndefined();
    expect(await approvals.pendingFor(alice)).toEqual([record]);
    expect(await approvals.pendingFor(customer)).toEqual([]);
    expect(await approvals.list()).toEqual([record]);
    expect(await approvals.list({ status: 'granted' })).toEqual([]);
    expect(await approvals.audit(record.approvalId)).toEqual([{ at: record.createdAt, action: 'requested', by: customer }]);
  });

  it('refuses to create an approval nobody could decide, or with a bad ttl', async () => {
    const approvals = store();
    await expect(approvals.create(request({ approvers: [] }))).rejects.toThrow(/at least one approver/);
    await expect(approvals.create(request({ ttlMs: 0 }))).rejects.toThrow(/ttlMs/);
  });

  it('keeps short codes unique among an approver’s pending approvals, retrying collisions', async () => {
    const codes = ['AAAAAA', 'AAAAAA', 'AAAAAA', 'CCCCCC', 'AAAAAA'];
    const approvals = store({ newShortCode: () => codes.shift() ?? 'DDDDDD' });
    const first = await approvals.create(request());
    const second = await approvals.create(request({ approvers: [bob] }));
    expect(first.shortCode).toBe('AAAAAA');
    expect(second.shortCode).toBe('CCCCCC');
    // Someone who shares no index with the first may reuse its code.
    const third = await approvals.create(request({ approvers: [stranger] }));
    expect(third.shortCode).toBe('AAAAAA');
    // Once decided, a code is free again for its approvers.
    expect((await approvals.decide({ approvalId: first.approvalId, decision: 'denied', by: alice })).ok).toBe(true);
    const fourth = await approvals.create(request({ approvers: [alice] }));
    expect(fourth.shortCode).toBe('DDDDDD');
    const reuse = store({ newShortCode: () => 'AAAAAA' });
    expect((await reuse.create(request({ approvers: [alice] }))).shortCode).toBe('AAAAAA');
    expect((await approvals.pendingFor(bob)).map((r) => r.shortCode)).toEqual(['CCCCCC']);
  });

  it('gives up with an error when every code is taken', async () => {
    const approvals = store({ newShortCode: () => 'AAAAAA', maxShortCodeTries: 3 });
    await approvals.create(request());
    await expect(approvals.create(request())).rejects.toThrow(/no free short code after 3 tries/);
  });

  it('grants: records who and when, leaves the pending indexes, lists by status', async () => {
    const clock = manualClock();
    const approvals = store({ clock: clock.now });
    const record = await approvals.create(request());
    clock.advance(5_000);
    const outcome = await approvals.decide({ approvalId: record.approvalId, decision: 'granted', by: alice, reason: 'ok by me' });
    expect(outcome).toEqual({
      ok: true,
      record: { ...record, status: 'granted', decidedBy: alice, decidedAt: '2026-03-01T10:00:05.000Z', reason: 'ok by me' },
    });
    expect(await approvals.get(record.approvalId)).toEqual(outcome.ok ? outcome.record : undefined);
    expect(await approvals.pendingFor(alice)).toEqual([]);
    expect(await approvals.findByShortCode(bob, record.shortCode)).toBeUndefined();
    expect((await approvals.list({ status: 'granted' })).map((r) => r.approvalId)).toEqual([record.approvalId]);
    expect(await approvals.list({ status: 'pending' })).toEqual([]);
  });

  it('denies', async () => {
    const approvals = store();
    const record = await approvals.create(request());
    const outcome = await approvals.decide({ approvalId: record.approvalId, decision: 'denied', by: bob });
    expect(outcome.ok && outcome.record.status).toBe('denied');
    expect((await approvals.get(record.approvalId))?.decidedBy).toEqual(bob);
  });

  it('answers a second decision with who decided and when, and changes nothing', async () => {
    const clock = manualClock();
    const approvals = store({ clock: clock.now });
    const record = await approvals.create(request());
    await approvals.decide({ approvalId: record.approvalId, decision: 'granted', by: alice });
    const before = await approvals.get(record.approvalId);
    clock.advance(1_000);
    const second = await approvals.decide({ approvalId: record.approvalId, decision: 'denied', by: bob });
    expect(second).toMatchObject({
      ok: false,
      refusal: 'already_decided',
      message: 'Already granted by alice at 2026-03-01T10:00:00.000Z.',
    });
    expect(await approvals.get(record.approvalId)).toEqual(before);
    expect((await approvals.audit(record.approvalId)).at(-1)).toEqual({
      at: '2026-03-01T10:00:01.000Z',
      action: 'refused',
      by: bob,
      detail: 'denied: already granted',
    });
  });

  it('lets exactly one of 20 concurrent decisions win', async () => {
    const approvals = store();
    const record = await approvals.create(request());
    const clients = Array.from({ length: 20 }, () => new Redis(redisUrl()));
    try {
      const outcomes = await Promise.all(
        clients.map((client, i) =>
          createApprovalStore({ redis: client, prefix: prefix() }).decide({
            approvalId: record.approvalId,
            decision: i % 2 === 0 ? 'granted' : 'denied',
            by: i % 3 === 0 ? alice : bob,
          }),
        ),
      );
      const winners = outcomes.filter((outcome) => outcome.ok);
      expect(winners).toHaveLength(1);
      expect(outcomes.filter((outcome) => !outcome.ok && outcome.refusal === 'already_decided')).toHaveLength(19);
      const trail = await approvals.audit(record.approvalId);
      expect(trail.filter((entry) => entry.action === 'granted' || entry.action === 'denied')).toHaveLength(1);
      expect(trail.filter((entry) => entry.action === 'refused')).toHaveLength(19);
      expect((await approvals.get(record.approvalId))?.status).toBe(winners[0]?.ok ? winners[0].record.status : 'none');
    } finally {
      await Promise.all(clients.map((client) => client.quit()));
    }
  });

  it('refuses a non-approver, audits who and why, and changes nothing', async () => {
    const approvals = store();
    const record = await approvals.create(request());
    const outcome = await approvals.decide({ approvalId: record.approvalId, decision: 'granted', by: stranger });
    expect(outcome).toEqual({ ok: false, refusal: 'not_an_approver', message: 'You are not allowed to decide this approval.' });
    expect((await approvals.get(record.approvalId))?.status).toBe('pending');
    expect((await approvals.audit(record.approvalId)).at(-1)).toMatchObject({ action: 'refused', by: stranger, detail: 'granted: not an approver' });
  });

  it('refuses an approver whose channel could not verify them, audits why, and changes nothing', async () => {
    const approvals = store();
    const record = await approvals.create(request());
    const unverified = { ...bob, verified: false, basis: 'DKIM signature of evil.test not aligned with example.com' };
    const outcome = await approvals.decide({ approvalId: record.approvalId, decision: 'granted', by: unverified });
    expect(outcome).toMatchObject({ ok: false, refusal: 'unverified' });
    expect((await approvals.get(record.approvalId))?.status).toBe('pending');
    expect((await approvals.audit(record.approvalId)).at(-1)).toMatchObject({
      action: 'refused',
      by: unverified,
      detail: 'granted: the sender could not be verified (DKIM signature of evil.test not aligned with example.com)',
    });
    expect(await approvals.decide({ approvalId: record.approvalId, decision: 'granted', by: { ...bob, verified: true } })).toMatchObject({ ok: true });
  });

  it('refuses the requester unless allowRequester', async () => {
    const approvals = store();
    const closed = await approvals.create(request());
    expect(await approvals.decide({ approvalId: closed.approvalId, decision: 'granted', by: customer })).toMatchObject({
      ok: false,
      refusal: 'not_an_approver',
    });
    expect((await approvals.audit(closed.approvalId)).at(-1)?.detail).toBe('granted: the requester may not decide their own request');
    const open = await approvals.create(request({ allowRequester: true }));
    expect(await approvals.pendingFor(customer)).toEqual([open]);
    expect(await approvals.findByShortCode(customer, open.shortCode)).toEqual(open);
    expect((await approvals.decide({ approvalId: open.approvalId, decision: 'granted', by: customer })).ok).toBe(true);
  });

  it('matches an approver by personId across channels', async () => {
    const approvals = store();
    const record = await approvals.create(request({ approvers: [bob] }));
    const bobOnSms: ChannelIdentity = { channel: 'sms', address: '+15551234567', personId: 'bob' };
    expect(await approvals.findByShortCode(bobOnSms, record.shortCode)).toEqual(record);
    expect(await approvals.pendingFor(bobOnSms)).toEqual([record]);
    // The same number without a person is a stranger.
    expect(await approvals.decide({ approvalId: record.approvalId, decision: 'granted', by: { channel: 'sms', address: '+15551234567' } })).toMatchObject({
      refusal: 'not_an_approver',
    });
    expect(await approvals.decide({ approvalId: record.approvalId, decision: 'granted', by: bobOnSms })).toMatchObject({ ok: true });
  });

  it('refuses an answer whose argsHash differs, and accepts the matching one', async () => {
    const approvals = store();
    const record = await approvals.create(request());
    const wrong = argsHash({ amount: 4000, order: { id: 'o-9', lines: [1, 2] } });
    expect(await approvals.decide({ approvalId: record.approvalId, decision: 'granted', by: alice, argsHash: wrong })).toMatchObject({
      ok: false,
      refusal: 'args_mismatch',
    });
    expect((await approvals.get(record.approvalId))?.status).toBe('pending');
    expect((await approvals.audit(record.approvalId)).at(-1)).toMatchObject({ action: 'refused', by: alice });
    expect((await approvals.decide({ approvalId: record.approvalId, decision: 'granted', by: alice, argsHash: record.argsHash })).ok).toBe(true);
  });

  it('refuses an answer after expiresAt, leaving the approval pending for the expiry job', async () => {
    const clock = manualClock();
    const approvals = store({ clock: clock.now });
    const record = await approvals.create(request());
    clock.advance(60_000);
    const onTime = await approvals.create(request({ approvers: [bob] }));
    expect((await approvals.decide({ approvalId: onTime.approvalId, decision: 'granted', by: bob })).ok).toBe(true);
    clock.advance(1);
    const late = await approvals.decide({ approvalId: record.approvalId, decision: 'granted', by: alice });
    expect(late).toMatchObject({ ok: false, refusal: 'expired', message: expect.stringContaining('2026-03-01T10:01:00.000Z') as unknown });
    expect((await approvals.get(record.approvalId))?.status).toBe('pending');
    expect((await approvals.audit(record.approvalId)).at(-1)).toMatchObject({ action: 'refused', by: alice, detail: expect.stringContaining('too late') as unknown });
    const expired = await approvals.expire(record.approvalId);
    expect(expired).toMatchObject({ ok: true, record: { status: 'expired', decidedAt: '2026-03-01T10:01:00.001Z' } });
    expect(await approvals.pendingFor(alice)).toEqual([]);
    expect(await approvals.decide({ approvalId: record.approvalId, decision: 'granted', by: alice })).toMatchObject({
      refusal: 'already_decided',
      message: 'Already expired at 2026-03-01T10:01:00.001Z.',
    });
  });

  it('refuses to expire a decided approval', async () => {
    const approvals = store();
    const record = await approvals.create(request());
    await approvals.decide({ approvalId: record.approvalId, decision: 'granted', by: alice });
    expect(await approvals.expire(record.approvalId)).toMatchObject({ ok: false, refusal: 'already_decided', record: { status: 'granted' } });
    expect((await approvals.get(record.approvalId))?.status).toBe('granted');
  });

  it('answers an unknown id without revealing anything and writes nothing', async () => {
    const approvals = store();
    for (const approvalId of ['AAAAAAAAAAAAAAAAAAAAAA', 'not:an:id']) {
      expect(await approvals.decide({ approvalId, decision: 'granted', by: alice })).toEqual({
        ok: false,
        refusal: 'unknown_approval',
        message: 'No approval with that id.',
      });
      expect(await approvals.expire(approvalId)).toMatchObject({ refusal: 'unknown_approval' });
      expect(await approvals.get(approvalId)).toBeUndefined();
    }
    expect(await redis.keys(`${prefix()}:*`)).toEqual([]);
  });

  it('claims the execution of a granted call once and hands the saved result to later callers', async () => {
    const approvals = store();
    const record = await approvals.create(request());
    await expect(approvals.claimExecution(record.approvalId)).rejects.toThrow(/pending, not granted/);
    await approvals.decide({ approvalId: record.approvalId, decision: 'granted', by: alice });
    const claims = await Promise.all(Array.from({ length: 5 }, () => approvals.claimExecution(record.approvalId)));
    expect(claims.filter((claim) => claim.first)).toHaveLength(1);
    expect(claims.filter((claim) => !claim.first)).toEqual(Array.from({ length: 4 }, () => ({ first: false })));
    await approvals.saveExecution(record.approvalId, { content: 'refunded', isError: false });
    await approvals.saveExecution(record.approvalId, { content: 'second save is ignored', isError: true });
    expect(await approvals.claimExecution(record.approvalId)).toEqual({ first: false, result: { content: 'refunded', isError: false } });
    expect((await approvals.audit(record.approvalId)).filter((entry) => entry.action === 'executed')).toHaveLength(1);
  });

  it('keeps the audit trail in order', async () => {
    const clock = manualClock();
    const approvals = store({ clock: clock.now });
    const record = await approvals.create(request());
    clock.advance(1_000);
    await approvals.decide({ approvalId: record.approvalId, decision: 'granted', by: stranger });
    clock.advance(1_000);
    await approvals.decide({ approvalId: record.approvalId, decision: 'granted', by: alice, reason: 'fine' });
    clock.advance(1_000);
    await approvals.claimExecution(record.approvalId);
    await approvals.saveExecution(record.approvalId, { content: 'done', isError: false });
    expect(await approvals.audit(record.approvalId)).toEqual([
      { at: '2026-03-01T10:00:00.000Z', action: 'requested', by: customer },
      { at: '2026-03-01T10:00:01.000Z', action: 'refused', by: stranger, detail: 'granted: not an approver' },
      { at: '2026-03-01T10:00:02.000Z', action: 'granted', by: alice, detail: 'fine' },
      { at: '2026-03-01T10:00:03.000Z', action: 'executed' },
    ]);
  });

  it('lists newest first with a limit', async () => {
    const clock = manualClock();
    const approvals = store({ clock: clock.now });
    const ids: string[] = [];
    for (let i = 0; i < 3; i += 1) {
      ids.push((await approvals.create(request())).approvalId);
      clock.advance(1_000);
    }
    expect((await approvals.list()).map((r) => r.approvalId)).toEqual([...ids].reverse());
    expect((await approvals.list({ limit: 2 })).map((r) => r.approvalId)).toEqual([ids[2], ids[1]]);
    expect((await approvals.pendingFor(alice)).map((r) => r.approvalId)).toEqual(ids);
  });
});
