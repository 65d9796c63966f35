/**
 * The client side of the chaos run: a sender per conversation posting its messages in order (the
 * next only once the previous was accepted), retrying each until `202`; and, for a message that
 * needs an approval, a decider that waits for the approval card and answers it twice at once.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { JsonPoster } from '../bench/http-post.ts';
import type { WebEventStore } from '../channels/web/stream/event-store.ts';
import type { BrowserHeaders } from './browsers.ts';
import type { ConversationScript, ScriptedMessage } from './conversations.ts';
import { postUntilSettled } from './retrying-post.ts';
import { approvalRequests, readConversation } from './streams.ts';

/** A message the service answered `202` for. */
export interface AcceptedMessage {
  readonly conversation: string;
  readonly id: string;
  /** Its place in the conversation's sending order. */
  readonly index: number;
  /** When the `202` arrived, ms since the epoch. */
  readonly acceptedAt: number;
}

/** A message the service never accepted: refused (4xx) or still failing at the deadline. */
export interface UnacceptedMessage {
  readonly conversation: string;
  readonly id: string;
  /** The refusal's status, or `undefined` when no try got an answer that settled it. */
  readonly status: number | undefined;
}

/** The two concurrent decisions sent for one approval, and what each was answered. */
export interface DecidedApproval {
  readonly conversation: string;
  readonly approvalId: string;
  /** HTTP status of each decision (`undefined`: no settling answer before the deadline). */
  readonly statuses: readonly (number | undefined)[];
}

/** What the client saw. */
export interface LoadOutcome {
  readonly accepted: readonly AcceptedMessage[];
  readonly unaccepted: readonly UnacceptedMessage[];
  readonly approvals: readonly DecidedApproval[];
  /** Approval messages whose card never appeared in time. */
  readonly cardsMissing: readonly string[];
}

/** What the senders need. */
export interface LoadDeps {
  readonly post: JsonPoster;
  readonly store: WebEventStore;
  readonly browsers: ReadonlyMap<string, BrowserHeaders>;
  /** How long one message (or one approval card) may take to go through, in ms. */
  readonly patienceMs: number;
}

/** Sends every conversation's messages; resolves when all are accepted (or given up) and every approval decided. */
export async function runLoad(conversations: readonly ConversationScript[], deps: LoadDeps): Promise<LoadOutcome> {
  const outcome = { accepted: [] as AcceptedMessage[], unaccepted: [] as UnacceptedMessage[], approvals: [] as DecidedApproval[], cardsMissing: [] as string[] };
  const deciders: Promise<void>[] = [];
  const send = async (script: ConversationScript): Promise<void> => {
    const headers = deps.browsers.get(script.id) ?? {};
    for (const [index, message] of script.messages.entries()) {
      await sleep(message.delayMs);
      const accepted = await sendOne(deps, script.id, message, headers);
      if (typeof accepted === 'number') {
        outcome.accepted.push({ conversation: script.id, id: message.id, index, acceptedAt: accepted });
        if (message.approval) deciders.push(decide(deps, script.id, headers, outcome));
      } else {
        outcome.unaccepted.push({ conversation: script.id, id: message.id, status: accepted.status });
      }
    }
  };
  await Promise.all(conversations.map(send));
  await Promise.all(deciders);
  return outcome;
}

/** Posts one message until accepted; the time of the `202`, or why it was not accepted. */
async function sendOne(deps: LoadDeps, conversation: string, message: ScriptedMessage, headers: BrowserHeaders): Promise<number | { status: number | undefined }> {
  const path = `/api/chat/${conversation}/messages`;
  const { answer } = await postUntilSettled(deps.post, path, { text: message.text, id: message.id }, headers, Date.now() + deps.patienceMs);
  if (answer?.status === 202) return Date.now();
  return { status: answer?.status };
}

/** The conversation's approval card (a conversation asks for one at most), polled until `deadline`. */
async function awaitCard(store: WebEventStore, conversation: string, deadline: number): Promise<string | undefined> {
  for (;;) {
    const [approvalId] = approvalRequests(await readConversation(store, conversation));
    if (approvalId !== undefined || Date.now() > deadline) return approvalId;
    await sleep(250);
  }
}

/** Waits for the conversation's approval card, then sends two decisions at once. */
async function decide(deps: LoadDeps, conversation: string, headers: BrowserHeaders, outcome: { approvals: DecidedApproval[]; cardsMissing: string[] }): Promise<void> {
  const approvalId = await awaitCard(deps.store, conversation, Date.now() + deps.patienceMs);
  if (approvalId === undefined) {
    outcome.cardsMissing.push(conversation);
    return;
  }
  const path = `/api/approvals/${approvalId}`;
  const body = { decision: 'granted', conversationId: conversation };
  const twice = await Promise.all([0, 1].map(() => postUntilSettled(deps.post, path, body, headers, Date.now() + deps.patienceMs)));
  outcome.approvals.push({ conversation, approvalId, statuses: twice.map(({ answer }) => answer?.status) });
}
