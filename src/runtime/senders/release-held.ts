/**
 * Letting a paired sender in: the approval of a code (from `/admin` or `switchboard senders
 * approve`), then their held messages put into their mailboxes, oldest first, each asking for a
 * turn. Each step can be repeated safely: a mailbox drops an injection id it has seen, and a
 * sender's next message releases whatever a crash left held.
 */
import type { Injection } from '../injection.ts';
import type { ApproveResult, SenderStore } from './sender-store.ts';

/** What releasing needs. */
export interface ReleaseOptions {
  readonly store: Pick<SenderStore, 'held' | 'released'>;
  /** Puts one message into its session's mailbox and asks for a turn. */
  readonly accept: (injection: Injection) => Promise<unknown>;
}

/** Puts the held messages of a sender into their mailboxes; resolves to how many. */
export async function releaseHeld(options: ReleaseOptions, channel: string, address: string): Promise<number> {
  const held = await options.store.held(channel, address);
  for (const injection of held) await options.accept(injection);
  await options.store.released(channel, address, held.length);
  return held.length;
}

/**
 * Approves `address` on `channel` without a code, as `approver`, and releases any messages it
 * was held with; resolves to how many, or `blocked` (nothing changed).
 */
export async function approveAddress(options: ReleaseOptions & { readonly store: Pick<SenderStore, 'allow'> }, channel: string, address: string, approver: string): Promise<{ readonly status: 'approved'; readonly released: number } | { readonly status: 'blocked' }> {
  if ((await options.store.allow(channel, address, approver)) === 'blocked') return { status: 'blocked' };
  return { status: 'approved', released: await releaseHeld(options, channel, address) };
}

/** What {@link approvePairing} did: the store's answer, with the messages released when approved. */
export type PairingApproval = Exclude<ApproveResult, { status: 'approved' }> | (Extract<ApproveResult, { status: 'approved' }> & { readonly released: number });

/**
 * Approves the pairing code `typedCode` as `approver` (an operator, in words) and releases the
 * sender's held messages.
 *
 * @example
 * const result = await approvePairing({ store, accept }, 'K7QX-3MAC', 'cli root');
 * if (result.status === 'approved') console.log(`${result.address} may write; ${result.released} message(s) answered`);
 */
export async function approvePairing(options: ReleaseOptions & { readonly store: Pick<SenderStore, 'approve'> }, typedCode: string, approver: string): Promise<PairingApproval> {
  const result = await options.store.approve(typedCode, approver);
  if (result.status !== 'approved') return result;
  return { ...result, released: await releaseHeld(options, result.channel, result.address) };
}
