import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { memoryEmailStore } from '../../test/email/fuzz-mail.ts';
import { sampleApproval } from '../../test/support/approval-fixtures.ts';
import { nastyString, useFuzzGuards } from '../../test/support/fuzz-inputs.ts';
import { approvalReplyFacts } from './approval-reply.ts';
import { matchApproval } from './approval-match.ts';
import { createMessageIds, messageIdsIn } from './message-ids.ts';
import { normaliseEmailEvent } from './normalise.ts';
import { approvalIdsInSubject } from './subject.ts';
import { belongsTo, conversationKeyOf, resolveConversation } from './threads.ts';

useFuzzGuards();

const ids = createMessageIds({ secret: 'fuzz-secret', domain: 'example.com' });
const approvalId = fc.stringMatching(/^[A-Za-z0-9_-]{22}$/);
/** Our own ids (approval requests and answers), forged-looking ids, and anything at all. */
const messageId = fc.oneof(
  fc.tuple(approvalId, fc.emailAddress()).map(([id, recipient]) => ids.forApproval(id, recipient)),
  fc.string().map((key) => ids.forDelivery(key)),
  approvalId.map((id) => `<sb.a.${id}.abcdefgh.0123456789abcdef@example.com>`),
  fc.tuple(fc.stringMatching(/^[a-z0-9.]{1,12}$/), fc.domain()).map(([local, domain]) => `<${local}@${domain}>`),
  nastyString,
);
const headerValue = fc.oneof(fc.array(messageId, { maxLength: 4 }).map((list) => list.join(' ')), nastyString);
const pointers = fc.record(
  {
    inReplyTo: headerValue,
    references: fc.oneof(headerValue, fc.array(messageId, { maxLength: 4 })),
    subject: fc.oneof(nastyString, approvalId.map((id) => `Re: [approval:${id}] Book it?`)),
  },
  { requiredKeys: [] },
);

describe('message id properties', () => {
  it('reads back every id it made, and reads anything else as nothing of ours, never throwing', () => {
    fc.assert(
      fc.property(approvalId, fc.emailAddress(), nastyString, (id, recipient, junk) => {
        expect(ids.read(ids.forApproval(id, recipient))).toEqual({ kind: 'approval', approvalId: id });
        expect(ids.read(ids.forDelivery(junk))).toEqual({ kind: 'delivery' });
        expect(ids.read(`<sb.a.${id}.abcdefgh.0123456789abcdef@example.com>`)).toBeUndefined();
        const read = ids.read(junk);
        expect(read === undefined || read.kind === 'delivery').toBe(true);
      }),
      { numRuns: 500 },
    );
  });

  it('finds only bracketed ids without spaces in any header value', () => {
    fc.assert(
      fc.property(fc.oneof(headerValue, fc.array(nastyString, { maxLength: 3 })), (value) => {
        for (const found of messageIdsIn(value)) expect(found).toMatch(/^<[^<>\s]+>$/);
      }),
      { numRuns: 500 },
    );
  });
});

describe('approval matching properties', () => {
  it('names only approvals our headers or the subject point at, and decides nothing when they disagree', () => {
    fc.assert(
      fc.property(pointers, (reply) => {
        const match = matchApproval(reply, ids);
        const named = new Set([
          ...[...messageIdsIn(reply.inReplyTo), ...messageIdsIn(reply.references)].flatMap((id) => {
            const ours = ids.read(id);
            return ours?.kind === 'approval' ? [ours.approvalId] : [];
          }),
          ...approvalIdsInSubject(reply.subject),
        ]);
        if (match.kind === 'approval') expect(named.has(match.approvalId)).toBe(true);
        if (match.kind === 'conflict') expect(match.approvalIds.length).toBeGreaterThan(1);
        if (match.kind === 'none') expect(named.size).toBe(0);
      }),
      { numRuns: 1000 },
    );
  });

  it('comes to facts the email normaliser accepts, whatever the reply says', async () => {
    await fc.assert(
      fc.asyncProperty(pointers, nastyString, fc.boolean(), async (reply, text, known) => {
        const facts = {
          messageId: '<m@x>', references: messageIdsIn(reply.references), subject: reply.subject ?? '', text, attachments: [], headers: [],
          ...(reply.inReplyTo === undefined ? {} : { inReplyTo: reply.inReplyTo }),
        };
        const approvals = { get: (id: string) => Promise.resolve(known ? sampleApproval({ approvalId: id, status: 'pending' }) : undefined) };
        const approval = await approvalReplyFacts(facts, { messageIds: ids, approvals });
        const event = {
          type: 'email', uidValidity: 1, uid: 1, messageId: '<m@x>', references: '', subject: '', from: 'ada@example.com', conversationKey: 'ada@example.com <m@x>',
          text, attachments: [], verified: true, basis: 'test', receivedAt: '2026-01-01T00:00:00.000Z', ...(approval === undefined ? {} : { approval }),
        };
        const injection = normaliseEmailEvent(event, { people: [], tenantId: 't', botAddress: 'bot@example.com' });
        expect(injection?.kind).toBe(approval === undefined ? 'message' : 'approval-response');
      }),
      { numRuns: 500 },
    );
  });
});

describe('thread properties', () => {
  it('places every mail in a conversation of its own sender, whatever ids it names', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(messageId, fc.emailAddress()), { maxLength: 5 }), fc.emailAddress(), fc.record({ messageId, inReplyTo: headerValue, references: headerValue }), async (known, sender, mail) => {
        const store = memoryEmailStore();
        for (const [id, owner] of known) await store.rememberThread(id, conversationKeyOf(owner, id));
        const key = await resolveConversation(store, sender, mail);
        expect(belongsTo(key, sender)).toBe(true);
        expect(await resolveConversation(store, sender, mail)).toBe(key);
      }),
      { numRuns: 500 },
    );
  });
});
