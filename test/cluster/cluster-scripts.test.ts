/**
 * Every Lua script of switchboard runs on a real Redis Cluster without `CROSSSLOT` errors when the
 * prefix is a hash tag (`{…}`, what `deploymentPrefix` makes on a cluster): each test drives the
 * module that owns a script through its public functions, then checks that every key it wrote
 * lives in the prefix's one slot. The census at the end fails when a file defines a script that
 * no test here exercises.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Redis } from 'ioredis';
import { TaskState, type Task } from '@a2a-js/sdk';
import { createPeerRate } from '../../channels/a2a/peer-rate.ts';
import { createTaskLog } from '../../channels/a2a/task-log.ts';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { createMailboxCursor } from '../../channels/email/mailbox-cursor.ts';
import { keptSecret } from '../../channels/kit/kept-secret.ts';
import { fencedHset, fencedSet } from '../../channels/kit/lease/fenced-write.ts';
import { createLease } from '../../channels/kit/lease/lease.ts';
import { readLeaseHolder } from '../../channels/kit/lease/lease-keys.ts';
import { createSmsStore } from '../../channels/sms/sms-store.ts';
import { createWebEventStore, type LiveWebChatEvent } from '../../channels/web/stream/event-store.ts';
import { createCloudStatuses } from '../../channels/whatsapp/cloud/statuses.ts';
import { createServiceWindows } from '../../channels/whatsapp/service-window.ts';
import { createLinkStateStore } from '../../channels/whatsapp/web/link-state.ts';
import { createRedisSessionStore } from '../../channels/whatsapp/web/redis-session-store.ts';
import { createDeliveryFailures } from '../../queues/delivery-failures.ts';
import { createDeliveryLedger } from '../../queues/delivery-ledger.ts';
import { createDestinationRateLimit } from '../../queues/destination-rate-limit.ts';
import { createInlineSend } from '../../queues/inline-send.ts';
import { createInlineTurns, inlineTurnsKey } from '../../queues/inline-turns.ts';
import { sweepOutbox } from '../../queues/outbox-sweeper.ts';
import { sampleInjection } from '../../queues/queue-test-kit.ts';
import { closeRedis } from '../../queues/redis-connections.ts';
import { createSessionLock, sessionLockKey } from '../../queues/session-lock.ts';
import { createApprovalStore } from '../../src/runtime/approvals/redis-approval-store.ts';
import { createRedisArtifactStore } from '../../src/runtime/artifacts/redis-artifact-store.ts';
import { createBudgetStore } from '../../src/runtime/budgets/budget-store.ts';
import { createConversationIndex } from '../../src/runtime/inspect/conversation-index.ts';
import { createRedisClient, duplicateRedis } from '../../src/runtime/redis/redis-client.ts';
import { createSenderStore } from '../../src/runtime/senders/sender-store.ts';
import { createSessionStore } from '../../src/runtime/session/session-store.ts';
import type { TurnRecord } from '../../src/runtime/session/turn-record.ts';
import { describeOnCluster, keysWithSlots, uniqueClusterPrefix } from '../support/redis-cluster.ts';
import { uniquePrefix } from '../support/redis.ts';
import { waitFor } from '../support/wait-for.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The files that define Lua scripts, each exercised by a test below. */
const COVERED_SCRIPT_FILES = [
  'channels/a2a/peer-rate.ts',
  'channels/a2a/task-log.ts',
  'channels/email/mailbox-cursor.ts',
  'channels/kit/forward-only.ts',
  'channels/kit/lease/fenced-write.ts',
  'channels/kit/lease/lease-scripts.ts',
  'channels/web/stream/append-script.ts',
  'channels/whatsapp/service-window.ts',
  'channels/whatsapp/web/link-state.ts',
  'channels/whatsapp/web/redis-session-store.ts',
  'queues/delivery-failures.ts',
  'queues/delivery-ledger.ts',
  'queues/destination-rate-limit.ts',
  'queues/inline-send-scripts.ts',
  'queues/inline-turns.ts',
  'queues/session-lock.ts',
  'src/runtime/approvals/approval-scripts.ts',
  'src/runtime/budgets/budget-record.ts',
  'src/runtime/budgets/budget-store.ts',
  'src/runtime/inspect/conversation-index.ts',
  'src/runtime/senders/sender-scripts.ts',
  'src/runtime/session/session-store.ts',
];

/** Source files (tests excluded) under `dir`, relative to the repository root. */
function sourceFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts'))
    .map((entry) => relative(ROOT, join(entry.parentPath, entry.name)));
}

function turnRecord(sessionId: string, injection: ReturnType<typeof sampleInjection>): TurnRecord {
  const now = new Date().toISOString();
  return {
    turnId: `turn-${injection.id}`, sessionId, actor: 'main', startedAt: now, deadlineAt: now,
    step: 0, corrective: 0, handoffs: 0, given: 0, messages: [], status: 'running', emitted: [], dataEvents: [],
    replyTo: injection.replyTo,
  };
}

/** Waits until `ttl()` goes up: a renewal script ran. */
async function renewed(ttl: () => Promise<number>, what: string): Promise<void> {
  let last = await ttl();
  await waitFor(async () => {
    const now = await ttl();
    const up = now > last;
    last = now;
    return up;
  }, what, 5_000, 10);
}

describeOnCluster('Lua scripts on a Redis Cluster', (cluster) => {
  let redis: Redis;
  let prefix = '';

  beforeAll(() => {
    redis = createRedisClient(cluster().url, { maxRetriesPerRequest: null });
  });
  afterAll(async () => {
    await closeRedis(redis);
  });
  beforeEach(() => {
    prefix = uniqueClusterPrefix('scripts');
  });

  /** Every key under the prefix is in one slot (and there is at least one). */
  async function expectOneSlot(): Promise<string[]> {
    const keys = await keysWithSlots(redis, prefix);
    expect(keys.length).toBeGreaterThan(0);
    expect(new Set(keys.map((key) => key.slot)).size).toBe(1);
    return keys.map((key) => key.key);
  }

  it('fails with CROSSSLOT without the hash tag: the check below can fail', async () => {
    const sessions = createSessionStore({ redis, prefix: uniquePrefix('no-tag') });
    await expect(sessions.accept('s-1', sampleInjection('i-1'))).rejects.toThrow(/CROSSSLOT/);
  });

  it('session store: accept, begin, steer, finish and the scan of active turns', async () => {
    const sessions = createSessionStore({ redis, prefix });
    const first = sampleInjection('i-1');
    expect(await sessions.accept('s-1', first)).toBe(true);
    expect(await sessions.accept('s-1', first)).toBe(false);
    expect(await sessions.accept('s-1', sampleInjection('i-2'))).toBe(true);
    // An accept on the condition of a web sign-in session's key.
    const condition = { key: `${prefix}:web:sid:sid-1`, ttlMs: 60_000 };
    await redis.set(condition.key, '{}');
    expect(await sessions.acceptWhile('s-2', sampleInjection('i-3'), condition)).toBe('accepted');
    const guard = { blockedKey: `${prefix}:snd:web:blocked`, blockedField: 'b', heldKey: `${prefix}:snd:web:held:b` };
    expect(await sessions.acceptWhile('s-2', sampleInjection('i-4'), condition, guard)).toBe('accepted');
    const turn = await sessions.beginTurn('s-1', (injection) => turnRecord('s-1', injection));
    expect(turn?.inbox.map((injection) => injection.id)).toEqual(['i-1']);
    expect((await sessions.steer('s-1')).map((injection) => injection.id)).toEqual(['i-1', 'i-2']);
    expect((await sessions.activeTurns()).map((record) => record.sessionId)).toEqual(['s-1']);
    expect(await sessions.hasWork('s-1')).toBe(true);
    await expectOneSlot();
    if (turn === undefined) throw new Error('no turn');
    expect(await sessions.finishTurn(turn.record, [])).toBe(0);
    expect(await sessions.activeTurns()).toEqual([]);
  });

  it('session lock: acquire, heartbeat (extend) and release', async () => {
    const locks = createSessionLock({ redis, prefix, ttlMs: 300 });
    const lease = await locks.tryAcquire('s-1');
    if (lease === undefined) throw new Error('lock not taken');
    expect(await locks.tryAcquire('s-1')).toBeUndefined();
    await renewed(() => redis.pttl(sessionLockKey(prefix, 's-1')), 'a heartbeat extends the lock');
    expect(lease.signal.aborted).toBe(false);
    await expectOneSlot();
    expect(await lease.release()).toBe(true);
  });

  it('inline turns: a watched claim, the sweep of a dead holder\'s run, and letting go', async () => {
    const dyingClient = duplicateRedis(redis, {});
    const dying = createSessionLock({ redis: dyingClient, prefix, ttlMs: 200 });
    expect((await dying.claim('s-dead', { watchKey: inlineTurnsKey(prefix) })).lease).toBeDefined();
    dyingClient.disconnect();
    await expectOneSlot();
    const scheduled: string[] = [];
    const errors: Error[] = [];
    const locks = createSessionLock({ redis, prefix, ttlMs: 200 });
    const inline = createInlineTurns({
      redis, startRedis: redis, prefix, locks, maxInFlight: 4, queuedRunning: () => 0, lockTtlMs: 200, sweepIntervalMs: 50,
      onError: (error) => { errors.push(error); },
      schedule: (sessionId) => { scheduled.push(sessionId); return Promise.resolve(); },
      runLeased: (sessionId, lease) => lease.releaseAndLook({ watchKey: inlineTurnsKey(prefix), workKeys: [`${prefix}:s:${sessionId}:turn`, `${prefix}:s:${sessionId}:pending`] }),
      hasWork: () => Promise.resolve(false),
    });
    try {
      await inline.start('s-live', 'k-live');
      await waitFor(() => scheduled.includes('s-dead'), 'the sweep of the dead run');
      await waitFor(async () => (await redis.zcard(inlineTurnsKey(prefix))) === 0, 'the watch set to empty');
      expect(scheduled).toEqual(['s-dead']);
      expect(errors).toEqual([]);
    } finally {
      await inline.close();
    }
  });

  it('leases and fenced writes: acquire, renew, fenced SET/HSET, release', async () => {
    const lease = createLease({ redis, key: `${prefix}:lease:test`, ttlMs: 300, renewEveryMs: 100 });
    const fence = await lease.acquire();
    await renewed(async () => (await readLeaseHolder(redis, lease.key))?.ttlMs ?? 0, 'the lease is renewed');
    await fencedSet(redis, { ...fence, key: `${prefix}:fenced:value`, value: 'v1', ttlMs: 60_000 });
    await fencedHset(redis, { ...fence, key: `${prefix}:fenced:hash`, fields: { a: 1, b: 'two' } });
    expect(await redis.get(`${prefix}:fenced:value`)).toBe('v1');
    expect(await redis.hgetall(`${prefix}:fenced:hash`)).toEqual({ a: '1', b: 'two' });
    await expectOneSlot();
    expect(await lease.release()).toBe(true);
    await expect(fencedSet(redis, { ...fence, key: `${prefix}:fenced:value`, value: 'v2' })).rejects.toMatchObject({ code: 'lease.stale_fence' });
  });

  it('approval store: create, decide, claim, save the result, expire', async () => {
    const approvals = createApprovalStore({ redis, prefix });
    const alice = { channel: 'slack', address: 'U-ALICE', personId: 'alice' } as const;
    const request = {
      sessionId: 's-1', turnId: 't-1', actor: 'main', toolName: 'refund', toolCallId: 'toolu_1', args: { amount: 40 },
      approvers: [alice], requester: { channel: 'web', address: 'web:c-1' }, allowRequester: false, ttlMs: 60_000,
      replyTo: { channel: 'web', address: 'c-1' },
    } as const;
    const record = await approvals.create(request);
    expect(await approvals.pendingFor(alice)).toHaveLength(1);
    expect((await approvals.decide({ approvalId: record.approvalId, decision: 'granted', by: alice })).ok).toBe(true);
    expect(await approvals.claimExecution(record.approvalId)).toEqual({ first: true });
    await approvals.saveExecution(record.approvalId, { content: 'refunded', isError: false });
    expect(await approvals.claimExecution(record.approvalId)).toEqual({ first: false, result: { content: 'refunded', isError: false } });
    const other = await approvals.create({ ...request, toolCallId: 'toolu_2' });
    expect((await approvals.expire(other.approvalId)).ok).toBe(true);
    expect((await approvals.list()).map((item) => item.status).sort()).toEqual(['expired', 'granted']);
    await expectOneSlot();
  });

  it('web event store: append (XADD + PUBLISH), dedupe, read back, and the live subscription', async () => {
    const store = createWebEventStore({ redis, keyPrefix: prefix });
    try {
      const live: LiveWebChatEvent[] = [];
      const unsubscribe = await store.subscribe('c-1', (event) => { live.push(event); });
      const first = await store.append('c-1', { type: 'turn', turnId: 't-1', turnState: 'complete' }, 't-1:settled');
      expect(await store.append('c-1', { type: 'turn', turnId: 't-1', turnState: 'complete' }, 't-1:settled')).toEqual({ id: first.id, duplicate: true });
      expect((await store.readAfter('c-1', '0', 10)).map((stored) => stored.id)).toEqual([first.id]);
      await waitFor(() => live.length === 1, 'the appended event is published to the subscriber');
      expect(live[0]?.id).toBe(first.id);
      await unsubscribe();
      await expectOneSlot();
    } finally {
      await store.close();
    }
  });

  it('forward-only statuses (SMS and WhatsApp Cloud) and the WhatsApp service window', async () => {
    const sms = createSmsStore({ redis, prefix: `${prefix}:sms:AC1` });
    const status = { messageSid: 'SM1', status: 'delivered', updatedAt: new Date().toISOString() };
    expect(await sms.recordStatus({ ...status })).toBe(true);
    expect(await sms.recordStatus({ ...status, status: 'sent' })).toBe(false);
    const cloud = createCloudStatuses({ redis, prefix: `${prefix}:whatsapp:cloud` });
    expect(await cloud.record({ wamid: 'wamid.1', status: 'read', at: new Date().toISOString() })).toBe(true);
    expect(await cloud.record({ wamid: 'wamid.1', status: 'sent', at: new Date().toISOString() })).toBe(false);
    const windows = createServiceWindows({ redis, prefix: `${prefix}:whatsapp:123` });
    await windows.noteInbound('+15550100', new Date());
    expect(await windows.isOpen('+15550100', new Date())).toBe(true);
    await expectOneSlot();
  });

  it('WhatsApp Web: link state, the kept session (fenced RENAME and DEL) and the mailbox cursor', async () => {
    const lease = createLease({ redis, key: `${prefix}:lease:whatsapp:web-session`, ttlMs: 10_000 });
    const fence = await lease.acquire();
    const dataPath = await mkdtemp(join(tmpdir(), 'switchboard-cluster-wa-'));
    try {
      const links = createLinkStateStore({ redis, prefix });
      await links.write(fence, { status: 'ready', number: '+15550100' });
      expect((await links.read())?.status).toBe('ready');
      expect(await links.history()).toHaveLength(1);
      const sessions = createRedisSessionStore({ redis, prefix, fence, dataPath });
      await writeFile(join(dataPath, 'RemoteAuth.zip'), Buffer.from('zip bytes'));
      await sessions.save({ session: 'RemoteAuth' });
      expect(await sessions.sessionExists({ session: 'RemoteAuth' })).toBe(true);
      const cursor = createMailboxCursor(redis, `${prefix}:email:cursor`);
      await cursor.advance(fence, { uidValidity: 7, lastUid: 42 });
      expect(await cursor.load()).toEqual({ uidValidity: 7, lastUid: 42 });
      await expectOneSlot();
      await sessions.delete({ session: 'RemoteAuth' });
      expect(await sessions.sessionExists({ session: 'RemoteAuth' })).toBe(false);
    } finally {
      await lease.release();
      await rm(dataPath, { recursive: true, force: true });
    }
  });

  it('delivery ledger, failure log and per-destination rate limit', async () => {
    const ledger = createDeliveryLedger({ redis, prefix });
    expect(await ledger.begin('k-1', 'job-1', false)).toEqual({ kind: 'proceed', previous: 'new' });
    await ledger.recordReceipt('k-1', { providerMessageId: 'm-1' });
    expect(await ledger.begin('k-1', 'job-2', false)).toMatchObject({ kind: 'sent' });
    expect(await ledger.begin('k-2', 'job-3', false)).toMatchObject({ kind: 'proceed' });
    await ledger.recordFailure('k-2', 'refused');
    expect((await ledger.read('k-2'))?.state).toBe('failed');
    const failures = createDeliveryFailures({ redis, prefix });
    await failures.record({
      failedAt: new Date().toISOString(), channel: 'web', destination: { channel: 'web', address: 'c-1' }, idempotencyKey: 'k-2',
      attempts: 3, reason: 'exhausted', code: 'delivery.failed', message: 'refused',
    });
    expect(await failures.list()).toHaveLength(1);
    const limit = createDestinationRateLimit({ redis, prefix });
    expect(await limit.acquire('sms', '+15550100', 'job-a', { max: 1, durationMs: 60_000 })).toBe(0);
    expect(await limit.acquire('sms', '+15550100', 'job-b', { max: 1, durationMs: 60_000 })).toBeGreaterThan(0);
    await expectOneSlot();
    await failures.forget('k-2');
    expect(await failures.list()).toEqual([]);
  });

  it('inline sends: claim, settle, a limited claim joining the line, and the outbox sweep', async () => {
    const inline = createInlineSend({ redis, prefix, leaseMs: 1, ledgerTtlMs: 60_000, lineGraceMs: 1000, retryDelayMs: () => 0 });
    const sender = { destinationRateLimit: { max: 1, durationMs: 60_000 }, rateLimit: { max: 10, durationMs: 1000 }, send: () => Promise.resolve({ providerMessageId: 'm-1' }) };
    const delivery = { channel: 'sms', destination: { channel: 'sms', address: '+15550100' }, idempotencyKey: 'k-in', payload: { text: 'hi' } };
    expect(await inline.attempt(delivery, sender)).toMatchObject({ kind: 'sent' });
    expect(await inline.attempt({ ...delivery, idempotencyKey: 'k-in-2' }, sender)).toEqual({ kind: 'queue' });
    const stuck = { rateLimit: sender.rateLimit, send: () => new Promise<never>(() => undefined) };
    void inline.attempt({ ...delivery, destination: { channel: 'sms', address: '+15550101' }, idempotencyKey: 'k-cut' }, stuck);
    const handed: string[] = [];
    await waitFor(async () => {
      await sweepOutbox({ redis, prefix, enqueue: (item) => { handed.push(item.idempotencyKey); return Promise.resolve(); } });
      return handed.length === 1;
    }, 'the sweep');
    expect(handed).toEqual(['k-cut']);
    await expectOneSlot();
  });

  it('kept secret and artifact store (MULTI)', async () => {
    const secret = await keptSecret({ redis, prefix, purpose: 'web:secret:session' });
    expect(await keptSecret({ redis, prefix, purpose: 'web:secret:session' })).toBe(secret);
    const artifacts = createRedisArtifactStore({ redis, prefix });
    const meta = await artifacts.put({ name: 'report.txt', mimeType: 'text/plain', bytes: Buffer.from('hello') });
    expect((await artifacts.get(meta.artifactId))?.bytes.toString()).toBe('hello');
    await expectOneSlot();
  });

  it('a blocking duplicate (as the WhatsApp Web outbox makes one) pops on the slot\'s node', async () => {
    const blocking = duplicateRedis(redis, { lazyConnect: true });
    try {
      await blocking.connect();
      const popped = blocking.blpop(`${prefix}:whatsapp:web:outbox`, 5);
      await redis.lpush(`${prefix}:whatsapp:web:outbox`, 'request');
      expect(await popped).toEqual([`${prefix}:whatsapp:web:outbox`, 'request']);
    } finally {
      blocking.disconnect();
    }
  });

  it('a2a: the task log (create, deduped append, list, cancel flag, a round\'s end) and the per-peer rate', async () => {
    const log = createTaskLog({ redis, prefix });
    const at = new Date().toISOString();
    const task: Task = { id: 't-1', contextId: 'c-1', status: { state: TaskState.TASK_STATE_SUBMITTED, message: undefined, timestamp: at }, artifacts: [], history: [], metadata: {} };
    expect(await log.create(task, 'peer-a')).toBe(true);
    const done = { kind: 'statusUpdate' as const, data: { taskId: 't-1', contextId: 'c-1', status: { state: TaskState.TASK_STATE_COMPLETED, message: undefined, timestamp: at }, metadata: {} } };
    const id = await log.append('t-1', done, 'k-1');
    expect(await log.append('t-1', done, 'k-1')).toBe(id);
    expect((await log.load('t-1', 'peer-a'))?.task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect((await log.list('peer-a')).tasks.map((listed) => listed.id)).toEqual(['t-1']);
    expect(await log.requestCancel('t-1')).toBe(true);
    expect(await log.cancelRequested('t-1')).toBe(true);
    const end = await log.roundEnd('t-1');
    expect(end?.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(end?.canceled).toBe(true);
    const rate = createPeerRate({ redis, prefix, max: 1 });
    expect(await rate.retryAfterSeconds('peer-a')).toBeUndefined();
    expect(await rate.retryAfterSeconds('peer-a')).toBeGreaterThan(0);
    await expectOneSlot();
  });

  it('budgets: count two senders\' model calls in every scope in one script and check them with a turn rate', async () => {
    const budgets = createBudgetStore({ redis, prefix });
    const scopes = [
      { scope: 'sender' as const, id: 'web:b_1', limits: { callsPerDay: 1 } },
      { scope: 'conversation' as const, id: 's-1', limits: {} },
      { scope: 'deployment' as const, id: 'all', limits: {} },
    ];
    const rate = { senderId: 'web:b_1', turnId: 't-1', maxTurns: 5, windowMs: 60_000 };
    expect(await budgets.admit(scopes, rate, Date.now())).toEqual({ ok: true });
    // Two senders' calls in one loop turn: one record script over both senders' keys.
    const other = [{ scope: 'sender' as const, id: 'web:b_2', limits: {} }, { scope: 'conversation' as const, id: 's-2', limits: {} }, { scope: 'deployment' as const, id: 'all', limits: {} }];
    await Promise.all([budgets.record(scopes, { tokens: 400, calls: 1 }, Date.now()), budgets.record(other, { tokens: 100, calls: 1 }, Date.now())]);
    expect(await budgets.admit(scopes, { ...rate, turnId: 't-2' }, Date.now())).toMatchObject({ ok: false, scope: 'sender' });
    expect((await budgets.usage('deployment', 'all', Date.now())).day).toMatchObject({ tokens: 500, calls: 2 });
    await expectOneSlot();
  });

  it('senders: hold a stranger with a pairing code, approve it, refuse and block', async () => {
    const senders = createSenderStore({ redis, prefix });
    const stranger = { ...sampleInjection('sms:pair-1'), channel: 'sms', sender: { id: '+15550100001', verified: true } };
    const issued = await senders.admit({ mode: 'pairing', listed: false, refusal: 'daily', injection: stranger });
    expect(issued.outcome).toBe('pairing-code-sent');
    expect(await senders.approve('AAAA-AAAA', 'cluster test')).toMatchObject({ status: 'unknown' });
    expect(await senders.approve(issued.outcome === 'pairing-code-sent' ? issued.code : '', 'cluster test')).toMatchObject({ status: 'approved' });
    expect(await senders.admit({ mode: 'allowlist', listed: false, refusal: 'daily', injection: { ...stranger, id: 'sms:pair-2', sender: { id: '+15550100002', verified: true } } })).toEqual({ outcome: 'refused', notify: true });
    expect(await senders.block('sms', '+15550100001', 'cluster test')).toBe(1);
    await expectOneSlot();
  });

  it('conversation index: kept by the session store as turns start and settle, marked, searched and pruned', async () => {
    const sessions = createSessionStore({ redis, prefix });
    const index = createConversationIndex({ redis, prefix });
    const first = sampleInjection('i-conv');
    await sessions.accept('s-conv', first);
    const turn = await sessions.beginTurn('s-conv', (injection) => turnRecord('s-conv', injection));
    if (turn === undefined) throw new Error('no turn');
    await index.markSuspended('s-conv', Date.now() + 1);
    expect((await index.get('s-conv'))?.state).toBe('suspended');
    await sessions.finishTurn(turn.record, [], { sessionId: 's-conv', turnId: turn.record.turnId, at: Date.now() + 2, state: 'settled', actor: 'main', channel: 'web', address: 'conversation-1', tokens: 1, costMicros: 1 });
    await index.markDeliveryFailed('s-conv', turn.record.turnId);
    expect((await index.search({ state: 'failed' })).items.map((item) => item.sessionId)).toEqual(['s-conv']);
    await expectOneSlot();
  });

  it('census: every file that defines a Lua script is exercised above', () => {
    const defining = ['src', 'channels', 'queues']
      .flatMap(sourceFiles)
      .filter((file) => file !== join('src', 'runtime', 'redis', 'redis-script.ts'))
      .filter((file) => /\bdefine(Fenced)?Script\b/.test(readFileSync(join(ROOT, file), 'utf8')))
      .sort();
    expect(defining).toEqual(COVERED_SCRIPT_FILES);
  });
});
