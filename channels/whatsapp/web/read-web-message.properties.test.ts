import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FUZZ_PEOPLE, nastyString, outcomeOf, useFuzzGuards } from '../../../test/support/fuzz-inputs.ts';
import { expectWellFormedInjection } from '../../../test/support/well-formed-injection.ts';
import { normaliseWhatsAppEvent } from '../normalise.ts';
import { readWebMessage, type ReadWebMessageContext } from './read-web-message.ts';
import type { WebChat, WebMedia, WebMessage } from './web-client.ts';

useFuzzGuards();

const BOT = '15550001111@c.us';
const chatId = fc.oneof(
  { weight: 8, arbitrary: fc.constantFrom('447700900123@c.us', '447700900123:12@s.whatsapp.net', '120363041234567890@g.us', '87654321@lid', 'status@broadcast', '0@c.us') },
  nastyString,
);
/** Usually false: most messages the session hands over are a person's. */
const rarely = fc.oneof({ weight: 5, arbitrary: fc.constant(false) }, fc.constant(true));

/** An outcome of one of the session's promises: a value, or a rejection. */
const settled = <T>(value: fc.Arbitrary<T>): fc.Arbitrary<() => Promise<T>> =>
  fc.oneof({ weight: 3, arbitrary: value.map((each) => () => Promise.resolve(each)) }, fc.constant(() => Promise.reject(new Error('the page crashed'))));

const media: fc.Arbitrary<WebMedia | undefined> = fc.option(
  fc.record({ mimetype: fc.oneof(fc.constantFrom('image/jpeg', 'audio/ogg; codecs=opus', '', ';', 'constructor'), nastyString), data: fc.oneof(fc.base64String({ maxLength: 64 }), nastyString), filename: fc.option(nastyString, { nil: undefined }), filesize: fc.option(fc.nat(), { nil: undefined }) }),
  { nil: undefined },
);
const chat: fc.Arbitrary<WebChat> = fc.record({ name: nastyString }).map(({ name }) => ({ id: { _serialized: 'c' }, isGroup: true, name, unreadCount: 0, fetchMessages: () => Promise.resolve([]) }));

/** A message as the session hands it over: every field of its type, often odd, its methods sometimes failing. */
const message: fc.Arbitrary<WebMessage> = fc
  .record({
    id: fc.record({ _serialized: fc.oneof(fc.stringMatching(/^false_[0-9]{5,15}@c\.us_[0-9A-F]{10,20}$/), nastyString), fromMe: rarely }),
    from: chatId,
    author: fc.option(chatId, { nil: undefined }),
    body: nastyString,
    fromMe: rarely,
    hasMedia: fc.boolean(),
    type: fc.constantFrom('chat', 'image', 'video', 'audio', 'ptt', 'document', 'sticker', 'location', 'vcard', 'multi_vcard', 'revoked', 'e2e_notification'),
    timestamp: fc.oneof({ weight: 4, arbitrary: fc.nat({ max: 4_000_000_000 }) }, fc.constantFrom(Number.NaN, Infinity, -1, 1e15, 8.64e12 + 1)),
    hasQuotedMsg: fc.boolean(),
    mentionedIds: fc.array(fc.oneof(fc.constant(BOT), chatId), { maxLength: 2 }),
    isStatus: rarely,
    broadcast: rarely,
    location: fc.option(fc.record({ latitude: fc.oneof(fc.double(), nastyString), longitude: fc.double(), name: fc.option(nastyString, { nil: undefined }), address: fc.option(nastyString, { nil: undefined }) }), { nil: undefined }),
    rawData: fc.record({ notifyName: fc.oneof(nastyString, fc.integer()) }, { requiredKeys: [] }),
    downloadMedia: settled(media),
    getChat: settled(chat),
    quotedFromMe: fc.boolean(),
    quotedFails: fc.boolean(),
  })
  .map(({ quotedFromMe, quotedFails, ...fields }) => ({
    ...fields,
    getQuotedMessage: () => (quotedFails ? Promise.reject(new Error('gone')) : Promise.resolve({ ...fields, id: { _serialized: 'quoted', fromMe: quotedFromMe }, getQuotedMessage: () => Promise.resolve(undefined) })),
  }));

const context = fc.record({ groups: fc.constantFrom('mentions' as const, 'all' as const, 'off' as const), lookup: settled(fc.array(fc.record({ lid: fc.string(), pn: chatId }), { maxLength: 1 })) }).map(
  ({ groups, lookup }): ReadWebMessageContext => ({
    client: { getContactLidAndPhone: lookup },
    botIds: new Set([BOT]),
    groups,
    artifacts: { put: (artifact) => Promise.resolve({ artifactId: 'art-1', name: artifact.name, mimeType: artifact.mimeType, sizeBytes: artifact.bytes.length, sha256: '0'.repeat(64), createdAt: '2026-01-01T00:00:00.000Z' }) },
    maxMediaBytes: 32,
    clock: () => new Date('2026-03-01T12:00:00.000Z'),
  }),
);

describe('readWebMessage properties', () => {
  it('reads any message of the session without rejecting, to a skip reason or an event that normalises well', async () => {
    await fc.assert(
      fc.asyncProperty(message, context, async (webMessage, given) => {
        const read = await readWebMessage(webMessage, given);
        if ('skipped' in read) {
          expect(read.skipped).not.toBe('');
          return;
        }
        const outcome = outcomeOf(() => normaliseWhatsAppEvent(read.event, { people: FUZZ_PEOPLE, tenantId: 'tenant-1' }));
        if ('refused' in outcome) expect(outcome.refused.code).toBe('channel.invalid');
        else expectWellFormedInjection(outcome.returned, webMessage);
      }),
      { numRuns: 1000 },
    );
  });
});
