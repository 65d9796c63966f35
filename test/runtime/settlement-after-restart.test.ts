/**
 * A turn that settles while Redis is SIGKILLed and started again (same port and data folder,
 * `appendfsync always`, so what Redis acknowledged survives) still ends settled everywhere: its
 * `turn_settled` entry is in the session's event log and its settlement is on the web stream,
 * whether Redis died right after the turn cleared its record or right after the settlement reached
 * the web stream. Never a turn with a response but without its settlement.
 *
 * The kill strikes at an exact command: the service talks to Redis through a proxy that, once it
 * has passed on the chosen command, passes nothing more (not even the rest of the socket write
 * that carried it), so Redis executes that command and nothing after it before it is killed. The
 * command is the turn's clearing (the session store's finish script, which also writes the log's
 * `turn_settled`: both or neither) or the settlement's append to the web stream (the settled
 * record was saved before it, the clearing not yet sent). A turn that cleared itself without its
 * log entry would lose that entry for good: the turn tried again after the restart finds no turn
 * left to settle.
 */
import { fileURLToPath } from 'node:url';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWebEventStore, type StoredWebChatEvent } from '../../channels/web/stream/event-store.ts';
import { inlineTurnsKey } from '../../queues/inline-turns.ts';
import { sessionLockKey } from '../../queues/session-lock.ts';
import { TURN_QUEUE_NAME } from '../../queues/turn-queue.ts';
import { createEventLog, type StoredEventLogEntry } from '../../src/runtime/session/event-log.ts';
import { sessionIdOf } from '../../src/runtime/session/session-id.ts';
import { echoModel, postMessage, responses, untilReady } from '../outage/outage-kit.ts';
import { respCommands, startRedisProxy } from '../outage/redis-proxy.ts';
import { useRestartableRedis } from '../outage/restartable-redis.ts';
import { useStarted } from '../support/use-started.ts';
import { useSwitchboard } from '../support/switchboard-harness.ts';
import { waitFor } from '../support/wait-for.ts';

/** A TCP proxy in front of Redis that can stop passing commands on right after a given one. */
interface FreezingProxy {
  /** `redis://127.0.0.1:<port>` of the proxy. */
  readonly url: string;
  /**
   * Passes on the first chunk a client sends that `matches` (read as latin1), then passes nothing
   * more from any client (dropped, as if Redis had died at that moment) and refuses new
   * connections; resolves once that chunk was passed on.
   */
  freezeAfter(matches: (chunk: string) => boolean): Promise<void>;
  /** Cuts every connection and lets new ones through again; only forgets the command when not frozen. */
  thaw(): void;
  close(): Promise<void>;
}

async function startFreezingProxy(target: string): Promise<FreezingProxy> {
  let trigger: { matches: (chunk: string) => boolean; passed: () => void } | undefined;
  let frozen = false;
  const proxy = await startRedisProxy(target, {
    accepts: () => !frozen,
    onClientData(chunk, upstream) {
      // Command by command: a chunk may carry the chosen command and the ones sent after it.
      for (const command of respCommands(chunk)) {
        if (frozen) return;
        upstream.write(command);
        if (trigger?.matches(command.toString('latin1')) === true) {
          frozen = true;
          trigger.passed();
          trigger = undefined;
        }
      }
    },
  });
  return {
    url: proxy.url,
    freezeAfter(matches) {
      return new Promise((resolve) => {
        trigger = { matches, passed: resolve };
      });
    },
    thaw() {
      trigger = undefined;
      if (!frozen) return;
      proxy.dropAll();
      frozen = false;
    },
    close: () => proxy.close(),
  };
}

const appDir = fileURLToPath(new URL('../fixtures/loop-app/', import.meta.url));
const redis = useRestartableRedis({ appendFsync: 'always' });
const proxy = useStarted(() => startFreezingProxy(redis().url), (started) => started.close(), { name: 'startFreezingProxy()' });
const sb = useSwitchboard({ appDir, redisUrl: () => proxy().url });

/** Reads Redis directly (not through the proxy); waits for Redis while it is away. */
let observer: Redis;
beforeAll(() => {
  observer = new Redis(redis().url);
  observer.on('error', () => undefined);
});
afterAll(() => {
  observer.disconnect();
});

/** What a conversation's session holds in Redis once its turn job is done. */
interface Outcome {
  readonly stream: readonly StoredWebChatEvent[];
  readonly log: readonly StoredEventLogEntry[];
  readonly turnRecordLeft: boolean;
  readonly failedJobs: number;
}

const sessionOf = (conversationId: string): string => sessionIdOf('default', 'web', conversationId);
const sessionKey = (conversationId: string, part: string): string => `${sb().prefix}:s:${sessionOf(conversationId)}:${part}`;
const escaped = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * The session store's finish script, which clears the turn: its keys come in this order (the
 * history, its version, the old history form, the turn, the inbox, the mailbox), unlike any other
 * command of a turn.
 */
function isClearing(conversationId: string): (chunk: string) => boolean {
  const key = (part: string): string => escaped(sessionKey(conversationId, part));
  const keys = ['hist', 'histv', 'history', 'turn', 'inbox', 'pending'].map(key).join('\\r\\n\\$\\d+\\r\\n');
  const pattern = new RegExp(`${keys}\\r\\n`);
  return (chunk) => pattern.test(chunk);
}

/** The append of the turn's settlement (a `turn` event, complete) to the conversation's web stream. */
function isSettlementOnStream(conversationId: string): (chunk: string) => boolean {
  const streamKey = `${sb().prefix}:web:${conversationId}\r\n`;
  return (chunk) => chunk.includes(streamKey) && chunk.includes('"type":"turn"') && chunk.includes('"turnState":"complete"');
}

async function readStream(conversationId: string): Promise<StoredWebChatEvent[]> {
  const store = createWebEventStore({ redis: observer, keyPrefix: sb().prefix });
  try {
    return await store.readAfter(conversationId, '0', 10_000);
  } finally {
    await store.close();
  }
}

function readLog(conversationId: string): Promise<StoredEventLogEntry[]> {
  return createEventLog({ redis: observer, prefix: sb().prefix }).read(sessionOf(conversationId), 10_000);
}

/**
 * Posts `text` in `conversationId`, lets Redis execute the first command `strikesAfter` picks out
 * and nothing after it, waits until that command took effect (`tookEffect`), SIGKILLs Redis and
 * starts it again; then waits until the turn is no longer run, inline or by a job (tried again
 * after the restart as often as needed), and returns what the session holds.
 */
async function settleAroundRedisKill(
  conversationId: string,
  text: string,
  strikesAfter: (chunk: string) => boolean,
  tookEffect: () => Promise<boolean>,
): Promise<Outcome> {
  sb().fake.respondWith(echoModel);
  await sb().browser.session();
  // A first turn makes Redis cache the turn's scripts, so that the command struck after is the one
  // that runs (not an EVALSHA answered NOSCRIPT, whose EVAL would come after the freeze).
  const warmUp = `${conversationId}-warm-up`;
  expect((await postMessage(sb().browser, warmUp, 'warm up', `${warmUp}-m1`)).status).toBe(202);
  await waitFor(async () => settledInLog(await readLog(warmUp)).size > 0 && (await observer.exists(sessionKey(warmUp, 'turn'))) === 0, 'the warm-up turn settled', 20_000);
  const frozen = proxy().freezeAfter(strikesAfter);
  try {
    expect((await postMessage(sb().browser, conversationId, text, `${conversationId}-m1`)).status).toBe(202);
    await frozen;
    await waitFor(tookEffect, 'Redis executed the command the kill strikes after', 20_000);
    await redis().kill();
  } finally {
    // Also when a step above failed: the service gets its Redis back, so that it can close.
    proxy().thaw();
    if (!redis().running) await redis().start();
  }

  const connection = observer.duplicate({ maxRetriesPerRequest: null });
  const queue = new Queue(TURN_QUEUE_NAME, { connection, prefix: sb().prefix });
  queue.on('error', () => undefined);
  try {
    // The turn ran inline (the harness is role `all`): done once no run is watched, no lock is
    // held and no job (a failed run's retry, or a swept one) is left. The watch set is read first:
    // a failed run adds its retry job before it leaves the set.
    await waitFor(async () => {
      const running = (await observer.zcard(inlineTurnsKey(sb().prefix))) + (await observer.exists(sessionLockKey(sb().prefix, sessionOf(conversationId))));
      const counts = await queue.getJobCounts('active', 'wait', 'delayed', 'prioritized', 'waiting-children');
      return running === 0 && Object.values(counts).every((count) => count === 0);
    }, 'the turn was tried again after the restart and finished', 60_000, 100);
    // The turn's own end lets its lock go, so that can come before every client of the service is
    // back on Redis: the next scenario starts only once the service is ready again.
    await untilReady(sb().url);
    return {
      stream: await readStream(conversationId),
      log: await readLog(conversationId),
      turnRecordLeft: (await observer.exists(sessionKey(conversationId, 'turn'))) === 1,
      failedJobs: (await queue.getJobCounts('failed'))['failed'] ?? 0,
    };
  } finally {
    await queue.close();
    connection.disconnect();
  }
}

/** Turn ids with a response part on the web stream. */
function answeredTurns(stream: readonly StoredWebChatEvent[]): Set<string> {
  return new Set(stream.flatMap(({ event }) => (event.type === 'part' && event.part.metadata.partType === 'response' ? [event.turnId] : [])));
}

/** Turn ids settled on the web stream (a `turn` event in a final state). */
function settledOnStream(stream: readonly StoredWebChatEvent[]): Set<string> {
  return new Set(stream.flatMap(({ event }) => (event.type === 'turn' && ['complete', 'clarifying', 'error'].includes(event.turnState) ? [event.turnId] : [])));
}

/** Turn ids with a `turn_settled` entry in the event log. */
function settledInLog(log: readonly StoredEventLogEntry[]): Set<string> {
  return new Set(log.flatMap((entry) => (entry.type === 'turn_settled' && entry.turnId !== undefined ? [entry.turnId] : [])));
}

/** The checks shared by both moments of the kill: one answer, settled on the stream and in the log, nothing left. */
function expectSettledOnce(outcome: Outcome, text: string): void {
  expect(responses(outcome.stream)).toEqual([`Echo: ${text}`]);
  const answered = [...answeredTurns(outcome.stream)];
  expect(answered).toHaveLength(1);
  expect([...settledOnStream(outcome.stream)]).toEqual(answered);
  expect([...settledInLog(outcome.log)]).toEqual(answered);
  expect(outcome.turnRecordLeft).toBe(false);
  expect(outcome.failedJobs).toBe(0);
}

describe('a turn that settles around a Redis SIGKILL and restart', () => {
  it('keeps its turn_settled entry and its settlement when Redis dies right after the turn was cleared', async () => {
    const conversationId = 'c-settle-cleared';
    const outcome = await settleAroundRedisKill(
      conversationId,
      'cleared, then killed',
      isClearing(conversationId),
      async () => (await observer.exists(sessionKey(conversationId, 'turn'))) === 0,
    );
    expectSettledOnce(outcome, 'cleared, then killed');
  }, 120_000);

  it('is settled again after the restart when Redis dies right after the settlement reached the web stream, before the turn was cleared', async () => {
    const conversationId = 'c-settle-streamed';
    const outcome = await settleAroundRedisKill(
      conversationId,
      'streamed, then killed',
      isSettlementOnStream(conversationId),
      async () => settledOnStream(await readStream(conversationId)).size > 0,
    );
    expectSettledOnce(outcome, 'streamed, then killed');
    // The turn was found settled but not cleared after the restart, and settled again: once on the stream.
    expect(outcome.log.filter((entry) => entry.type === 'turn_resumed')).toHaveLength(1);
    expect(outcome.stream.filter(({ event }) => event.type === 'turn' && event.turnState === 'complete')).toHaveLength(1);
  }, 120_000);
});
