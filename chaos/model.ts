/**
 * The chaos run's model: the fake Anthropic server (the real SDK in the workers talks to it over
 * loopback) with a script that echoes the message ids it is given, after a latency chosen per call
 * by the seed. It also plays a provider storm: a share of calls is first refused with 529 or 500
 * (the SDK retries them), and every call of a `#storm` message is refused with 529 (the turn ends
 * in an `error` part). A `#approve` message first calls the approval tool.
 */
import { startFakeAnthropic } from '../test/fakes/fake-anthropic.ts';
import type { FakeAnthropic, FakeMessageRequest, FakeReply } from '../test/fakes/fake-anthropic-types.ts';
import { part, reply, respond, toolCall } from '../test/support/scenario-model.ts';
import type { ChaosPlan } from './plan.ts';
import { hashUnit } from './random.ts';

/** What the model saw of the provider storm. */
export interface StormCounts {
  /** Calls refused once with 529 or 500 (transient storm). */
  readonly transientRefusals: number;
  /** Model calls answered after a transient refusal of the same call (the SDK's retry worked). */
  readonly retriedOk: number;
  /** Calls of `#storm` messages, all refused with 529. */
  readonly persistentRefusals: number;
}

/** One model call, as the fake answered it. */
export interface ModelCall {
  /** The message ids of the call's turn. */
  readonly ids: readonly string[];
  /** The process that made it (the API key it sent: `worker-<n>`). */
  readonly worker: string;
  /** When the call reached the fake, ms since the epoch. */
  readonly at: number;
  /** The call asks for the approval tool: its turn then waits for a decision, on no worker. */
  readonly asksApproval: boolean;
  /** A `#storm` call: refused, its turn ends in an error part rather than an answer. */
  readonly storm: boolean;
}

/** The running fake model. */
export interface ChaosModel {
  readonly url: string;
  counts(): StormCounts;
  /** Every call, in order. */
  calls(): readonly ModelCall[];
  /** What went wrong on the fake's side (a script that threw): must stay empty. */
  problems(): readonly string[];
  close(): Promise<void>;
}

interface RequestBlock {
  readonly type: string;
  readonly text?: string;
}

interface RequestMessage {
  readonly role: string;
  readonly content: string | readonly RequestBlock[];
}

/** What one call is about: the message ids of its turn and whether the approval tool has answered. */
interface CallFacts {
  readonly ids: readonly string[];
  readonly texts: string;
  readonly afterTool: boolean;
}

const MESSAGE_ID = /\bm:(\S+)/g;

function blocksOf(message: RequestMessage): readonly RequestBlock[] {
  return typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content;
}

/** Reads the ids from the turn's message: the last user message that carries text. */
function factsOf(request: FakeMessageRequest): CallFacts {
  const messages = request.body.messages as unknown as readonly RequestMessage[];
  const last = messages.at(-1);
  // A turn's first call ends with the person's text (after the results of the previous turn's
  // calls); a later call of the turn ends with tool results alone.
  const afterTool = last !== undefined && !blocksOf(last).some((block) => block.type === 'text');
  const turnMessage = messages.findLast((message) => message.role === 'user' && blocksOf(message).some((block) => block.type === 'text'));
  const texts = turnMessage === undefined ? '' : blocksOf(turnMessage).flatMap((block) => (block.type === 'text' ? [block.text ?? ''] : [])).join('\n');
  return { ids: [...texts.matchAll(MESSAGE_ID)].map((match) => match[1] ?? ''), texts, afterTool };
}

/** The API key a call came with (this SDK sends it as a bearer token). */
function callerOf(request: FakeMessageRequest): string {
  const { headers } = request;
  return headers['x-api-key'] ?? (headers['authorization'] ?? '').replace(/^Bearer /, '');
}

/** Starts the fake model for `plan`. */
export async function startChaosModel(plan: ChaosPlan): Promise<ChaosModel> {
  const attempts = new Map<string, number>();
  const refusedOnce = new Set<string>();
  let transientRefusals = 0;
  let retriedOk = 0;
  let persistentRefusals = 0;
  const calls: ModelCall[] = [];
  const [minMs, maxMs] = plan.modelLatencyMs;

  const answer = (request: FakeMessageRequest): FakeReply => {
    const facts = factsOf(request);
    const asksApproval = facts.texts.includes('#approve') && !facts.afterTool;
    const storm = facts.texts.includes('#storm');
    calls.push({ ids: facts.ids, worker: callerOf(request), at: Date.now(), asksApproval, storm });
    const key = `${facts.ids.join(',')}|${facts.afterTool ? 'result' : 'ask'}`;
    const attempt = attempts.get(key) ?? 0;
    attempts.set(key, attempt + 1);
    const delayMs = minMs + Math.floor(hashUnit(plan.seed, `${key}#${attempt}`) * (maxMs - minMs));
    if (storm) {
      persistentRefusals += 1;
      return { delayMs, error: { status: 529, type: 'overloaded_error', message: 'Overloaded (chaos storm)', retryAfterSeconds: 0.05 } };
    }
    if (attempt === 0 && hashUnit(plan.seed + 1, key) < plan.flakyShare) {
      transientRefusals += 1;
      refusedOnce.add(key);
      const overloaded = hashUnit(plan.seed + 2, key) < 0.5;
      const error = overloaded
        ? { status: 529, type: 'overloaded_error', message: 'Overloaded (chaos)', retryAfterSeconds: 0.05 }
        : { status: 500, type: 'api_error', message: 'Internal server error (chaos)', retryAfterSeconds: 0.05 };
      return { delayMs, error };
    }
    if (refusedOnce.delete(key)) retriedOk += 1;
    const echo = `re ${facts.ids.join(' ')}`;
    if (asksApproval) {
      return { ...reply(respond([part('ack', `Asking for approval: ${facts.ids.join(' ')}`)], 'awaiting'), toolCall('chaos_pay', { ref: facts.ids[0] ?? '' })), delayMs };
    }
    return { ...reply(respond([part('response', facts.afterTool ? `${echo} paid` : echo)], 'complete')), delayMs };
  };

  const fake: FakeAnthropic = await startFakeAnthropic({ replies: answer });
  return {
    url: fake.url,
    counts: () => ({ transientRefusals, retriedOk, persistentRefusals }),
    calls: () => calls,
    problems: () => fake.problems,
    close: () => fake.close(),
  };
}
