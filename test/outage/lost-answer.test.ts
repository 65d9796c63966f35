/**
 * A script that Redis carried out but whose answer the connection lost is sent again by the
 * client (ioredis resends what went unanswered once it reconnects; a Redis SIGKILL between a
 * write and its answer does this). The second run must recognise what the first one did:
 * - a lock claim must find the lock it took, not a lock "held by someone else": otherwise the
 *   first attempt of a turn job completes, leaving the session's new message to a holder that
 *   does not exist, and the message waits in the mailbox with no turn to run it (seen once in
 *   `npm run chaos`);
 * - a delivery's intent to send must go on to send, not take its own intent for a crashed
 *   earlier attempt (an at-most-once channel would then drop the message);
 * - an outbox sweep must hand over the dead sends it took, not find none (they would wait a
 *   minute more);
 * - a granted send slot must be granted again, not counted a second time (the next delivery to
 *   that person would wait a whole window for a send that never happened);
 * - a take of a session's undelivered notes must give what its first run took, not nothing (the
 *   person would never be told that a message may be missing).
 */
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createDeliveryFailures } from '../../queues/delivery-failures.ts';
import { createDeliveryLedger } from '../../queues/delivery-ledger.ts';
import { createDestinationRateLimit } from '../../queues/destination-rate-limit.ts';
import { outboxKeys } from '../../queues/inline-send.ts';
import { sweepOutbox } from '../../queues/outbox-sweeper.ts';
import type { OutboundDelivery } from '../../queues/outbound-types.ts';
import { sampleDelivery, useTestResources } from '../../queues/queue-test-kit.ts';
import { createSessionLock, sessionLockKey } from '../../queues/session-lock.ts';
import { createTurnQueue, createTurnWorker } from '../../queues/turn-queue.ts';
import { startAnswerLosingProxy, type AnswerLosingProxy } from './answer-losing-proxy.ts';
import { useKeyPrefix, useRedis } from '../support/redis.ts';

const redisUrl = useRedis();
const prefix = useKeyPrefix(redisUrl);
const resources = useTestResources(redisUrl);
let proxy: AnswerLosingProxy;

beforeAll(async () => {
  proxy = await startAnswerLosingProxy(redisUrl());
});
afterAll(async () => {
  await proxy.close();
});

/** A worker client (it waits out reconnections and resends) that talks to Redis through the proxy. */
function throughProxy(): Redis {
  return resources.redis('worker', proxy.url);
}

/** Loses the answer to the next script sent with `key`. */
function loseScriptAnswer(key: string): Promise<void> {
  return proxy.loseAnswerTo((chunk) => chunk.includes(key) && /evalsha/i.test(chunk));
}

/** Loses the answer to the next script sent with the lock key of `sessionId`. */
function loseClaimAnswer(sessionId: string): Promise<void> {
  return loseScriptAnswer(sessionLockKey(prefix(), sessionId));
}

describe('a claim whose answer was lost', () => {
  it('takes the lock it had already taken when it is sent again', async () => {
    const locks = createSessionLock({ redis: throughProxy(), prefix: prefix(), ttlMs: 5000 });
    // Loads the script into Redis, so that the claim below runs the first time it is sent.
    await (await locks.tryAcquire('s-warm'))?.release();
    const cut = loseClaimAnswer('s-lost');
    const claim = await locks.claim('s-lost');
    await cut;
    expect(claim.lease).toBeDefined();
    expect(await resources.redis('worker').get(sessionLockKey(prefix(), 's-lost'))).toBe(claim.lease?.token);
    await claim.lease?.release();
  });

  it('still runs the turn of the job that sent it', async () => {
    const turns = resources.track(createTurnQueue({ connection: resources.redis('producer'), prefix: prefix() }));
    const ran: string[] = [];
    let work = true;
    resources.track(createTurnWorker({
      connection: throughProxy(),
      prefix: prefix(),
      process: (sessionId) => {
        ran.push(sessionId);
        work = false;
        return Promise.resolve();
      },
      hasWork: () => Promise.resolve(work),
    }));
    const cut = loseClaimAnswer('s-job');
    await turns.schedule('s-job', 'm-1');
    await cut;
    await vi.waitFor(() => {
      expect(ran).toEqual(['s-job']);
    }, { timeout: 10_000 });
  });
});

describe('an intent to send whose answer was lost', () => {
  it('goes on to send, as the first run said, and counts one call', async () => {
    const ledger = createDeliveryLedger({ redis: throughProxy(), prefix: prefix() });
    // Loads the script into Redis, so that the begin below runs the first time it is sent.
    await ledger.begin('warm-up', 'job-0', false);
    const cut = loseScriptAnswer(':delivery-ledger:');
    const begun = await ledger.begin('delivery-1', 'job-1', false);
    await cut;
    expect(begun).toEqual({ kind: 'proceed', previous: 'new' });
    expect(await ledger.read('delivery-1')).toMatchObject({ state: 'sending', sendCalls: 1 });
    // Another attempt (a new call, not a resend) still finds the open intent unconfirmed.
    expect(await ledger.begin('delivery-1', 'job-1', false)).toMatchObject({ kind: 'unconfirmed' });
  });
});

describe('an outbox sweep whose answer was lost', () => {
  it('hands over the dead sends it took', async () => {
    const redis = throughProxy();
    const handed: OutboundDelivery[] = [];
    const sweep = { redis, prefix: prefix(), enqueue: (delivery: OutboundDelivery) => { handed.push(delivery); return Promise.resolve(); } };
    // Loads the script into Redis, so that the sweep below runs the first time it is sent.
    expect(await sweepOutbox(sweep)).toBe(0);
    const keys = outboxKeys(prefix());
    const dead = sampleDelivery('sms', 'dead-send');
    await redis.multi().zadd(keys.due, 1, 'dead-send').hset(keys.deliveries, 'dead-send', JSON.stringify(dead)).exec();
    const cut = loseScriptAnswer(keys.due);
    expect(await sweepOutbox(sweep)).toBe(1);
    await cut;
    expect(handed).toEqual([dead]);
    expect(await redis.zcard(keys.due)).toBe(0);
  });
});

describe('a send slot whose answer was lost', () => {
  it('is granted again, and counted once', async () => {
    const limiter = createDestinationRateLimit({ redis: throughProxy(), prefix: prefix() });
    const limit = { max: 2, durationMs: 60_000 };
    // Loads the script into Redis, so that the acquire below runs the first time it is sent.
    expect(await limiter.acquire('sms', '+15550000000', 'warm-up', limit)).toBe(0);
    const cut = loseScriptAnswer(':outbound-rate:{sms:');
    expect(await limiter.acquire('sms', '+15551234567', 'job-1', limit)).toBe(0);
    await cut;
    expect(await limiter.acquire('sms', '+15551234567', 'job-2', limit)).toBe(0);
    expect(await limiter.acquire('sms', '+15551234567', 'job-3', limit)).toBeGreaterThan(0);
  });
});

describe('a take of undelivered notes whose answer was lost', () => {
  it('gets the notes its first run took', async () => {
    const failures = createDeliveryFailures({ redis: throughProxy(), prefix: prefix() });
    const note = { sessionId: 's-told', idempotencyKey: 'k-untold', channel: 'email', at: new Date().toISOString(), excerpt: 'Your invoice' };
    // Loads the script into Redis, so that the take below runs the first time it is sent.
    await failures.noteForSession({ ...note, sessionId: 's-warm' });
    expect(await failures.takeForSession('s-warm')).toHaveLength(1);
    await failures.noteForSession(note);
    const cut = loseScriptAnswer(':untold-take:');
    const taken = await failures.takeForSession('s-told');
    await cut;
    expect(taken).toEqual([note]);
    expect(await failures.takeForSession('s-told')).toEqual([]);
  });
});
