import type { Redis } from 'ioredis';
import { expiryMemo } from '../memo/expiry-memo.ts';

/** The kinds of entries in a session's event log. */
export type EventLogType =
  | 'injection'
  | 'turn_started'
  | 'turn_resumed'
  | 'model_request'
  | 'model_response'
  | 'part'
  | 'turn_state'
  | 'tool_call'
  | 'specialist_execution'
  | 'router_event'
  | 'protocol_violation'
  | 'delivery'
  /** What became of a settled turn's `llm-context` for a peer: translated (with its duration) or why not. */
  | 'llm_context'
  /**
   * A surface left out of a settled turn's envelope: its template threw or made an invalid surface.
   * Data: `kind`, `surfaceId`, `reason` (`template-threw` or `invalid-surface`), `message`, and
   * `code` or `problems`.
   */
  | 'surface_dropped'
  /**
   * What the sender policy did with a message before it reached the mailbox. Data: `outcome`
   * (`allowed`, `refused`, `pairing-code-sent`, `held`, `blocked`), `mode`, `sender`, `injectionId`,
   * and `reason` or `released` (held messages let through ahead of it) when there is one.
   */
  | 'sender_policy'
  /**
   * An approval of the session's turn was requested, decided or expired. Data: `approvalId`,
   * `event` (`requested`, `decided`, `expired`), `tool`, and `askedVia`, `decidedBy`, `decision`,
   * `evidence` as they apply (`src/runtime/inspect/approval-entries.ts`).
   */
  | 'approval'
  /**
   * A provider's later word on a sent message. Data: `channel`, `providerMessageId`, `status`
   * (`queued`, `sent`, `delivered`, `read`, `failed`, `undelivered`), `errorCode`, `at`
   * (`src/runtime/inspect/delivery-status.ts`).
   */
  | 'delivery_status'
  | 'turn_settled';

/** One entry of the log. */
export interface EventLogEntry {
  readonly type: EventLogType;
  readonly turnId?: string;
  readonly actor?: string;
  /** Anything else; stored as JSON. */
  readonly data: Readonly<Record<string, unknown>>;
}

/** An entry as read back, with its stream id and time. */
export interface StoredEventLogEntry extends EventLogEntry {
  /**
   * The stream entry id (`<ms>-<seq>`); entries written together in one batch share a stream entry
   * and are told apart by `/<n>` (`<ms>-<seq>/1`, `/2`, …) after the first.
   */
  readonly id: string;
  /** Milliseconds since the epoch, from the stream id. */
  readonly at: number;
}

/** Append-only per-session event log. */
export interface EventLog {
  /** Writes one entry now. Resolves to its id. */
  append(sessionId: string, entry: EventLogEntry): Promise<string>;
  /** Reads the oldest `count` entries (default 1000), in order. */
  read(sessionId: string, count?: number): Promise<StoredEventLogEntry[]>;
  /**
   * Writes what a buffering log holds for `sessionId` (see `buffered-event-log.ts`); a log that
   * writes at once has nothing to do.
   */
  flush?(sessionId: string): Promise<void>;
  /**
   * Makes the next `flush` of `sessionId` wait for `write` too: a write made beside the log (a new
   * turn's first save of its record) that, like the log, must be done before anything the turn
   * shows leaves the process. Only a buffering log has it; with any other, the caller awaits
   * `write` itself.
   */
  hold?(sessionId: string, write: Promise<unknown>): void;
  /**
   * Throws, with its error, when a write held for the session's next flush has already failed;
   * does nothing otherwise. Called before a delivery that leaves with the flush rather than after
   * it (`ChannelDelivery.writesInOrder`): a turn whose record could not be saved shows nothing.
   */
  checkHeld?(sessionId: string): void;
}

/**
 * One stream entry of a session's log, made ready for a Lua script of another store to add (the
 * session store's finish adds a turn's last entries in the step that clears the turn):
 * `XADD <key> MAXLEN ~ <maxLen> * <fields…>`, then `EXPIRE <key> <expireSeconds>` when that is set.
 */
export interface StreamWrite {
  readonly key: string;
  readonly maxLen: string;
  readonly fields: readonly string[];
  /** Set when the log's expiry is due again (see `expiryRefreshSeconds`). */
  readonly expireSeconds?: number;
  /** To call with the id the XADD gave: the log notes the expiry and archives the entries. Never rejects. */
  written(id: string): Promise<void>;
}

/** An {@link EventLog} that can also write several entries as one stream entry. */
export interface BatchEventLog extends EventLog {
  /** Writes `entries` in order, as one stream entry (one command) when there are several. */
  appendAll(sessionId: string, entries: readonly EventLogEntry[]): Promise<void>;
  /** `entries` (one at least) as the one stream entry `appendAll` would write, for a script to add. */
  prepare(sessionId: string, entries: readonly EventLogEntry[]): StreamWrite;
}

/**
 * Receives every entry written, after Redis took it: where users who need the whole history keep
 * it (a database, object storage), since Redis keeps only the newest entries of recent sessions.
 */
export type EventLogArchive = (sessionId: string, entries: readonly StoredEventLogEntry[]) => Promise<void>;

/** Options of {@link createEventLog}. */
export interface EventLogOptions {
  readonly redis: Redis;
  /** Key prefix. Default `sb`. */
  readonly prefix?: string;
  /** Approximate number of stream entries kept per session (a batch is one entry). Default 10000. */
  readonly maxEntries?: number;
  /**
   * How long the log of a session is kept after its last entry, in seconds: a session idle this
   * long loses its log. Default 30 days.
   */
  readonly maxAgeSeconds?: number;
  /**
   * Longest JSON kept for one entry's data, in characters; longer data is replaced by
   * `{ truncated: true, head }`. Default 32000 (a `tool_call` keeps up to 16 KB of result).
   */
  readonly maxValueChars?: number;
  /**
   * Removes secrets from an entry's data, as JSON text, before it is written (a `Redactor`'s
   * `json`, `src/runtime/inspect/redact.ts`). Default: written as given.
   */
  readonly redact?: (json: string) => string;
  /** Called with every entry written; see {@link EventLogArchive}. Default none. */
  readonly archive?: EventLogArchive;
  /**
   * Receives a failure of `archive` (the entry is in Redis either way; the write is not failed).
   * Default: ignored.
   */
  readonly onArchiveError?: (error: unknown) => void;
  /**
   * How long after this log last set a session's expiry it sets it again with a write, in
   * seconds: a turn writes its log several times, and each `EXPIRE` was a command of its own.
   * The log then outlives its last entry by between `maxAgeSeconds` less this and
   * `maxAgeSeconds`. Default: an hour, or a tenth of `maxAgeSeconds` when that is shorter.
   */
  readonly expiryRefreshSeconds?: number;
  /** The clock, ms since the epoch. Default `Date.now`. */
  readonly now?: () => number;
}

const BATCH_FIELD = 'batch';

/** What a write's `written` gives when there is no archive to wait for. */
const ARCHIVED: Promise<void> = Promise.resolve();

/** The Redis key of a session's log stream: `<prefix>:s:<session>:log`. */
export function eventLogKey(prefix: string, sessionId: string): string {
  return `${prefix}:s:${sessionId}:log`;
}

/** The event log in Redis Streams: one stream per session, `<prefix>:s:<session>:log`. */
export function createEventLog(options: EventLogOptions): BatchEventLog {
  const { redis } = options;
  const prefix = options.prefix ?? 'sb';
  const maxEntries = String(options.maxEntries ?? 10_000);
  const maxAge = options.maxAgeSeconds ?? 30 * 24 * 3600;
  const maxValueChars = options.maxValueChars ?? 32_000;
  const redact = options.redact ?? ((json: string): string => json);
  const key = (sessionId: string): string => eventLogKey(prefix, sessionId);
  const dataOf = (entry: EventLogEntry): string => {
    const data = redact(JSON.stringify(entry.data));
    return data.length > maxValueChars ? JSON.stringify({ truncated: true, head: data.slice(0, maxValueChars) }) : data;
  };

  const expiries = expiryMemo(1000 * (options.expiryRefreshSeconds ?? Math.min(3600, maxAge / 10)), options.now ?? Date.now);

  const archive = async (sessionId: string, id: string, entries: readonly EventLogEntry[]): Promise<void> => {
    if (options.archive === undefined) return;
    // The archive gets what Redis got: without the secrets `redact` removed.
    const kept = options.redact === undefined ? entries : entries.map((entry) => ({ ...entry, data: JSON.parse(dataOf(entry)) as Record<string, unknown> }));
    try {
      await options.archive(sessionId, expand(id, kept));
    } catch (error) {
      options.onArchiveError?.(error);
    }
  };

  // One entry is written as its own fields; several as one batch field, in order, each entry's
  // data inside it as JSON (not as a string of JSON: that escaped every quote of it a second time).
  const batchItem = (entry: EventLogEntry): string => {
    let item = `{"type":${JSON.stringify(entry.type)}`;
    if (entry.turnId !== undefined) item += `,"turnId":${JSON.stringify(entry.turnId)}`;
    if (entry.actor !== undefined) item += `,"actor":${JSON.stringify(entry.actor)}`;
    return `${item},"data":${dataOf(entry)}}`;
  };
  const fieldsOf = (entries: readonly EventLogEntry[]): string[] => {
    const [first] = entries;
    if (first !== undefined && entries.length === 1) return ['type', first.type, 'turn', first.turnId ?? '', 'actor', first.actor ?? '', 'data', dataOf(first)];
    return [BATCH_FIELD, `[${entries.map(batchItem).join(',')}]`];
  };
  const prepare = (sessionId: string, entries: readonly EventLogEntry[]): StreamWrite => {
    const due = expiries.due(sessionId);
    return {
      key: key(sessionId),
      maxLen: maxEntries,
      fields: fieldsOf(entries),
      ...(due ? { expireSeconds: maxAge } : {}),
      written(id) {
        if (due) expiries.set(sessionId);
        return options.archive === undefined ? ARCHIVED : archive(sessionId, id, entries);
      },
    };
  };
  // The write a script would make, made here: with an expiry due, the two commands are sent in one
  // tick, so they leave in one socket write (the service's clients coalesce a tick's writes).
  const writeAll = async (sessionId: string, entries: readonly EventLogEntry[]): Promise<string> => {
    const stream = prepare(sessionId, entries);
    const added = redis.xadd(stream.key, 'MAXLEN', '~', stream.maxLen, '*', ...stream.fields);
    let id: string | null;
    if (stream.expireSeconds === undefined) id = await added;
    else [id] = await Promise.all([added, redis.expire(stream.key, stream.expireSeconds)]);
    await stream.written(id ?? '');
    return id ?? '';
  };

  return {
    append: (sessionId, entry) => writeAll(sessionId, [entry]),
    async appendAll(sessionId, entries) {
      if (entries.length > 0) await writeAll(sessionId, entries);
    },
    prepare,
    async read(sessionId, count = 1000) {
      const rows = await redis.xrange(key(sessionId), '-', '+', 'COUNT', count);
      return rows.flatMap(([id, fields]) => decodeRow(id, fields)).slice(0, count);
    },
  };
}

function expand(id: string, entries: readonly EventLogEntry[]): StoredEventLogEntry[] {
  const at = Number(id.split('-')[0]);
  return entries.map((entry, index) => ({ ...entry, id: index === 0 ? id : `${id}/${index}`, at }));
}

interface StoredFields {
  readonly type: string;
  readonly turnId?: string | undefined;
  readonly actor?: string | undefined;
  /** JSON text: a single entry's field, or a batch's entry as written before the data went in as JSON. */
  readonly data: string | Record<string, unknown>;
}

/** The log entries of one stream entry as XRANGE or XREAD gives it (a batch holds several). */
export function decodeRow(id: string, fields: readonly string[]): StoredEventLogEntry[] {
  const map = new Map<string, string>();
  for (let i = 0; i + 1 < fields.length; i += 2) map.set(fields[i] ?? '', fields[i + 1] ?? '');
  const batch = map.get(BATCH_FIELD);
  const stored: StoredFields[] = batch === undefined
    ? [{ type: map.get('type') ?? 'injection', turnId: map.get('turn'), actor: map.get('actor'), data: map.get('data') ?? '{}' }]
    : (JSON.parse(batch) as StoredFields[]);
  return expand(id, stored.map((entry) => ({
    type: entry.type as EventLogType,
    ...(entry.turnId === undefined || entry.turnId === '' ? {} : { turnId: entry.turnId }),
    ...(entry.actor === undefined || entry.actor === '' ? {} : { actor: entry.actor }),
    data: typeof entry.data === 'string' ? (JSON.parse(entry.data) as Record<string, unknown>) : entry.data,
  })));
}
