/**
 * A small Server-Sent Events reader over `fetch` streaming, for tests: it keeps every event,
 * comment and `retry:` line it read, and waits for the next ones with a deadline.
 */

/** One dispatched SSE event. */
interface SseEvent {
  readonly id: string | undefined;
  readonly event: string | undefined;
  readonly data: string;
}

/** An open SSE response being read. */
export interface SseClient {
  readonly response: Response;
  /** Every event read so far. */
  readonly events: readonly SseEvent[];
  /** Every comment line read so far, without the leading colon. */
  readonly comments: readonly string[];
  /** The last `retry:` value read, in milliseconds. */
  readonly retryMs: number | undefined;
  /** Waits until `predicate` holds for what was read, or fails after `timeoutMs` (default 10000). */
  waitFor(predicate: (client: SseClient) => boolean, timeoutMs?: number): Promise<void>;
  /** Waits until at least `count` events were read. */
  waitForEvents(count: number, timeoutMs?: number): Promise<readonly SseEvent[]>;
  /** Aborts the request. */
  close(): void;
}

/** Opens `url` as an event stream. Resolves once the response headers arrived. */
export async function openSse(url: string, headers: Readonly<Record<string, string>> = {}): Promise<SseClient> {
  const abort = new AbortController();
  const response = await fetch(url, { headers: { accept: 'text/event-stream', ...headers }, signal: abort.signal });
  const events: SseEvent[] = [];
  const comments: string[] = [];
  const waiters = new Set<() => void>();
  let retryMs: number | undefined;
  let ended = false;

  const notify = (): void => {
    for (const waiter of [...waiters]) waiter();
  };

  const dispatch = (block: string): void => {
    let id: string | undefined;
    let event: string | undefined;
    const data: string[] = [];
    for (const line of block.split('\n')) {
      if (line.startsWith(':')) {
        comments.push(line.slice(1).trim());
        continue;
      }
      const colon = line.indexOf(':');
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (field === 'id') id = value;
      else if (field === 'event') event = value;
      else if (field === 'data') data.push(value);
      else if (field === 'retry') retryMs = Number(value);
    }
    if (data.length > 0) events.push({ id, event, data: data.join('\n') });
  };

  const pump = async (): Promise<void> => {
    if (response.body === null) return;
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for await (const chunk of response.body as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(chunk, { stream: true });
        let end = buffer.indexOf('\n\n');
        while (end >= 0) {
          dispatch(buffer.slice(0, end));
          buffer = buffer.slice(end + 2);
          end = buffer.indexOf('\n\n');
        }
        notify();
      }
    } catch {
      // Aborted or reset: the stream simply ends.
    } finally {
      ended = true;
      notify();
    }
  };
  void pump();

  const client: SseClient = {
    response,
    events,
    comments,
    get retryMs() {
      return retryMs;
    },
    waitFor(predicate, timeoutMs = 10_000) {
      return new Promise<void>((resolve, reject) => {
        const check = (): void => {
          if (predicate(client)) {
            finish();
            resolve();
          } else if (ended) {
            finish();
            reject(new Error(`The event stream ended before the condition held (${events.length} events read).`));
          }
        };
        const timer = setTimeout(() => {
          finish();
          reject(new Error(`Timed out after ${timeoutMs} ms waiting on the event stream (${events.length} events read).`));
        }, timeoutMs);
        const finish = (): void => {
          clearTimeout(timer);
          waiters.delete(check);
        };
        waiters.add(check);
        check();
      });
    },
    async waitForEvents(count, timeoutMs) {
      await client.waitFor(() => events.length >= count, timeoutMs);
      return events;
    },
    close() {
      abort.abort();
    },
  };
  return client;
}
