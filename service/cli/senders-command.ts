/**
 * `switchboard senders list|approve <code>|revoke <channel> <address>|block <channel> <address>`:
 * the operator's hand on who may write to the bot, from a terminal, against the running service's
 * Redis. Approving a pairing code lets its sender in and puts the messages they were held with
 * into their conversation, where the running service answers them.
 */
import type { Redis } from 'ioredis';
import { acceptIntoMailbox } from '../../channels/kit/inbound-intake.ts';
import { createTurnQueue } from '../../queues/turn-queue.ts';
import { CHANNEL_NAMES, type ChannelName } from '../../src/runtime/app/app-types.ts';
import { approveAddress, approvePairing, type PairingApproval } from '../../src/runtime/senders/release-held.ts';
import { describeSenderPolicy, type SenderPolicy } from '../../src/runtime/senders/sender-policy.ts';
import { createSenderStore, type KnownSender, type PendingPairing, type SenderStore } from '../../src/runtime/senders/sender-store.ts';
import { createSessionStore } from '../../src/runtime/session/session-store.ts';
import type { CommandOutput } from './approvals-command.ts';

/** The usage text of the `senders` command. */
export const SENDERS_USAGE = `usage:
  switchboard senders list                        each channel's policy, pairing codes waiting, approved and blocked senders
  switchboard senders approve <code>              let the sender of a pairing code in; their held messages are answered
  switchboard senders approve <channel> <address> let a sender in without a code (e.g. on an allowlist channel)
  switchboard senders revoke <channel> <address>  forget an approval or a block (the sender is unknown again)
  switchboard senders block <channel> <address>   refuse everything from a sender, on any policy`;

/** What the command needs. */
export interface SendersCommandDeps {
  readonly store: Pick<SenderStore, 'list' | 'revoke' | 'block'>;
  /** Approves a code as {@link approver} and releases the held messages. */
  readonly approve: (code: string, approver: string) => Promise<PairingApproval>;
  /** Approves a sender by address as {@link approver}, releasing any held messages. */
  readonly allow: (channel: string, address: string, approver: string) => ReturnType<typeof approveAddress>;
  /** Each channel's policy; `list` leaves them out when not given (e.g. `switchboard.yaml` is invalid). */
  readonly policies?: Readonly<Record<ChannelName, SenderPolicy>>;
  /** Who runs the command, as kept with an approval or a block (`cli <user name>`). */
  readonly approver: string;
}

/**
 * The command's dependencies on the service's Redis: its sender store, and an approval that puts
 * the held messages into their mailboxes and asks the turn queue for their turns (the running
 * service's workers answer them). `close()` closes the turn queue's producer, not `redis`.
 */
export function sendersCommandDeps(options: { readonly redis: Redis; readonly prefix: string; readonly approver: string; readonly policies?: Readonly<Record<ChannelName, SenderPolicy>> }): SendersCommandDeps & { close(): Promise<void> } {
  const { redis, prefix } = options;
  const store = createSenderStore({ redis, prefix });
  const turnQueue = createTurnQueue({ connection: redis, prefix });
  const intake = { sessions: createSessionStore({ redis, prefix }), scheduleTurn: (sessionId: string, key: string) => turnQueue.schedule(sessionId, key) };
  const accept = (injection: Parameters<typeof acceptIntoMailbox>[1]) => acceptIntoMailbox(intake, injection);
  return {
    store,
    approve: (code, approver) => approvePairing({ store, accept }, code, approver),
    allow: (channel, address, approver) => approveAddress({ store, accept }, channel, address, approver),
    approver: options.approver,
    ...(options.policies === undefined ? {} : { policies: options.policies }),
    close: () => turnQueue.close(),
  };
}

function isChannel(value: string | undefined): value is ChannelName {
  return (CHANNEL_NAMES as readonly (string | undefined)[]).includes(value);
}

function table(rows: readonly (readonly string[])[]): string {
  const widths: number[] = [];
  for (const row of rows) row.forEach((value, index) => (widths[index] = Math.max(widths[index] ?? 0, value.length)));
  return rows.map((row) => row.map((value, index) => value.padEnd(widths[index] ?? 0)).join('  ').trimEnd()).join('\n');
}

function pendingRows(pending: readonly PendingPairing[]): string[][] {
  return pending.map((entry) => [entry.code, entry.channel, entry.address, entry.displayName ?? '', String(entry.held), entry.expiresAt]);
}

function knownRows(known: readonly KnownSender[]): string[][] {
  return known.map((entry) => [entry.state, entry.channel, entry.address, entry.by, entry.at]);
}

async function list(deps: SendersCommandDeps, out: CommandOutput): Promise<number> {
  const { pending, known } = await deps.store.list();
  const sections: string[] = [];
  if (deps.policies !== undefined) {
    sections.push(`Policies:\n${table(CHANNEL_NAMES.map((channel) => [`  ${channel}`, describeSenderPolicy(deps.policies?.[channel] as SenderPolicy)]))}`);
  }
  sections.push(pending.length === 0 ? 'No pairing codes waiting.' : `Pairing codes waiting:\n${table([['CODE', 'CHANNEL', 'ADDRESS', 'NAME', 'HELD', 'EXPIRES'], ...pendingRows(pending)])}`);
  sections.push(known.length === 0 ? 'No approved or blocked senders.' : `Approved and blocked senders:\n${table([['STATE', 'CHANNEL', 'ADDRESS', 'BY', 'AT'], ...knownRows(known)])}`);
  out.write(`${sections.join('\n\n')}\n`);
  return 0;
}

async function approve(code: string, deps: SendersCommandDeps, out: CommandOutput): Promise<number> {
  const result = await deps.approve(code, deps.approver);
  switch (result.status) {
    case 'approved':
      out.write(`Approved ${result.channel} ${result.address} (code ${result.code}); ${String(result.released)} held message(s) passed on to be answered.\n`);
      return 0;
    case 'blocked':
      out.write(`${result.channel} ${result.address} is blocked, so the code was dropped. Revoke the block first: switchboard senders revoke ${result.channel} ${result.address}\n`);
      return 1;
    case 'throttled':
      out.write('Too many wrong codes from you in the last hour: try again later. List the codes waiting with: switchboard senders list\n');
      return 1;
    case 'unknown':
      out.write(`No pairing code "${code}" is waiting (mistyped, used or expired; ${String(result.triesLeft)} more wrong code(s) allowed this hour). List them with: switchboard senders list\n`);
      return 1;
  }
}

/**
 * Runs `switchboard senders …` (`args` are the words after `senders`) and resolves to the exit
 * code: 0 done, 1 nothing to do (unknown code, no such approval, throttled), 2 bad usage.
 */
export async function runSendersCommand(args: readonly string[], deps: SendersCommandDeps, out: CommandOutput): Promise<number> {
  const [subcommand, first, second, ...extra] = args;
  if (subcommand === 'list' && first === undefined) return list(deps, out);
  if (subcommand === 'approve' && first !== undefined && second === undefined) return approve(first, deps, out);
  if ((subcommand === 'approve' || subcommand === 'revoke' || subcommand === 'block') && second !== undefined && extra.length === 0) {
    if (!isChannel(first)) {
      out.write(`"${String(first)}" is not a channel with a sender policy: ${CHANNEL_NAMES.join(', ')}.\n`);
      return 2;
    }
    const address = first === 'email' ? second.toLowerCase() : second;
    if (subcommand === 'approve') {
      const result = await deps.allow(first, address, deps.approver);
      if (result.status === 'blocked') {
        out.write(`${first} ${address} is blocked. Revoke the block first: switchboard senders revoke ${first} ${address}\n`);
        return 1;
      }
      out.write(`Approved ${first} ${address}${result.released > 0 ? `; ${String(result.released)} held message(s) passed on to be answered` : ''}.\n`);
      return 0;
    }
    if (subcommand === 'block') {
      const dropped = await deps.store.block(first, address, deps.approver);
      out.write(`Blocked ${first} ${address}: nothing from them reaches the bot${dropped > 0 ? `; ${String(dropped)} held message(s) dropped` : ''}.\n`);
      return 0;
    }
    if (await deps.store.revoke(first, address)) {
      out.write(`Revoked: ${first} ${address} is unknown again (on a pairing channel they may ask for a new code).\n`);
      return 0;
    }
    out.write(`${first} ${address} was neither approved nor blocked.\n`);
    return 1;
  }
  out.write(`${SENDERS_USAGE}\n`);
  return 2;
}
