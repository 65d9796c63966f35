/** The conversations of a chaos run: who sends what, and when, all fixed by the seed. */
import type { ChaosPlan } from './plan.ts';
import type { Random } from './random.ts';

/** One message a conversation sends. */
export interface ScriptedMessage {
  /** The client message id (`<conversation>_<n>`): a retry sends the same one. */
  readonly id: string;
  /** `m:<id>`, and `#approve` or `#storm` for the model. */
  readonly text: string;
  /** Wait before sending it, counted from the previous message's acceptance, in ms. */
  readonly delayMs: number;
  /** Its answer first needs an approval. */
  readonly approval: boolean;
}

/** One web chat conversation and its messages, in sending order. */
export interface ConversationScript {
  readonly id: string;
  /** `storm`: one message whose every model call is refused; its answer is an `error` part. */
  readonly kind: 'regular' | 'storm';
  readonly messages: readonly ScriptedMessage[];
}

/**
 * The run's conversations: `plan.conversations` regular ones (a share with one `#approve`
 * message) and `plan.stormConversations` one-message storm ones. Messages are spread over
 * `plan.loadMs`: each conversation starts at a random point of its first gap and waits a random
 * 0.5 to 1.5 mean gaps between two messages.
 */
export function scriptConversations(plan: ChaosPlan, random: Random): ConversationScript[] {
  const count = plan.messagesPerConversation;
  const gapMs = plan.loadMs / count;
  const jitter = (): number => Math.round(gapMs * (0.5 + random.next()));
  const regular = Array.from({ length: plan.conversations }, (_, conversation): ConversationScript => {
    const id = `chaos-${conversation}`;
    const approvalAt = random.next() < plan.approvalShare ? random.between(0, count - 1) : -1;
    const messages = Array.from({ length: count }, (_, index): ScriptedMessage => {
      const messageId = `${id}_${index}`;
      const approval = index === approvalAt;
      const delayMs = index === 0 ? Math.round(gapMs * random.next()) : jitter();
      return { id: messageId, text: `m:${messageId}${approval ? ' #approve' : ''}`, delayMs, approval };
    });
    return { id, kind: 'regular', messages };
  });
  const storms = Array.from({ length: plan.stormConversations }, (_, conversation): ConversationScript => {
    const id = `storm-${conversation}`;
    const delayMs = Math.round(plan.loadMs * random.next() * 0.9);
    return { id, kind: 'storm', messages: [{ id: `${id}_0`, text: `m:${id}_0 #storm`, delayMs, approval: false }] };
  });
  return [...regular, ...storms];
}
