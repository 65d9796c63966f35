/**
 * What the outage tests share: a model that answers every message by echoing it, requests with a
 * deadline of their own (so a hanging answer fails the test with a message instead of waiting for
 * vitest), and readers of what a conversation was answered.
 */
import type { StoredWebChatEvent } from '../../channels/web/stream/event-store.ts';
import type { FakeScript } from '../fakes/fake-anthropic-types.ts';
import { lastUserText, part, reply, respond } from '../support/scenario-model.ts';
import { waitFor } from '../support/wait-for.ts';
import type { WebClient } from '../web/web-client.ts';

/** How long a request of these tests may take before it counts as hanging, in milliseconds. */
export const REQUEST_DEADLINE_MS = 8_000;

/**
 * How soon a request refused because Redis is away must be answered, in milliseconds: the
 * service's clients fail at once, so anything near {@link REQUEST_DEADLINE_MS} means it waited.
 */
export const FAIL_FAST_MS = 2_000;

/** The latest user text of a model request. */
/** A model that answers each turn with one response part, `Echo: <the person's last text>`. */
export const echoModel: FakeScript = (request) => reply(respond([part('response', `Echo: ${lastUserText(request)}`)], 'complete'));

/** The texts of a conversation's response parts, in order. */
export function responses(events: readonly StoredWebChatEvent[]): string[] {
  return events.flatMap(({ event }) => (event.type === 'part' && event.part.metadata.partType === 'response' ? [event.part.text ?? ''] : []));
}

/** An HTTP answer and how long it took. */
export interface TimedAnswer {
  readonly status: number;
  readonly headers: Headers;
  readonly body: string;
  /** Milliseconds from sending the request to reading the whole answer. */
  readonly elapsedMs: number;
}

/**
 * Sends a request and reads the whole answer, failing with a clear message when it takes longer
 * than {@link REQUEST_DEADLINE_MS} (the service must answer sooner, whatever Redis does).
 */
export async function timedFetch(url: string, init: RequestInit = {}): Promise<TimedAnswer> {
  const started = performance.now();
  try {
    const response = await fetch(url, { ...init, redirect: 'manual', signal: AbortSignal.timeout(REQUEST_DEADLINE_MS) });
    const body = await response.text();
    return { status: response.status, headers: response.headers, body, elapsedMs: performance.now() - started };
  } catch (error) {
    if (error instanceof DOMException && error.name === 'TimeoutError') {
      throw new Error(`${init.method ?? 'GET'} ${url} had no answer within ${String(REQUEST_DEADLINE_MS)} ms: the request hangs instead of failing fast.`, { cause: error });
    }
    throw error;
  }
}

/** Posts a chat message as `browser` (which must have a session) with {@link timedFetch}. */
export function postMessage(browser: WebClient, conversationId: string, text: string, id: string): Promise<TimedAnswer> {
  const csrf = browser.last?.csrfToken;
  if (browser.cookie === undefined || csrf === undefined) throw new Error('postMessage(): the browser needs a session first (await browser.session()).');
  return timedFetch(`${browser.baseUrl}/api/chat/${conversationId}/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', cookie: browser.cookie, 'x-csrf-token': csrf },
    body: JSON.stringify({ text, id }),
  });
}

/** The JSON body of an answer; fails naming the body when it is not JSON. */
export function jsonOf(answer: TimedAnswer): Record<string, unknown> {
  try {
    return JSON.parse(answer.body) as Record<string, unknown>;
  } catch {
    throw new Error(`expected a JSON answer, got ${String(answer.status)}: ${answer.body.slice(0, 200)}`);
  }
}

/**
 * Posts a chat message with {@link postMessage} and, while the answer is 503 (Redis not back yet),
 * sends it again with the same id, as the page's Retry button does: every 250 ms, at most 40 more
 * times. Returns the last answer, whatever its status.
 */
export async function postUntilAccepted(browser: WebClient, conversationId: string, text: string, id: string): Promise<TimedAnswer> {
  let answer = await postMessage(browser, conversationId, text, id);
  for (let tries = 0; answer.status === 503 && tries < 40; tries += 1) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    answer = await postMessage(browser, conversationId, text, id);
  }
  return answer;
}

/** Waits (up to 15 s) until the service at `baseUrl` answers `/readyz` with 200, i.e. is connected to Redis again. */
export async function untilReady(baseUrl: string): Promise<void> {
  await waitFor(async () => (await timedFetch(`${baseUrl}/readyz`)).status === 200, `${baseUrl} is ready again`, 15_000, 50);
}
