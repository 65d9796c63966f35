import type { Redis } from 'ioredis';

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
  readonly id: string;
  /** Milliseconds since the epoch, from the stream id. */
  readonly at: number;
}

/** Append-only per-session event log. */
export interface EventLog {
  append(sessionId: string, entry: EventLogEntry): Promise<string>;
  read(sessionId: string, count?: number): Promise<StoredEventLogEntry[]>;
}

/** Options of {@link createEventLog}. */
export interface EventLogOptions {
  readonly redis: Redis;
  /** Key prefix. Default `sb`. */
  readonly prefix?: string;
  /** Approximate number of entries kept per session. Default 10000. */
  readonly maxEntries?: number;
  /** Longest string kept for one field value, in characters; longer values are cut. Default 4000. */
  readonly maxValueChars?: number;
}

/** The event log in Redis Streams: one stream per session, `<prefix>:s:<session>:log`. */
export function createEventLog(options: EventLogOptions): EventLog {
  const { redis } = options;
  const prefix = options.prefix ?? 'sb';
  const maxEntries = options.maxEntries ?? 10_000;
  const maxValueChars = options.maxValueChars ?? 4000;
  const key = (sessionId: string): string => `${prefix}:s:${sessionId}:log`;
  return {
    async append(sessionId, entry) {
      let data = JSON.stringify(entry.data);
      if (data.length > maxValueChars) data = JSON.stringify({ truncated: true, head: data.slice(0, maxValueChars) });
      const id = await redis.xadd(
        key(sessionId),
        'MAXLEN',
        '~',
        String(maxEntries),
        '*',
        'type',
        entry.type,
        'turn',
        entry.turnId ?? '',
        'actor',
        entry.actor ?? '',
        'data',
        data,
      );
      return id ?? '';
    },
    async read(sessionId, count = 1000) {
      const rows = await redis.xrange(key(sessionId), '-', '+', 'COUNT', count);
      return rows.map(([id, fields]) => {
        const map = new Map<string, string>();
        for (let i = 0; i + 1 < fields.length; i += 2) map.set(fields[i] ?? '', fields[i + 1] ?? '');
        const turnId = map.get('turn') ?? '';
        const actor = map.get('actor') ?? '';
        return {
          id,
          at: Number(id.split('-')[0]),
          type: (map.get('type') ?? 'injection') as EventLogType,
          ...(turnId === '' ? {} : { turnId }),
          ...(actor === '' ? {} : { actor }),
          data: JSON.parse(map.get('data') ?? '{}') as Record<string, unknown>,
        };
      });
    },
  };
}
