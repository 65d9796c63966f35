/**
 * The contract suite every channel adaptor runs against itself (`channels/<id>/contract.test.ts`):
 * normalise, dedupe on redelivery, render, chunking to the channel's limits, approval requests
 * and reply decisions, and send idempotency. A channel supplies a {@link ChannelContractCase};
 * the suite supplies the checks, so every channel is held to the same rules.
 */
import { describe, expect, it } from 'vitest';
import type { ChannelAdaptor, ChannelMessage } from '../../channel.ts';
import type { Part } from '../../../src/protocol/parts/part.ts';
import type { ApprovalRecord } from '../../../src/runtime/approvals/approval-types.ts';
import type { Destination, Injection } from '../../../src/runtime/injection.ts';
import type { OutboundDelivery } from '../../../queues/outbound-types.ts';

/** What one channel gives the suite. */
export interface ChannelContractCase {
  /** The adaptor under test, created against real servers (Redis, a fake provider). */
  adaptor(): ChannelAdaptor;
  /**
   * Durably enqueues like the service does (the real intake), so redelivery dedupe is
   * checked where it happens: at enqueue.
   */
  enqueue(injection: Injection): Promise<{ readonly duplicate: boolean }>;
  /** A provider event carrying a person's message, and fields its injection must have. */
  readonly inbound: { readonly event: () => unknown; readonly expect: Partial<Injection> };
  /** Provider events that must start no turn (the bot's own message, an edit), if the channel has such. */
  readonly ignored?: readonly unknown[];
  /** A malformed event, refused with `channel.invalid`. */
  readonly malformed: unknown;
  /** A destination on the channel. */
  readonly destination: Destination;
  /** An approver identity (as `switchboard.yaml` people give them) whose requests go to {@link destination}. */
  readonly approver: { readonly channel: string; readonly address: string };
  /**
   * Where the approver's requests go, when not {@link destination} (Slack reaches a user by their
   * user id, which opens a DM). Default {@link destination}.
   */
  readonly approverDestination?: Destination;
  /** The size of a rendered message in the channel's unit, and the most one message may have. */
  readonly limit?: { readonly measure: (message: ChannelMessage) => number; readonly max: number };
  /**
   * For channels that cap how long one answer may be (SMS): the note the last message ends with
   * when an answer was cut. The long answer's start must then arrive, and the note; without it,
   * every paragraph must arrive.
   */
  readonly cutNote?: string;
  /** The text a person sees in a rendered message (for checks on what it says). */
  readonly textOf: (message: ChannelMessage) => string;
  /** Sends as the service does: directly, or through the real outbound queue (and waits for it). */
  send(delivery: OutboundDelivery): Promise<void>;
  /** How many messages the provider (or stream) holds for the destination, read from the real peer. */
  delivered(): Promise<number>;
}

const LONG_ANSWER = Array.from({ length: 60 }, (_, index) =>
  `Paragraph ${index + 1}: the **direct flight** from London Gatwick to Corfu leaves at 08:45 and lands at 14:20; see https://example.com/flights/${index} for the fare rules.`,
).join('\n\n');

function answerInput(adaptor: ChannelAdaptor, text: string): Parameters<ChannelAdaptor['render']>[0] {
  const part: Part = { text, metadata: { partType: 'response' } };
  return adaptor.transport === 'buffered'
    ? { type: 'envelope', turnId: 'turn-contract', turnState: 'complete', parts: [part] }
    : { type: 'part', turnId: 'turn-contract', partId: 'turn-contract.0', turnState: 'complete', part };
}

/** A pending `book_flight` approval asked for in another conversation. */
export function contractApproval(approver: { readonly channel: string; readonly address: string }): ApprovalRecord {
  return {
    approvalId: 'apr_contract_0000000000',
    shortCode: 'K7QX2M',
    sessionId: 'session-contract',
    turnId: 'turn-contract',
    actor: 'concierge',
    toolName: 'book_flight',
    toolCallId: 'toolu_contract',
    args: { flightNumber: 'BA2043', passengers: 2, totalCost: 374, currency: 'GBP' },
    argsHash: 'a'.repeat(64),
    approvers: [{ ...approver, personId: 'grace', verified: true }],
    requester: { channel: 'web', address: 'web:someone' },
    allowRequester: false,
    createdAt: '2030-01-01T10:00:00.000Z',
    expiresAt: '2030-01-01T14:00:00.000Z',
    status: 'pending',
    replyTo: { channel: 'web', address: 'conv-contract' },
  };
}

/** Runs the contract checks for one channel. */
export function runChannelContract(name: string, contract: ChannelContractCase): void {
  describe(`channel contract: ${name}`, () => {
    it('normalises a provider event into an injection of this channel', () => {
      const adaptor = contract.adaptor();
      const injection = adaptor.normalise(contract.inbound.event());
      expect(injection).toBeDefined();
      expect(injection).toMatchObject({ channel: adaptor.id, kind: 'message', ...contract.inbound.expect });
      expect(injection?.conversationKey.length).toBeGreaterThan(0);
      expect(injection?.replyTo.channel).toBe(adaptor.id);
      expect(typeof injection?.sender.verified).toBe('boolean');
      for (const event of contract.ignored ?? []) expect(adaptor.normalise(event)).toBeUndefined();
      expect(() => adaptor.normalise(contract.malformed)).toThrow(expect.objectContaining({ code: 'channel.invalid' }) as Error);
    });

    it('a redelivered event is the same injection and is dropped at enqueue', async () => {
      const adaptor = contract.adaptor();
      const first = adaptor.normalise(contract.inbound.event());
      const again = adaptor.normalise(contract.inbound.event());
      if (first === undefined || again === undefined) throw new Error('the inbound event was ignored');
      expect(again.id).toBe(first.id);
      expect(await contract.enqueue(first)).toMatchObject({ duplicate: false });
      expect(await contract.enqueue(again)).toMatchObject({ duplicate: true });
    });

    it('renders an answer into messages that say it, each within the channel limit', () => {
      const adaptor = contract.adaptor();
      const short = adaptor.render(answerInput(adaptor, 'Your flight **BA 2043** is booked.'), contract.destination);
      expect(short.length).toBe(1);
      expect(short.map(contract.textOf).join('\n')).toContain('BA 2043');
      const long = adaptor.render(answerInput(adaptor, LONG_ANSWER), contract.destination);
      expect(long.length).toBeGreaterThan(0);
      const { limit } = contract;
      if (limit !== undefined) for (const message of long) expect(limit.measure(message)).toBeLessThanOrEqual(limit.max);
      const text = long.map(contract.textOf).join('\n');
      if (contract.cutNote === undefined) {
        for (const index of [1, 30, 60]) expect(text).toContain(`https://example.com/flights/${index - 1}`);
      } else {
        expect(text).toContain('https://example.com/flights/0');
        expect(contract.textOf(long.at(-1) ?? {})).toContain(contract.cutNote);
      }
    });

    it('shows an approval request with what it is and how to answer it', () => {
      const adaptor = contract.adaptor();
      const record = contractApproval(contract.approver);
      const part: Part = { data: { approvalId: record.approvalId, toolName: record.toolName, args: record.args, shortCode: record.shortCode }, metadata: { partType: 'approval-request' } };
      const messages = adaptor.render({ type: 'approval-request', record, partId: 'turn-contract.0.approval.0', part }, contract.destination);
      expect(messages.length).toBeGreaterThan(0);
      const text = messages.map(contract.textOf).join('\n');
      expect(text).toContain(adaptor.approvals.textReplies ? record.shortCode : record.approvalId);
      expect(adaptor.approvals.destinationFor(contract.approver)).toEqual(contract.approverDestination ?? contract.destination);
    });

    it('sends a message once for one idempotency key, however often it is sent', async () => {
      const adaptor = contract.adaptor();
      const before = await contract.delivered();
      const [message] = adaptor.render({ type: 'notice', id: 'notice-contract', text: 'Your booking is confirmed.' }, contract.destination);
      if (message === undefined) throw new Error('a notice rendered to nothing');
      const delivery = { channel: adaptor.id, destination: contract.destination, idempotencyKey: 'contract-key-1', payload: message };
      await contract.send(delivery);
      await contract.send(delivery);
      expect((await contract.delivered()) - before).toBe(1);
    });
  });
}
