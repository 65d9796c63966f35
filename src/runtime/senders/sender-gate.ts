/**
 * The sender policy at the intake: runs on every message a channel takes in, before it reaches a
 * session's mailbox, so that a refused or unpaired sender costs no turn and no model call.
 *
 * Only messages and surface actions (`message`, `user-action`) of a channel with a policy are
 * asked about; decisions (`APPROVE K7QX3M`, a button) are routed before the gate and answered by
 * the approval store, which checks the approver itself. Peers (`a2a`) have their own bearer tokens.
 */
import type { Destination, Injection } from '../injection.ts';
import type { AcceptGuard } from '../session/session-store.ts';
import { compileSenderPolicy, type CompiledSenderPolicy, type SenderPolicy } from './sender-policy.ts';
import type { AdmitResult, SenderStore } from './sender-store.ts';
import { releaseHeld } from './release-held.ts';

/** What the gate did with one message: the label of the metric and of the event log entry. */
export type SenderOutcome = 'allowed' | 'refused' | 'pairing-code-sent' | 'held' | 'blocked';

/** What {@link SenderGate.admit} resolves to. */
export type Admission = { readonly admitted: true } | { readonly admitted: false; readonly duplicate: boolean };

/** One decision of the gate, for the metrics and the session's event log. */
export interface SenderOutcomeEvent {
  readonly outcome: SenderOutcome;
  readonly injection: Injection;
  readonly policy: SenderPolicy;
  /** Why, in a few words (`unverified sender`, `code already sent`, `codes for today used up`). */
  readonly reason?: string;
  /** Held messages let through ahead of this one (a sender approved since). */
  readonly released?: number;
}

/** Options of {@link createSenderGate}. */
export interface SenderGateOptions {
  /** The policy of each channel that has one (by channel id); other channels pass. */
  readonly policies: Readonly<Record<string, SenderPolicy>>;
  readonly store: SenderStore;
  /**
   * Sends a short notice to the sender through the channel's normal outbound path; `key` is the
   * idempotency key (one per code, one per refusal a day).
   */
  readonly notify: (destination: Destination, text: string, key: string) => Promise<void>;
  /** Puts a message into its session's mailbox and asks for a turn (held messages, once approved). */
  readonly accept: (injection: Injection) => Promise<unknown>;
  /** Told about each decision (metrics, the event log). Its failure fails the intake. */
  readonly onOutcome?: (event: SenderOutcomeEvent) => Promise<void>;
  readonly clock?: () => Date;
}

/**
 * How a message may skip {@link SenderGate.admit}: `free` when the gate has nothing to ask about
 * it; `guarded` when the policy lets its sender in by itself, so that a block or held messages are
 * all that could stop it: an accept guarded by `guard` checks them in its own script, and, once it
 * stored the message, `allowed()` tells what {@link SenderGate.admit} would have told. Otherwise
 * (`admit`) the gate decides first.
 */
export type QuickAdmission =
  | { readonly way: 'free' }
  | { readonly way: 'guarded'; readonly guard: AcceptGuard; allowed(): Promise<void> }
  | { readonly way: 'admit' };

/** The gate; see {@link createSenderGate}. */
export interface SenderGate {
  /** Decides about `injection`; `admitted: true` when it may go on to its mailbox. */
  admit(injection: Injection): Promise<Admission>;
  /** Whether `injection` can skip {@link admit}, and how; see {@link QuickAdmission}. */
  quick(injection: Injection): QuickAdmission;
}

/** The text of a pairing code message; short enough for one SMS segment. */
export function pairingNotice(code: string, ttlMinutes: number): string {
  const plural = (count: number, unit: string): string => `${String(count)} ${unit}${count === 1 ? '' : 's'}`;
  const lasts = ttlMinutes % 60 === 0 ? plural(ttlMinutes / 60, 'hour') : plural(ttlMinutes, 'minute');
  return `This assistant does not know you yet. Your pairing code is ${code}: ask its operator to approve it within ${lasts}. Your message will be answered then.`;
}

/** The text of a refusal. */
export const REFUSAL_NOTICE = 'Sorry, this assistant only answers people it has been told about, so your message was not passed on.';

const GATED_KINDS: ReadonlySet<Injection['kind']> = new Set(['message', 'user-action']);

/**
 * Creates the gate.
 *
 * @example
 * const gate = createSenderGate({ policies, store, notify, accept: (injection) => acceptIntoMailbox(intake, injection) });
 * const admission = await gate.admit(injection);
 * if (admission.admitted) await acceptIntoMailbox(intake, injection);
 */
export function createSenderGate(options: SenderGateOptions): SenderGate {
  const policies = new Map<string, CompiledSenderPolicy>(Object.entries(options.policies).map(([channel, policy]) => [channel, compileSenderPolicy(policy)]));
  const clock = options.clock ?? (() => new Date());
  const report = async (event: SenderOutcomeEvent): Promise<void> => {
    await options.onOutcome?.(event);
  };

  const settle = async (result: AdmitResult, injection: Injection, policy: CompiledSenderPolicy): Promise<Admission> => {
    const channel = injection.channel;
    const address = injection.sender.id;
    switch (result.outcome) {
      case 'duplicate':
        return { admitted: false, duplicate: true };
      case 'blocked':
        await report({ outcome: 'blocked', injection, policy });
        return { admitted: false, duplicate: false };
      case 'allowed': {
        const released = result.heldWaiting > 0 ? await releaseHeld({ store: options.store, accept: options.accept }, channel, address) : 0;
        await report({ outcome: 'allowed', injection, policy, ...(released > 0 ? { released } : {}) });
        return { admitted: true };
      }
      case 'refused': {
        const day = clock().toISOString().slice(0, 10);
        if (result.notify) await options.notify(injection.replyTo, REFUSAL_NOTICE, `senders:refusal:${channel}:${address}:${day}`);
        await report({ outcome: 'refused', injection, policy, reason: result.notify ? 'not on the allowlist; told so' : 'not on the allowlist' });
        return { admitted: false, duplicate: false };
      }
      case 'held':
        await report({ outcome: 'held', injection, policy, reason: `${result.why === 'code-pending' ? 'a code was already sent' : 'no more codes today'}${result.kept ? '' : '; too many held, dropped'}` });
        return { admitted: false, duplicate: false };
      case 'pairing-code-sent':
        await options.notify(injection.replyTo, pairingNotice(result.code, Math.max(1, Math.round(result.validForMs / 60_000))), `senders:pairing:${channel}:${address}:${result.code}`);
        await report({ outcome: 'pairing-code-sent', injection, policy, ...(result.kept ? {} : { reason: 'too many held, dropped' }) });
        return { admitted: false, duplicate: false };
    }
  };

  /** The policy that asks about `injection`, or `undefined` when none does. */
  const policyFor = (injection: Injection): CompiledSenderPolicy | undefined => {
    if (!GATED_KINDS.has(injection.kind) || injection.sender.agent === true) return undefined;
    return policies.get(injection.channel);
  };
  const FREE: QuickAdmission = { way: 'free' };
  const ADMIT: QuickAdmission = { way: 'admit' };

  return {
    quick(injection) {
      const policy = policyFor(injection);
      if (policy === undefined) return FREE;
      if (policy.mode !== 'open' && !policy.listed(injection.sender)) return ADMIT;
      return { way: 'guarded', guard: options.store.guardOf(injection.channel, injection.sender.id), allowed: () => report({ outcome: 'allowed', injection, policy }) };
    },

    async admit(injection) {
      const policy = policyFor(injection);
      if (policy === undefined) return { admitted: true };
      const listed = policy.mode === 'open' || policy.listed(injection.sender);
      // A code or a refusal sent to an address the channel could not verify (a forged From) would
      // land on someone who never wrote: such a sender is refused without a word.
      if (!listed && !injection.sender.verified) {
        const result = await options.store.admit({ mode: 'allowlist', listed: false, refusal: 'never', injection });
        if (result.outcome === 'blocked' || result.outcome === 'allowed') return settle(result, injection, policy);
        await report({ outcome: 'refused', injection, policy, reason: 'unverified sender' });
        return { admitted: false, duplicate: false };
      }
      const result = await options.store.admit({ mode: policy.mode, listed, refusal: policy.refusal, injection });
      return settle(result, injection, policy);
    },
  };
}
