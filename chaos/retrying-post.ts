/**
 * A POST retried the way a careful client retries: on a lost connection, a 5xx or a 429, with the
 * same body (the message id makes a repeat harmless), until an answer that settles it or a deadline.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { JsonPoster, Posted } from '../bench/http-post.ts';

/** First pause between two tries, in ms; doubled each time up to {@link MAX_BACKOFF_MS}. */
const FIRST_BACKOFF_MS = 50;
const MAX_BACKOFF_MS = 1_000;

/** What a retried POST came to. */
export interface RetriedPost {
  /** The settling answer, or `undefined` when the deadline passed first. */
  readonly answer: Posted | undefined;
  /** Tries made, the last one included. */
  readonly attempts: number;
}

/** Whether an answer is worth another try: the service or its Redis was away. */
function transient(status: number): boolean {
  return status >= 500 || status === 429;
}

/** Posts `body` until an answer other than a transient one, or until `deadline` (ms since the epoch). */
export async function postUntilSettled(post: JsonPoster, path: string, body: unknown, headers: Readonly<Record<string, string>>, deadline: number): Promise<RetriedPost> {
  let backoffMs = FIRST_BACKOFF_MS;
  for (let attempts = 1; ; attempts += 1) {
    const answer = await post(path, body, headers).catch(() => undefined);
    if (answer !== undefined && !transient(answer.status)) return { answer, attempts };
    if (Date.now() + backoffMs > deadline) return { answer: undefined, attempts };
    await sleep(backoffMs);
    backoffMs = Math.min(backoffMs * 2, MAX_BACKOFF_MS);
  }
}
