import { describe, expect, it } from 'vitest';
import { sampleInjection } from '../../queues/queue-test-kit.ts';
import { useKeyPrefix, useRedis } from '../../test/support/redis.ts';
import { useRedisClients } from '../../test/support/redis-clients.ts';
import type { Injection } from '../../src/runtime/injection.ts';
import { sessionIdOf } from '../../src/runtime/session/session-id.ts';
import { createSessionStore, type SessionStore } from '../../src/runtime/session/session-store.ts';
import type { SenderMode, SendersConfig } from '../../src/runtime/app/app-types.ts';
import { createSenderGate, type SenderOutcome } from '../../src/runtime/senders/sender-gate.ts';
import { senderPolicies } from '../../src/runtime/senders/sender-policy.ts';
import { createSenderStore } from '../../src/runtime/senders/sender-store.ts';
import { acceptIntoMailbox, createInboundIntake, isDecision, type InboundIntakeOptions } from './inbound-intake.ts';

const redisUrl = useRedis();
const prefix = useKeyPrefix(redisUrl);
const connect = useRedisClients(redisUrl);

const textDecides = (channel: string): boolean => channel === 'sms';
const SESSION = sessionIdOf('tenant-1', 'web', 'conversation-1');

async function setUp(overrides: { scheduleTurn?: (sessionId: string, key: string) => Promise<void> } = {}) {
  const redis = await connect();
  const sessions = createSessionStore({ redis, prefix: prefix() });
  const scheduled: [string, string][] = [];
  const decided: Injection[] = [];
  const intake = createInboundIntake({
    sessions,
    scheduleTurn: overrides.scheduleTurn ?? ((sessionId, key) => { scheduled.push([sessionId, key]); return Promise.resolve(); }),
    decisions: { enqueue: (injection) => { decided.push(injection); return Promise.resolve({ duplicate: false }); } },
    textRepliesDecide: textDecides,
  });
  return { redis, sessions, intake, scheduled, decided };
}

async function mailbox(sessions: SessionStore): Promise<string[]> {
  const taken = await sessions.steer(SESSION).catch(() => []);
  return taken.map((injection) => injection.id);
}

describe('inbound intake', () => {
  it('puts messages in their session mailbox in arrival order and asks for a turn for each', async () => {
    const { intake, sessions, scheduled, decided } = await setUp();
    for (const id of ['web:m1', 'web:m2', 'web:m3']) expect(await intake.enqueue(sampleInjection(id))).toEqual({ duplicate: false });
    expect(scheduled).toEqual([[SESSION, 'web:m1'], [SESSION, 'web:m2'], [SESSION, 'web:m3']]);
    expect(decided).toEqual([]);
    expect(await sessions.pendingCount(SESSION)).toBe(3);
    expect(await mailbox(sessions)).toEqual(['web:m1', 'web:m2', 'web:m3']);
  });

  it('drops a repeated id but asks for the turn again, so a first try that failed after storing is not stranded', async () => {
    let failNext = true;
    const asked: string[] = [];
    const { intake, sessions } = await setUp({
      scheduleTurn: (_sessionId, key) => {
        if (failNext) {
          failNext = false;
          return Promise.reject(new Error('Redis went away'));
        }
        asked.push(key);
        return Promise.resolve();
      },
    });
    await expect(intake.enqueue(sampleInjection('web:once'))).rejects.toThrow('Redis went away');
    // The channel answered with an error and its sender tries again: stored once, turn asked for.
    expect(await intake.enqueue(sampleInjection('web:once'))).toEqual({ duplicate: true });
    expect(asked).toEqual(['web:once']);
    expect(await sessions.pendingCount(SESSION)).toBe(1);
  });

  it('asks for the turn while the accept is on its way when it can, and a claim sent behind the accept finds the message', async () => {
    const redis = await connect();
    const sessions = createSessionStore({ redis, prefix: prefix() });
    const seen: [string, boolean, number][] = [];
    let answered = false;
    const intake = createInboundIntake({
      sessions: { accept: async (sessionId, injection) => { answered = false; const fresh = await sessions.accept(sessionId, injection); answered = true; return fresh; } },
      scheduleTurn: () => Promise.reject(new Error('not used when startTurn is given')),
      // As the inline turns do: a command sent now on the accept's connection, before it was answered.
      startTurn: async (sessionId, key, accepted) => {
        const early = !answered;
        const waiting = await redis.llen(`${prefix()}:s:${sessionId}:pending`);
        seen.push([key, early, waiting]);
        await accepted;
      },
      decisions: { enqueue: () => Promise.reject(new Error('no decisions here')) },
      textRepliesDecide: textDecides,
    });
    expect(await intake.enqueue(sampleInjection('web:s1'))).toEqual({ duplicate: false });
    expect(await intake.enqueue(sampleInjection('web:s1'))).toEqual({ duplicate: true });
    // Asked before the accept's answer came back, yet the message was already in the mailbox.
    expect(seen).toEqual([['web:s1', true, 1], ['web:s1', true, 1]]);
  });

  it('fails the intake when the accept fails, even though the turn was already asked for', async () => {
    const asked: string[] = [];
    const intake = createInboundIntake({
      sessions: { accept: () => Promise.reject(new Error('Redis went away')) },
      scheduleTurn: () => Promise.reject(new Error('not used when startTurn is given')),
      // The claim went out behind the accept: the turn it starts finds nothing and lets go.
      startTurn: (_sessionId, key) => { asked.push(key); return Promise.resolve(); },
      decisions: { enqueue: () => Promise.reject(new Error('no decisions here')) },
      textRepliesDecide: textDecides,
    });
    // The channel answers with an error, so its sender sends the message again.
    await expect(intake.enqueue(sampleInjection('web:lost'))).rejects.toThrow('Redis went away');
    expect(asked).toEqual(['web:lost']);
  });

  it('fails the intake when a guarded accept fails, without asking the gate or storing the message another way', async () => {
    let admits = 0;
    let plainAccepts = 0;
    const intake = createInboundIntake({
      sessions: {
        accept: () => { plainAccepts += 1; return Promise.resolve(true); },
        acceptUnless: () => Promise.reject(new Error('Redis went away')),
      },
      scheduleTurn: () => Promise.resolve(),
      decisions: { enqueue: () => Promise.reject(new Error('no decisions here')) },
      textRepliesDecide: textDecides,
      senders: {
        quick: () => ({ way: 'guarded', guard: { blockedKey: 'b', blockedField: 'browser-1', heldKey: 'h' }, allowed: () => Promise.resolve() }),
        admit: () => { admits += 1; return Promise.resolve({ admitted: true }); },
      },
    });
    // The channel answers with an error, so its sender sends the message again.
    await expect(intake.enqueue(sampleInjection('web:guarded-lost'))).rejects.toThrow('Redis went away');
    expect([admits, plainAccepts]).toEqual([0, 0]);
  });

  it('sends decisions to the decision queue and never to a mailbox', async () => {
    const { intake, sessions, decided, scheduled } = await setUp();
    const button = sampleInjection('web:button', { kind: 'approval-response', data: { approvalId: 'apr_1', decision: 'granted' } });
    const reply = sampleInjection('sms:reply', { channel: 'sms', text: 'APPROVE K7QX3M' });
    await intake.enqueue(button);
    await intake.enqueue(reply);
    expect(decided.map((injection) => injection.id)).toEqual(['web:button', 'sms:reply']);
    expect(scheduled).toEqual([]);
    expect(await sessions.pendingCount(SESSION)).toBe(0);
  });

  it('tells decisions from messages: only text channels that decide, only a strict decision line', () => {
    expect(isDecision(sampleInjection('a', { channel: 'sms', text: 'deny' }), textDecides)).toBe(true);
    expect(isDecision(sampleInjection('b', { channel: 'sms', text: 'Should I approve this?' }), textDecides)).toBe(false);
    expect(isDecision(sampleInjection('c', { channel: 'web', text: 'APPROVE K7QX3M' }), textDecides)).toBe(false);
    expect(isDecision(sampleInjection('d', { kind: 'approval-response' }), textDecides)).toBe(true);
  });

  it('checks a sender the policy lets in by itself in the accept\'s own script, and asks the gate about a blocked or held one', async () => {
    const redis = await connect();
    const sessions = createSessionStore({ redis, prefix: prefix() });
    const senderStore = createSenderStore({ redis, prefix: prefix() });
    const outcomes: SenderOutcome[] = [];
    let admits = 0;
    const open: SendersConfig = { mode: 'open', allow: [], refusal: 'daily' };
    const base: Omit<InboundIntakeOptions, 'senders'> = {
      sessions,
      scheduleTurn: () => Promise.resolve(),
      decisions: { enqueue: () => Promise.reject(new Error('no decisions here')) },
      textRepliesDecide: textDecides,
    };
    const gate = createSenderGate({
      policies: senderPolicies({ web: open, email: open, sms: open, slack: open, whatsapp: open }),
      store: senderStore,
      notify: () => Promise.resolve(),
      accept: (injection) => acceptIntoMailbox(base, injection),
      onOutcome: (event) => { outcomes.push(event.outcome); return Promise.resolve(); },
    });
    const intake = createInboundIntake({ ...base, senders: { quick: (injection) => gate.quick(injection), admit: (injection) => { admits += 1; return gate.admit(injection); } } });

    expect(await intake.enqueue(sampleInjection('web:q1'))).toEqual({ duplicate: false });
    expect(await intake.enqueue(sampleInjection('web:q1'))).toEqual({ duplicate: true });
    expect([admits, outcomes]).toEqual([0, ['allowed', 'allowed']]);

    await senderStore.block('web', 'browser-1', 'cli ops');
    expect(await intake.enqueue(sampleInjection('web:q2'))).toEqual({ duplicate: false });
    expect([admits, outcomes.at(-1)]).toEqual([1, 'blocked']);

    // A message held before the sender was let in (a crash before its release) goes first.
    await senderStore.revoke('web', 'browser-1');
    await redis.rpush(`${prefix()}:snd:web:held:browser-1`, JSON.stringify(sampleInjection('web:held')));
    expect(await intake.enqueue(sampleInjection('web:q3'))).toEqual({ duplicate: false });
    expect(admits).toBe(2);
    expect(await mailbox(sessions)).toEqual(['web:q1', 'web:held', 'web:q3']);
  });

  it('stores a message with a condition only while its key exists, renewing it, and says when it lapsed', async () => {
    const { intake, sessions, redis, decided } = await setUp();
    const condition = { key: `${prefix()}:web:sid:cond`, ttlMs: 600_000 };
    await redis.set(condition.key, '{}', 'PX', 5_000);
    expect(await intake.enqueue(sampleInjection('web:k1'), condition)).toEqual({ duplicate: false });
    expect(await redis.pttl(condition.key)).toBeGreaterThan(500_000);
    await redis.del(condition.key);
    expect(await intake.enqueue(sampleInjection('web:k2'), condition)).toEqual({ duplicate: false, lapsed: true });
    // A decision is not queued once its condition lapsed either.
    const button = sampleInjection('web:k3', { kind: 'approval-response', data: { approvalId: 'apr_1', decision: 'granted' } });
    expect(await intake.enqueue(button, condition)).toEqual({ duplicate: false, lapsed: true });
    expect(decided).toEqual([]);
    expect(await mailbox(sessions)).toEqual(['web:k1']);
  });

  it('refuses a condition that its mailboxes cannot check, storing nothing', async () => {
    const { sessions } = await setUp();
    const intake = createInboundIntake({
      sessions: { accept: (sessionId, injection) => sessions.accept(sessionId, injection) },
      scheduleTurn: () => Promise.resolve(),
      decisions: { enqueue: () => Promise.resolve({ duplicate: false }) },
      textRepliesDecide: textDecides,
    });
    await expect(intake.enqueue(sampleInjection('web:u1'), { key: `${prefix()}:web:sid:none`, ttlMs: 1000 })).rejects.toMatchObject({ code: 'internal' });
    expect(await sessions.pendingCount(SESSION)).toBe(0);
  });

  it('checks a condition in the guarded accept\'s script, and before asking the gate about a sender', async () => {
    const redis = await connect();
    const sessions = createSessionStore({ redis, prefix: prefix() });
    const senderStore = createSenderStore({ redis, prefix: prefix() });
    let admits = 0;
    const base: Omit<InboundIntakeOptions, 'senders'> = {
      sessions,
      scheduleTurn: () => Promise.resolve(),
      decisions: { enqueue: () => Promise.reject(new Error('no decisions here')) },
      textRepliesDecide: textDecides,
    };
    const intakeFor = (mode: SenderMode) => {
      const policy: SendersConfig = { mode, allow: [], refusal: 'daily' };
      const gate = createSenderGate({
        policies: senderPolicies({ web: policy, email: policy, sms: policy, slack: policy, whatsapp: policy }),
        store: senderStore,
        notify: () => Promise.resolve(),
        accept: (injection) => acceptIntoMailbox(base, injection),
      });
      return createInboundIntake({ ...base, senders: { quick: (injection) => gate.quick(injection), admit: (injection) => { admits += 1; return gate.admit(injection); } } });
    };
    const condition = { key: `${prefix()}:web:sid:gated`, ttlMs: 600_000 };
    await redis.set(condition.key, '{}');
    expect(await intakeFor('open').enqueue(sampleInjection('web:g1'), condition)).toEqual({ duplicate: false });
    await redis.del(condition.key);
    expect(await intakeFor('open').enqueue(sampleInjection('web:g2'), condition)).toEqual({ duplicate: false, lapsed: true });
    expect(await intakeFor('allowlist').enqueue(sampleInjection('web:g3'), condition)).toEqual({ duplicate: false, lapsed: true });
    expect(admits).toBe(0);
    expect(await mailbox(sessions)).toEqual(['web:g1']);
  });

  it('takes 50 concurrent messages of one conversation, each exactly once', async () => {
    const { intake, sessions } = await setUp();
    const accepted: string[] = [];
    await Promise.all(Array.from({ length: 50 }, async (_, index) => {
      const id = `web:c${index}`;
      await intake.enqueue(sampleInjection(id));
      accepted.push(id);
    }));
    // Each enqueue resolves after its own write: the mailbox holds all 50, each once.
    const inMailbox = await mailbox(sessions);
    expect([...inMailbox].sort()).toEqual([...accepted].sort());
    expect(new Set(inMailbox).size).toBe(50);
  });
});
