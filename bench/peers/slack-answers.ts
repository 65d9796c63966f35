/**
 * What the fake Slack Web API receives, seen from the side (`../paths/http-watch.ts`): every Web
 * API call counted by method, and each `chat.postMessage` read as the answer to the message whose
 * key follows `re ` in its text (the instant model answers `re <text>`), with the time it arrived.
 */
import { portOf, watchRequests } from '../paths/http-watch.ts';

/** Receives each answer: the key it answers and when it reached the fake (`performance.now()`). */
export type AnswerListener = (key: string, at: number) => void;

/** The calls and answers seen so far. */
export interface SlackAnswers {
  /** Web API calls so far, every method together. */
  calls(): number;
  /** Web API calls so far by method (`chat.postMessage`, `users.info`, …). */
  callsByMethod(): ReadonlyMap<string, number>;
  /** How many `chat.postMessage` calls answered `key` so far. */
  answersTo(key: string): number;
  /** `performance.now()` of the last `chat.postMessage`, or `undefined` before the first. */
  lastAnswerAt(): number | undefined;
  /** Routes the answers seen from now on to `listener` (none: `undefined`). */
  listen(listener: AnswerListener | undefined): void;
  /** Forgets the answers (not the call counts), e.g. between runs. */
  clear(): void;
  stop(): void;
}

/** The text a Web API call carried, form-encoded (as `@slack/web-api` sends it) or JSON. */
function textOf(body: string): string {
  if (body.startsWith('{')) {
    const parsed = JSON.parse(body) as { text?: unknown };
    return typeof parsed.text === 'string' ? parsed.text : '';
  }
  return new URLSearchParams(body).get('text') ?? '';
}

/** Watches the fake Slack Web API at `apiUrl` (its `…/api/` URL). */
export function watchSlackAnswers(apiUrl: string): SlackAnswers {
  const byMethod = new Map<string, number>();
  const answers = new Map<string, number>();
  let calls = 0;
  let last: number | undefined;
  let listener: AnswerListener | undefined;
  const stop = watchRequests(portOf(apiUrl), (request) => {
    const method = /^\/api\/([^?]+)/.exec(request.path)?.[1];
    if (method === undefined) return;
    calls += 1;
    byMethod.set(method, (byMethod.get(method) ?? 0) + 1);
    if (method !== 'chat.postMessage') return;
    const key = /^re (\S+)/.exec(textOf(request.body))?.[1];
    if (key === undefined) return;
    answers.set(key, (answers.get(key) ?? 0) + 1);
    last = request.at;
    listener?.(key, request.at);
  });
  return {
    calls: () => calls,
    callsByMethod: () => new Map(byMethod),
    answersTo: (key) => answers.get(key) ?? 0,
    lastAnswerAt: () => last,
    listen(next) {
      listener = next;
    },
    clear() {
      answers.clear();
      last = undefined;
    },
    stop,
  };
}
