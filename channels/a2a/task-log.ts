/**
 * The canonical A2A tasks in Redis: per task a snapshot (what `GetTask` answers) and a capped
 * event stream (what every web process's event bus tails), written together in one Lua step so a
 * reader never sees one without the other.
 *
 * Keys, under the service's hash-tagged prefix `<p>` (every key of a task lives in one slot, so the
 * scripts work on a cluster), each expiring about `ttlSeconds` after the task's last write (see
 * `expiryRefreshSeconds`):
 * - `<p>:a2a:task:<taskId>` hash: `owner`, `createdAtMs`, `updatedAtMs`, `base` (the task's id,
 *   contextId and metadata as created), `status` (TaskStatus JSON), `state`, `statusAtMs`,
 *   `lastEventId`, `metadataPatches` (JSON array of event metadata merged over `base.metadata`),
 *   `artifactIds` (JSON array, in first-seen order), `artifact:<artifactId>` (JSON array of chunks:
 *   a replace starts it again, an `append` adds to it), `message:<messageId>` (history dedupe) and
 *   `idem:<digest>` (the stream id of an append, per idempotency key).
 * - `<p>:a2a:task:<taskId>:history` list of Message JSON, oldest first.
 * - `<p>:a2a:task:<taskId>:events` stream, one `event` field per entry (a statusUpdate or
 *   artifactUpdate as `{ kind, data }` JSON).
 * - `<p>:a2a:task:<taskId>:cancel` flag, expiring `ttlSeconds` after it was set (a task asked to
 *   cancel ends within its turn, well before).
 * - `<p>:a2a:peer:<peerId>:tasks` sorted set of the peer's task ids, scored by creation time (ms).
 *
 * Arrays are never decoded and encoded again in Lua (cjson turns an empty array into `{}`): the
 * scripts only concatenate JSON text that TypeScript wrote, and TypeScript assembles the task.
 */
import type { Artifact, Message, Task, TaskArtifactUpdateEvent, TaskState, TaskStatus, TaskStatusUpdateEvent } from '@a2a-js/sdk';
import type { AgentExecutionEvent } from '@a2a-js/sdk/server';
import type { Redis } from 'ioredis';
import { SwitchboardError } from '../../src/protocol/errors.ts';
import { defineScript, runScript } from '../../src/runtime/redis/redis-script.ts';
import { shortDigest } from '../../src/runtime/crypto/signing.ts';
import { expiryMemo } from '../../src/runtime/memo/expiry-memo.ts';

/** An event appended to a task: what the worker writes and every event bus delivers. */
export type TaskLogEvent =
  | { readonly kind: 'statusUpdate'; readonly data: TaskStatusUpdateEvent }
  | { readonly kind: 'artifactUpdate'; readonly data: TaskArtifactUpdateEvent };

/** One entry of a task's event stream. */
export interface TaskLogEntry {
  /** The stream entry id (`<ms>-<seq>`). */
  readonly id: string;
  readonly event: TaskLogEvent;
}

/** A stored task with what the log knows around it. */
export interface LoadedTask {
  /** The task with its whole history and its artifacts. */
  readonly task: Task;
  /** The peer id the task belongs to. */
  readonly owner: string;
  /** The id of the last event appended, `undefined` before the first. */
  readonly lastEventId: string | undefined;
}

/** Where a reader starts tailing a task's event stream; see {@link TaskLog.streamStart}. */
export interface StreamStart {
  /** The id of the task's last event; `undefined` when it has none or does not exist. */
  readonly lastEventId: string | undefined;
  /** The task's status as an event when the task is in a terminal state, else `undefined`. */
  readonly ended: TaskLogEvent | undefined;
}

/** Options of {@link TaskLog.list}. */
export interface ListTaskOptions {
  /** How many tasks at most (1-100). Default 50. */
  readonly pageSize?: number | undefined;
  /** The `nextPageToken` of the previous page; empty or omitted for the first page. */
  readonly pageToken?: string | undefined;
  /** Only tasks of this context; empty or omitted for all. */
  readonly contextId?: string | undefined;
  /** Only tasks in this state; omitted or `TASK_STATE_UNSPECIFIED` (0) for all. */
  readonly status?: TaskState | undefined;
  /** Only tasks whose status timestamp is later than this ISO 8601 time. */
  readonly statusTimestampAfter?: string | undefined;
  /** Whether the tasks carry their artifacts. Default `false`. */
  readonly includeArtifacts?: boolean | undefined;
}

/** A page of {@link TaskLog.list}. */
export interface TaskPage {
  /** Newest (created) first. */
  readonly tasks: Task[];
  /** Token of the next page, `''` on the last. */
  readonly nextPageToken: string;
  readonly pageSize: number;
  /** How many tasks match the filters, over all pages. */
  readonly totalSize: number;
}

/** Options of {@link createTaskLog}. */
export interface TaskLogOptions {
  /** The command connection. Not closed by the log. */
  readonly redis: Redis;
  /** Prefix of every key (the service's hash-tagged prefix), e.g. `{switchboard}`. */
  readonly prefix: string;
  /** How long a task's keys live after its last write, in seconds. Default 2592000 (30 days). */
  readonly ttlSeconds?: number;
  /** Approximate cap of each task's event stream (`XADD MAXLEN ~`). Default 1000. */
  readonly maxEvents?: number;
  /** The clock, for creation and update times. Default `Date.now`. */
  readonly now?: () => number;
  /**
   * How long after this log last refreshed a task's expiry an append refreshes it again, in
   * seconds: a task takes several appends a turn, and each refresh was three commands. Its keys
   * then outlive its last write by between `ttlSeconds` less this and `ttlSeconds`. Default an
   * hour, or a tenth of `ttlSeconds` when that is shorter.
   */
  readonly expiryRefreshSeconds?: number;
}

/** Options of {@link TaskLog.read} and {@link TaskLog.readMany}. */
export interface ReadOptions {
  /** Wait up to this long for an entry when there is none (`XREAD BLOCK`), in ms. Default: no wait. */
  readonly blockMs?: number;
  /** At most this many entries per task. Default 100. */
  readonly count?: number;
  /** The connection to read on (a blocking read needs its own). Default the log's connection. */
  readonly redis?: Redis;
}

/** The A2A tasks in Redis. */
export interface TaskLog {
  /**
   * Stores a new task (with its status, history and artifacts) for `owner` (the peer id) and adds
   * it to the owner's list. Nothing is appended to its event stream.
   *
   * @returns `false` when a task with this id existed (it is left as it was).
   */
  create(task: Task, owner: string): Promise<boolean>;
  /**
   * {@link TaskLog.create}, and for a task of `owner` that exists already: adds the messages of
   * `task.history` that its history lacks (by `messageId`), in one step. Nothing else of the stored
   * task changes.
   *
   * @returns `created`, `existing`, or `foreign` when the task exists for another owner (left as it was).
   */
  createOrAddHistory(task: Task, owner: string): Promise<'created' | 'existing' | 'foreign'>;
  /**
   * Applies one event to the task's snapshot and appends it to its event stream, in one atomic
   * step: a status replaces the status (its message joins the history unless there already), an
   * artifact replaces the artifact of the same id or, with `append: true`, adds its parts to it;
   * event metadata is merged into the task's. The task's keys live `ttlSeconds` longer.
   *
   * @param idempotencyKey - When given, a second append with the same key stores nothing and
   *   answers the first one's stream id.
   * @returns The stream entry id, or `undefined` when the event was dropped: the task is in a final
   *   state (completed, failed, canceled, rejected), after which nothing is appended to it.
   * @throws SwitchboardError `internal` when the task does not exist, or for an event that is not
   *   a statusUpdate or artifactUpdate.
   */
  append(taskId: string, event: TaskLogEvent | AgentExecutionEvent, idempotencyKey?: string): Promise<string | undefined>;
  /**
   * Adds a message to the task's history, unless a message with its `messageId` is there already.
   * Not an event: nothing goes to the stream.
   *
   * @returns Whether the message was added.
   * @throws SwitchboardError `internal` when the task does not exist.
   */
  appendHistory(taskId: string, message: Message): Promise<boolean>;
  /** The task, or `undefined` when it does not exist or, with `owner`, belongs to another owner. */
  load(taskId: string, owner?: string): Promise<LoadedTask | undefined>;
  /**
   * Where to tail the task from, read in one step: the id of its last event and, when the task
   * has ended, its terminal status as an event (a reader that starts after the final event still
   * learns how the task ended).
   */
  streamStart(taskId: string): Promise<StreamStart>;
  /** A page of `owner`'s tasks, newest first. */
  list(owner: string, options?: ListTaskOptions): Promise<TaskPage>;
  /** The task's events after `afterId` (`0` for all), oldest first; `[]` when none came in `blockMs`. */
  read(taskId: string, afterId: string, options?: ReadOptions): Promise<TaskLogEntry[]>;
  /**
   * The events after each cursor of several tasks in one read (`XREAD` over their streams).
   *
   * @param cursors - Task id to the stream id to read after.
   * @returns Task id to its new entries; tasks without any are absent.
   */
  readMany(cursors: ReadonlyMap<string, string>, options?: ReadOptions): Promise<Map<string, TaskLogEntry[]>>;
  /** Marks the task as asked to cancel. @returns `false` when the task does not exist. */
  requestCancel(taskId: string): Promise<boolean>;
  /** Whether the task was asked to cancel. */
  cancelRequested(taskId: string): Promise<boolean>;
  /**
   * What ending a round needs, read in one step: the task's status, its artifacts, and whether it
   * was asked to cancel; none of its history. `undefined` when the task does not exist.
   */
  roundEnd(taskId: string): Promise<RoundEnd | undefined>;
}

/** A task's status and artifacts, and its cancel flag: see {@link TaskLog.roundEnd}. */
export interface RoundEnd {
  readonly status: TaskStatus | undefined;
  readonly artifacts: Artifact[];
  readonly canceled: boolean;
}

const DEFAULT_TTL_SECONDS = 30 * 24 * 60 * 60;
const DEFAULT_MAX_EVENTS = 1000;
const DEFAULT_PAGE_SIZE = 50;
const DEFAULT_READ_COUNT = 100;
const TERMINAL_STATES: ReadonlySet<number> = new Set([3, 4, 5, 7]);

/*
 * KEYS[1] snapshot, KEYS[2] history, KEYS[3] the owner's list.
 * ARGV[1] owner, [2] now ms, [3] ttl s, [4] base JSON, [5] status JSON ('' none), [6] state,
 * [7] status ms, [8] artifact ids JSON, [9] task id, [10] history count, [11] '1' to add the
 * missing history messages to an existing task of the same owner, then (messageId, JSON) pairs,
 * then the artifact count, then (artifactId, chunks JSON) pairs.
 * Returns 1 when created, 0 when it existed, -1 when it exists for another owner (merge only).
 */
const CREATE = defineScript(`
local count = tonumber(ARGV[10])
if redis.call('EXISTS', KEYS[1]) == 1 then
  if ARGV[11] ~= '1' then return 0 end
  if redis.call('HGET', KEYS[1], 'owner') ~= ARGV[1] then return -1 end
  local added = 0
  for k = 0, count - 1 do
    if redis.call('HSETNX', KEYS[1], 'message:' .. ARGV[12 + 2 * k], '1') == 1 then
      redis.call('RPUSH', KEYS[2], ARGV[13 + 2 * k])
      added = added + 1
    end
  end
  if added > 0 then
    redis.call('HSET', KEYS[1], 'updatedAtMs', ARGV[2])
    redis.call('EXPIRE', KEYS[1], ARGV[3])
    redis.call('EXPIRE', KEYS[2], ARGV[3])
  end
  return 0
end
redis.call('HSET', KEYS[1], 'owner', ARGV[1], 'createdAtMs', ARGV[2], 'updatedAtMs', ARGV[2], 'base', ARGV[4],
  'status', ARGV[5], 'state', ARGV[6], 'statusAtMs', ARGV[7], 'artifactIds', ARGV[8], 'metadataPatches', '[]')
redis.call('DEL', KEYS[2])
local i = 12
for _ = 1, count do
  if redis.call('HSETNX', KEYS[1], 'message:' .. ARGV[i], '1') == 1 then redis.call('RPUSH', KEYS[2], ARGV[i + 1]) end
  i = i + 2
end
local artifacts = tonumber(ARGV[i])
i = i + 1
for _ = 1, artifacts do
  redis.call('HSET', KEYS[1], 'artifact:' .. ARGV[i], ARGV[i + 1])
  i = i + 2
end
redis.call('EXPIRE', KEYS[1], ARGV[3])
redis.call('EXPIRE', KEYS[2], ARGV[3])
redis.call('ZADD', KEYS[3], ARGV[2], ARGV[9])
redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', '(' .. (tonumber(ARGV[2]) - tonumber(ARGV[3]) * 1000))
redis.call('EXPIRE', KEYS[3], ARGV[3])
return 1
`);

/*
 * KEYS[1] snapshot, KEYS[2] history, KEYS[3] events.
 * ARGV[1] kind ('status' | 'artifact'), [2] event JSON, [3] now ms, [4] ttl s ('': the expiry is
 * not refreshed), [5] MAXLEN,
 * [6] metadata patch JSON ('' none), [7] idempotency digest ('' none).
 * status: [8] status JSON, [9] state, [10] status ms, [11] message id ('' none), [12] message JSON.
 * artifact: [8] artifact id, [9] chunk JSON, [10] '1' to append, [11] artifact id as JSON string.
 * Returns the stream id, or false for a task in a final state (nothing is appended to it).
 * What it reads of the snapshot is read in one HMGET, and what it writes (there and in the history)
 * after the XADD, the snapshot's fields in one HSET: a stream that cannot take the event leaves
 * the task as it was.
 */
const APPEND = defineScript(`
local artifact = ARGV[1] == 'artifact'
local field = artifact and ('artifact:' .. ARGV[8]) or 'state'
local idem = ARGV[7] ~= '' and ('idem:' .. ARGV[7]) or 'state'
local got = redis.call('HMGET', KEYS[1], 'owner', 'state', idem, field, 'artifactIds', 'metadataPatches')
if not got[1] then return redis.error_reply('A2A_NO_TASK') end
if ARGV[7] ~= '' and got[3] then return got[3] end
local current = tonumber(got[2] or '0')
if current == 3 or current == 4 or current == 5 or current == 7 then return false end
local set
if not artifact then
  set = { 'status', ARGV[8], 'state', ARGV[9], 'statusAtMs', ARGV[10] }
elseif not got[4] then
  local ids = got[5]
  if not ids or ids == '[]' then ids = '[' .. ARGV[11] .. ']' else ids = string.sub(ids, 1, -2) .. ',' .. ARGV[11] .. ']' end
  set = { 'artifactIds', ids, field, '[' .. ARGV[9] .. ']' }
elseif ARGV[10] == '1' then
  set = { field, string.sub(got[4], 1, -2) .. ',' .. ARGV[9] .. ']' }
else
  set = { field, '[' .. ARGV[9] .. ']' }
end
if ARGV[6] ~= '' then
  local patches = got[6]
  if not patches or patches == '[]' then patches = '[' .. ARGV[6] .. ']' else patches = string.sub(patches, 1, -2) .. ',' .. ARGV[6] .. ']' end
  set[#set + 1] = 'metadataPatches'
  set[#set + 1] = patches
end
local id = redis.call('XADD', KEYS[3], 'MAXLEN', '~', ARGV[5], '*', 'event', ARGV[2])
if not artifact and ARGV[11] ~= '' and redis.call('HSETNX', KEYS[1], 'message:' .. ARGV[11], '1') == 1 then
  redis.call('RPUSH', KEYS[2], ARGV[12])
end
set[#set + 1] = 'lastEventId'
set[#set + 1] = id
set[#set + 1] = 'updatedAtMs'
set[#set + 1] = ARGV[3]
if ARGV[7] ~= '' then
  set[#set + 1] = idem
  set[#set + 1] = id
end
redis.call('HSET', KEYS[1], unpack(set))
if ARGV[4] ~= '' then
  for k = 1, 3 do redis.call('EXPIRE', KEYS[k], ARGV[4]) end
end
return id
`);

/* KEYS[1] snapshot, KEYS[2] history. ARGV[1] message id, [2] message JSON, [3] now ms, [4] ttl s. */
const APPEND_HISTORY = defineScript(`
if redis.call('EXISTS', KEYS[1]) == 0 then return redis.error_reply('A2A_NO_TASK') end
if redis.call('HSETNX', KEYS[1], 'message:' .. ARGV[1], '1') == 0 then return 0 end
redis.call('RPUSH', KEYS[2], ARGV[2])
redis.call('HSET', KEYS[1], 'updatedAtMs', ARGV[3])
redis.call('EXPIRE', KEYS[1], ARGV[4])
redis.call('EXPIRE', KEYS[2], ARGV[4])
return 1
`);

/*
 * KEYS[1] snapshot, KEYS[2] cancel flag. Returns false for no task, else { cancel flag (0 or 1),
 * status JSON or '', then the chunks JSON of each artifact, in the order of its ids }.
 */
const ROUND_END = defineScript(`
local fields = redis.call('HMGET', KEYS[1], 'owner', 'status', 'artifactIds')
if not fields[1] then return false end
local out = { redis.call('EXISTS', KEYS[2]), fields[2] or '' }
if fields[3] and fields[3] ~= '[]' then
  for _, id in ipairs(cjson.decode(fields[3])) do
    out[#out + 1] = redis.call('HGET', KEYS[1], 'artifact:' .. id) or '[]'
  end
end
return out
`);

/* KEYS[1] snapshot, KEYS[2] cancel flag. ARGV[1] ttl s. */
const REQUEST_CANCEL = defineScript(`
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('SET', KEYS[2], '1', 'EX', ARGV[1])
return 1
`);

/** One stored piece of an artifact: a replace (`append: false`) or parts to add. */
interface ArtifactChunk {
  readonly append: boolean;
  readonly artifact: Artifact;
}

/**
 * Creates the task log.
 *
 * @example
 * const log = createTaskLog({ redis, prefix: '{switchboard}' });
 * await log.create(task, 'peer-1');
 * await log.append(task.id, { kind: 'statusUpdate', data: { taskId: task.id, contextId, status, metadata: {} } });
 */
export function createTaskLog(options: TaskLogOptions): TaskLog {
  const { redis, prefix } = options;
  const ttlSeconds = options.ttlSeconds ?? DEFAULT_TTL_SECONDS;
  const maxEvents = options.maxEvents ?? DEFAULT_MAX_EVENTS;
  const now = options.now ?? Date.now;
  const expiries = expiryMemo(1000 * (options.expiryRefreshSeconds ?? Math.min(3600, ttlSeconds / 10)), now);

  const taskKey = (taskId: string): string => `${prefix}:a2a:task:${taskId}`;
  const historyKey = (taskId: string): string => `${taskKey(taskId)}:history`;
  const eventsKey = (taskId: string): string => `${taskKey(taskId)}:events`;
  const cancelKey = (taskId: string): string => `${taskKey(taskId)}:cancel`;
  const peerKey = (owner: string): string => `${prefix}:a2a:peer:${owner}:tasks`;

  // Each task's two reads are sent in the same tick, so they leave in one write and come back in
  // one round trip. Not a pipeline object: making one copies every command onto it, which cost
  // more than the reads (several loads a message on the A2A path).
  function loadMany(taskIds: readonly string[]): Promise<(LoadedTask | undefined)[]> {
    return Promise.all(
      taskIds.map(async (taskId) => {
        const [hash, history] = await Promise.all([redis.hgetall(taskKey(taskId)), redis.lrange(historyKey(taskId), 0, -1)]);
        return assemble(hash, history);
      }),
    );
  }

  async function readStreams(cursors: ReadonlyMap<string, string>, read: ReadOptions): Promise<Map<string, TaskLogEntry[]>> {
    const taskIds = [...cursors.keys()];
    const byKey = new Map(taskIds.map((taskId) => [eventsKey(taskId), taskId]));
    const args: (string | number)[] = ['COUNT', read.count ?? DEFAULT_READ_COUNT];
    if (read.blockMs !== undefined) args.push('BLOCK', read.blockMs);
    args.push('STREAMS', ...byKey.keys(), ...taskIds.map((taskId) => cursors.get(taskId) ?? '0'));
    const reply = await (read.redis ?? redis).call('XREAD', args);
    const result = new Map<string, TaskLogEntry[]>();
    for (const [key, items] of streamsOf(reply)) {
      const taskId = byKey.get(key);
      if (taskId === undefined) continue;
      const entries = decodeEntries(items);
      if (entries.length > 0) result.set(taskId, entries);
    }
    return result;
  }

  async function runCreate(task: Task, owner: string, merge: boolean): Promise<unknown> {
    if (owner === '') throw new SwitchboardError('internal', 'A task needs an owner.', { details: { taskId: task.id } });
    const at = now();
    const status = task.status;
    const history = task.history;
    const artifacts = foldDuplicateArtifacts(task.artifacts);
    const args: (string | number)[] = [
      owner,
      at,
      ttlSeconds,
      JSON.stringify({ id: task.id, contextId: task.contextId, metadata: task.metadata ?? {} }),
      status === undefined ? '' : JSON.stringify(status),
      status?.state ?? 0,
      statusTimeMs(status),
      JSON.stringify(artifacts.map((artifact) => artifact.artifactId)),
      task.id,
      history.length,
      merge ? '1' : '0',
    ];
    for (const message of history) args.push(message.messageId, JSON.stringify(message));
    args.push(artifacts.length);
    for (const artifact of artifacts) args.push(artifact.artifactId, JSON.stringify([{ append: false, artifact } satisfies ArtifactChunk]));
    return runScript(redis, CREATE, [taskKey(task.id), historyKey(task.id), peerKey(owner)], args);
  }

  return {
    async create(task, owner) {
      return (await runCreate(task, owner, false)) === 1;
    },

    async createOrAddHistory(task, owner) {
      const reply = await runCreate(task, owner, true);
      return reply === 1 ? 'created' : reply === 0 ? 'existing' : 'foreign';
    },

    async append(taskId, event, idempotencyKey) {
      const refresh = expiries.due(taskId);
      const common = (metadata: Record<string, unknown> | undefined): (string | number)[] => [
        JSON.stringify({ kind: event.kind, data: event.data }),
        now(),
        refresh ? ttlSeconds : '',
        maxEvents,
        metadata === undefined || Object.keys(metadata).length === 0 ? '' : JSON.stringify(metadata),
        idempotencyKey === undefined || idempotencyKey === '' ? '' : shortDigest(idempotencyKey, 16),
      ];
      let args: (string | number)[];
      if (event.kind === 'statusUpdate') {
        const { status, metadata } = event.data;
        if (status === undefined) throw new SwitchboardError('internal', 'A status update needs a status.', { details: { taskId } });
        const message = status.message;
        args = ['status', ...common(metadata), JSON.stringify(status), status.state, statusTimeMs(status), message?.messageId ?? '', message === undefined ? '' : JSON.stringify(message)];
      } else if (event.kind === 'artifactUpdate') {
        const { artifact, metadata } = event.data;
        if (artifact === undefined) throw new SwitchboardError('internal', 'An artifact update needs an artifact.', { details: { taskId } });
        const append = event.data.append;
        const chunk: ArtifactChunk = { append, artifact };
        args = ['artifact', ...common(metadata), artifact.artifactId, JSON.stringify(chunk), append ? '1' : '0', JSON.stringify(artifact.artifactId)];
      } else {
        throw new SwitchboardError('internal', `Only status and artifact updates are appended to a task, not "${event.kind}".`, { details: { taskId } });
      }
      try {
        const reply = await runScript(redis, APPEND, [taskKey(taskId), historyKey(taskId), eventsKey(taskId)], args);
        // A refused append (the task ended) wrote nothing; a repeat found what an append wrote.
        if (refresh && typeof reply === 'string') expiries.set(taskId);
        return typeof reply === 'string' ? reply : undefined;
      } catch (error) {
        throw noTaskOr(error, taskId);
      }
    },

    async appendHistory(taskId, message) {
      try {
        const reply = await runScript(redis, APPEND_HISTORY, [taskKey(taskId), historyKey(taskId)], [message.messageId, JSON.stringify(message), now(), ttlSeconds]);
        return reply === 1;
      } catch (error) {
        throw noTaskOr(error, taskId);
      }
    },

    async load(taskId, owner) {
      const [loaded] = await loadMany([taskId]);
      if (loaded === undefined || (owner !== undefined && loaded.owner !== owner)) return undefined;
      return loaded;
    },

    async streamStart(taskId) {
      const [id, state, status, base] = await redis.hmget(taskKey(taskId), 'lastEventId', 'state', 'status', 'base');
      const lastEventId = id === null || id === '' ? undefined : id;
      if (!TERMINAL_STATES.has(Number(state)) || !status || !base) return { lastEventId, ended: undefined };
      const { contextId } = JSON.parse(base) as Pick<Task, 'contextId'>;
      return { lastEventId, ended: { kind: 'statusUpdate', data: { taskId, contextId, status: JSON.parse(status) as TaskStatus, metadata: {} } } };
    },

    async list(owner, listOptions = {}) {
      const pageSize = listOptions.pageSize ?? DEFAULT_PAGE_SIZE;
      const ids = await redis.zrevrange(peerKey(owner), 0, -1, 'WITHSCORES');
      const entries: { id: string; score: number }[] = [];
      for (let index = 0; index + 1 < ids.length; index += 2) entries.push({ id: ids[index] ?? '', score: Number(ids[index + 1]) });
      const pipeline = redis.pipeline();
      for (const entry of entries) pipeline.hmget(taskKey(entry.id), 'owner', 'state', 'statusAtMs', 'base');
      const facts = (await pipeline.exec()) ?? [];
      const gone: string[] = [];
      const after = listOptions.statusTimestampAfter ? Date.parse(listOptions.statusTimestampAfter) : undefined;
      const wantedState: number | undefined = listOptions.status;
      const matching = entries.filter((entry, index) => {
        const [error, values] = facts[index] ?? [];
        if (error) throw error;
        const [storedOwner, state, statusAtMs, base] = values as (string | null)[];
        if (storedOwner !== owner) {
          gone.push(entry.id);
          return false;
        }
        if (wantedState !== undefined && wantedState !== 0 && Number(state) !== wantedState) return false;
        if (after !== undefined && !(Number(statusAtMs) > after)) return false;
        if (listOptions.contextId) return (JSON.parse(base ?? '{}') as { contextId?: string }).contextId === listOptions.contextId;
        return true;
      });
      if (gone.length > 0) await redis.zrem(peerKey(owner), ...gone);
      let start = 0;
      if (listOptions.pageToken) {
        const cursor = decodePageToken(listOptions.pageToken);
        start = cursor === undefined ? matching.length : matching.findIndex((entry) => isAfter(entry, cursor));
        if (start === -1) start = matching.length;
      }
      const page = matching.slice(start, start + pageSize);
      const loaded = await loadMany(page.map((entry) => entry.id));
      const tasks = loaded.filter((item): item is LoadedTask => item !== undefined).map(({ task }) => (listOptions.includeArtifacts === true ? task : { ...task, artifacts: [] }));
      const last = page.at(-1);
      const nextPageToken = last !== undefined && start + pageSize < matching.length ? encodePageToken(last) : '';
      return { tasks, nextPageToken, pageSize, totalSize: matching.length };
    },

    async read(taskId, afterId, read = {}) {
      const result = await readStreams(new Map([[taskId, afterId]]), read);
      return result.get(taskId) ?? [];
    },

    readMany(cursors, read = {}) {
      if (cursors.size === 0) return Promise.resolve(new Map());
      return readStreams(cursors, read);
    },

    async requestCancel(taskId) {
      return (await runScript(redis, REQUEST_CANCEL, [taskKey(taskId), cancelKey(taskId)], [ttlSeconds])) === 1;
    },

    async cancelRequested(taskId) {
      return (await redis.exists(cancelKey(taskId))) === 1;
    },

    async roundEnd(taskId) {
      const reply = (await runScript(redis, ROUND_END, [taskKey(taskId), cancelKey(taskId)], [])) as [number, string, ...string[]] | null;
      if (reply === null) return undefined;
      const [canceled, status, ...chunks] = reply;
      const artifacts = chunks.flatMap((json) => {
        const parsed = JSON.parse(json) as ArtifactChunk[];
        return parsed.length === 0 ? [] : [foldChunks(parsed)];
      });
      return { status: status === '' ? undefined : (JSON.parse(status) as TaskStatus), artifacts, canceled: canceled === 1 };
    },
  };
}

/** Whether a task in `state` will not change state any more. */
export function isTerminalState(state: TaskState | undefined): boolean {
  return state !== undefined && TERMINAL_STATES.has(state);
}

function statusTimeMs(status: TaskStatus | undefined): number {
  const parsed = status?.timestamp === undefined ? Number.NaN : Date.parse(status.timestamp);
  return Number.isNaN(parsed) ? 0 : parsed;
}

function noTaskOr(error: unknown, taskId: string): unknown {
  if (error instanceof Error && error.message.includes('A2A_NO_TASK')) {
    return new SwitchboardError('internal', `A2A task ${taskId} does not exist (or expired).`, { details: { taskId, reason: 'no_task' } });
  }
  return error;
}

/** The artifacts of a new task, one per id (a later one with the same id replaces the earlier). */
function foldDuplicateArtifacts(artifacts: readonly Artifact[]): Artifact[] {
  const byId = new Map<string, Artifact>();
  for (const artifact of artifacts) byId.set(artifact.artifactId, artifact);
  return [...byId.values()];
}

/** The task from its snapshot hash and history list; `undefined` when the hash is empty. */
function assemble(hash: Record<string, string> | null, history: string[] | null): LoadedTask | undefined {
  if (hash === null) return undefined;
  const { owner, base } = hash;
  if (owner === undefined || base === undefined) return undefined;
  const core = JSON.parse(base) as Pick<Task, 'id' | 'contextId' | 'metadata'>;
  const patches = JSON.parse(hash['metadataPatches'] ?? '[]') as Record<string, unknown>[];
  const metadata = patches.reduce<Record<string, unknown>>((merged, patch) => ({ ...merged, ...patch }), { ...(core.metadata ?? {}) });
  const ids = JSON.parse(hash['artifactIds'] ?? '[]') as string[];
  const artifacts = ids.flatMap((id) => {
    const chunks = hash[`artifact:${id}`];
    return chunks === undefined ? [] : [foldChunks(JSON.parse(chunks) as ArtifactChunk[])];
  });
  const status = hash['status'] ? (JSON.parse(hash['status']) as TaskStatus) : undefined;
  const task: Task = {
    id: core.id,
    contextId: core.contextId,
    status,
    artifacts,
    history: (history ?? []).map((json) => JSON.parse(json) as Message),
    metadata,
  };
  const lastEventId = hash['lastEventId'];
  return { task, owner, lastEventId: lastEventId === undefined || lastEventId === '' ? undefined : lastEventId };
}

/** An artifact from its chunks, as the SDK's `ResultManager` merges an `append` update. */
function foldChunks(chunks: readonly ArtifactChunk[]): Artifact {
  let artifact: Artifact | undefined;
  for (const chunk of chunks) {
    const next = chunk.artifact;
    if (artifact === undefined || !chunk.append) {
      artifact = { ...next, parts: [...next.parts] };
      continue;
    }
    artifact = {
      ...artifact,
      parts: [...artifact.parts, ...next.parts],
      ...(next.name ? { name: next.name } : {}),
      ...(next.description ? { description: next.description } : {}),
      ...(next.metadata ? { metadata: { ...artifact.metadata, ...next.metadata } } : {}),
    };
  }
  if (artifact === undefined) throw new SwitchboardError('internal', 'A stored artifact has no chunks.');
  return artifact;
}

/**
 * The (key, entries) pairs of an `XREAD` reply sent with `call` (no reply transformer): a list of
 * pairs in RESP2, a map (flattened to key, value, key, value) in RESP3.
 */
function streamsOf(reply: unknown): [string, unknown[]][] {
  if (!Array.isArray(reply)) return [];
  const items = reply as unknown[];
  const pairs: [string, unknown[]][] = [];
  if (Array.isArray(items[0])) {
    for (const item of items) if (Array.isArray(item) && Array.isArray(item[1])) pairs.push([String(item[0]), item[1] as unknown[]]);
    return pairs;
  }
  for (let index = 0; index + 1 < items.length; index += 2) {
    const value = items[index + 1];
    if (Array.isArray(value)) pairs.push([String(items[index]), value as unknown[]]);
  }
  return pairs;
}

function decodeEntries(items: readonly unknown[]): TaskLogEntry[] {
  const entries: TaskLogEntry[] = [];
  for (const item of items) {
    if (!Array.isArray(item) || typeof item[0] !== 'string' || !Array.isArray(item[1])) continue;
    const fields = item[1] as unknown[];
    const json = fields[fields.indexOf('event') + 1];
    if (typeof json !== 'string') continue;
    try {
      const event = JSON.parse(json) as { kind?: unknown };
      if (event.kind === 'statusUpdate' || event.kind === 'artifactUpdate') entries.push({ id: item[0], event: event as TaskLogEvent });
    } catch {
      // An undecodable entry is skipped; the snapshot still has its effect.
    }
  }
  return entries;
}

interface PageCursor {
  readonly id: string;
  readonly score: number;
}

function encodePageToken(cursor: PageCursor): string {
  return Buffer.from(JSON.stringify([cursor.score, cursor.id])).toString('base64url');
}

function decodePageToken(token: string): PageCursor | undefined {
  try {
    const value = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as unknown;
    if (Array.isArray(value) && typeof value[0] === 'number' && typeof value[1] === 'string') return { score: value[0], id: value[1] };
  } catch {
    // Not a token of ours: an empty page.
  }
  return undefined;
}

/** Whether `entry` comes after `cursor` in the list's order (score, then id, both descending). */
function isAfter(entry: PageCursor, cursor: PageCursor): boolean {
  if (entry.score !== cursor.score) return entry.score < cursor.score;
  return Buffer.compare(Buffer.from(entry.id), Buffer.from(cursor.id)) < 0;
}
