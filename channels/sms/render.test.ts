import { describe, expect, it } from 'vitest';
import type { Part } from '../../src/protocol/parts/part.ts';
import type { ApprovalRecord } from '../../src/runtime/approvals/approval-types.ts';
import type { RenderInput } from '../channel.ts';
import { bookFlightSentence } from '../kit/approvals/book-flight-sentence.ts';
import { contractApproval } from '../kit/contract/channel-contract.ts';
import { ANSWERS } from '../kit/render/fixtures/answers.ts';
import { codeStrings, withoutCode } from '../kit/render/fixtures/checks.ts';
import { normaliseGsm } from '../kit/render/gsm.ts';
import { parseMarkdown } from '../kit/render/parse-markdown.ts';
import { smsSegmentCount, smsSegments } from '../kit/render/sms-segments.ts';
import { createSmsRender, CUT_NOTE, type SmsRenderOptions } from './render.ts';
import { capSegments, segmentLimitsOf } from './segment-cap.ts';
import { readSmsPayload, smsPayload, type SmsPayload } from './sms-payload.ts';

const SMS = { channel: 'sms', address: '+447700900123' };
const WHATSAPP = { channel: 'sms', address: 'whatsapp:+447700900123' };
const clock = (): Date => new Date('2030-01-01T10:00:00.000Z');
const said = (text: string): Part => ({ text, metadata: { partType: 'response' } });
const envelope = (...parts: Part[]): RenderInput => ({ type: 'envelope', turnId: 't-1', turnState: 'complete', parts });
const file = (data: Record<string, unknown>): Part => ({ data, metadata: { partType: 'artifact' } });
const segmentsOf = (payloads: readonly SmsPayload[]): number => payloads.reduce((sum, payload) => sum + payload.segments, 0);

/** Markdown left in a text: `**`, `__`, a `#` heading, backticks, `](`, `<http`. */
function artefacts(text: string): string[] {
  const found = ['**', '__', '`', '](', '<http'].filter((mark) => text.includes(mark));
  return /^\s*#{1,6}\s/m.test(text) ? [...found, '#'] : found;
}

describe('SMS rendering of the corpus of model answers', () => {
  const limits: readonly SmsRenderOptions[] = [{}, { maxSegments: 4, partSegments: 1 }, { maxSegments: 6, partSegments: 2 }];
  const runs = ANSWERS.flatMap((answer) => limits.map((options) => ({ ...answer, options })));

  it('renders at least 60 answers, cutting some of them', () => {
    expect(ANSWERS.length).toBeGreaterThanOrEqual(60);
    const render = createSmsRender();
    const cut = ANSWERS.filter(({ markdown }) => render(envelope(said(markdown)), SMS).at(-1)?.body.endsWith(CUT_NOTE));
    expect(cut.length).toBeGreaterThan(0);
  });

  it.each(runs)('$name within $options', ({ markdown, options }) => {
    const { maxSegments = 10, partSegments = 3 } = options;
    const payloads = createSmsRender(options)(envelope(said(markdown)), SMS);
    expect(payloads.length).toBeGreaterThan(0);
    const code = codeStrings(parseMarkdown(markdown));
    payloads.forEach((payload, index) => {
      expect(artefacts(withoutCode(payload.body, code))).toEqual([]);
      expect(payload).toMatchObject({ to: SMS.address, kind: 'answer', segments: smsSegmentCount(payload.body) });
      expect(payload.segments).toBeLessThanOrEqual(partSegments);
      if (payloads.length > 1) expect(payload.body.startsWith(`(${index + 1}/${payloads.length}) `)).toBe(true);
      expect(readSmsPayload(payload)).toBe(payload);
    });
    expect(segmentsOf(payloads)).toBeLessThanOrEqual(maxSegments);
  });
});

describe('SMS segment counts', () => {
  const ext = '€[]{}^~|\\';
  it.each([
    ['160 GSM-7 characters', 'a'.repeat(160), 'GSM-7', 1],
    ['161 GSM-7 characters (153 + 8)', 'a'.repeat(161), 'GSM-7', 2],
    ['306 GSM-7 characters', 'a'.repeat(306), 'GSM-7', 2],
    ['307 GSM-7 characters', 'a'.repeat(307), 'GSM-7', 3],
    ['70 UCS-2 characters', 'ж'.repeat(70), 'UCS-2', 1],
    ['71 UCS-2 characters (67 + 4)', 'ж'.repeat(71), 'UCS-2', 2],
    ['134 UCS-2 characters', 'ж'.repeat(134), 'UCS-2', 2],
    ['an emoji makes 150 Latin letters UCS-2', `${'a'.repeat(148)}👍`, 'UCS-2', 3],
    ['35 emoji (two units each)', '😀'.repeat(35), 'UCS-2', 1],
    ['a surrogate pair is not split across segments', `${'ж'.repeat(66)}😀${'ж'.repeat(66)}`, 'UCS-2', 3],
    ['a curly quote makes 150 characters UCS-2', `It’s ${'a'.repeat(145)}`, 'UCS-2', 3],
    ['the same quote normalised back to GSM-7', normaliseGsm(`It’s ${'a'.repeat(145)}`), 'GSM-7', 1],
    ['smart quotes, dash and ellipsis normalised', normaliseGsm('“Yes” — it’s booked…'), 'GSM-7', 1],
    [`extension characters ${ext} count two septets`, `${'a'.repeat(160 - 2 * ext.length)}${ext}`, 'GSM-7', 1],
    ['one septet more is two segments', `${'a'.repeat(161 - 2 * ext.length)}${ext}`, 'GSM-7', 2],
    ['80 euro signs are 160 septets', '€'.repeat(80), 'GSM-7', 1],
    ['an escape pair is not split across segments', `${'a'.repeat(152)}€${'a'.repeat(152)}`, 'GSM-7', 3],
    ['GSM-7 letters beyond ASCII (£, é, Ä, Ω)', `£éÄΩ${'a'.repeat(156)}`, 'GSM-7', 1],
  ] as const)('%s', (_name, text, encoding, segments) => {
    expect(smsSegments(text)).toMatchObject({ encoding, segments });
    expect(smsPayload(SMS.address, 'answer', text).segments).toBe(segments);
    expect(smsPayload(WHATSAPP.address, 'answer', text).segments).toBe(1);
  });
});

describe('SMS segment cap', () => {
  it('fills in the limits, the part never above the answer', () => {
    expect(segmentLimitsOf({})).toEqual({ answer: 10, part: 3 });
    expect(segmentLimitsOf({ maxSegments: 2, partSegments: 5 })).toEqual({ answer: 2, part: 2 });
  });

  it('keeps chunks within the cap and renumbers a cut answer, its last part ending with the note', () => {
    const chunks = ['(1/3) First sentence.', '(2/3) Second sentence.', '(3/3) Third.'];
    expect(capSegments(chunks, { answer: 3, part: 1 })).toEqual(chunks);
    const long = [`(1/2) ${'Some words here. '.repeat(9)}`, `(2/2) ${'More words there. '.repeat(9)}`];
    const cut = capSegments(long, { answer: 1, part: 1 });
    expect(cut).toHaveLength(1);
    expect(cut[0]).toMatch(/^Some words here\. .*\n\(Answer shortened/);
    expect(cut[0]?.endsWith(CUT_NOTE)).toBe(true);
    expect(smsSegmentCount(cut[0] ?? '')).toBe(1);
    expect(capSegments(['x'.repeat(400)], { answer: 1, part: 1 }).at(-1)?.endsWith(CUT_NOTE)).toBe(true);
  });
});

describe('SMS approvals', () => {
  const render = createSmsRender({ clock });
  const record = contractApproval({ channel: 'sms', address: SMS.address });
  const request = (approval: ApprovalRecord, renderer = render): SmsPayload[] =>
    renderer({ type: 'approval-request', record: approval, partId: 'p', part: said('') }, SMS);

  it('asks in one message with the action, the amount and the code to reply with: two segments, three when not GSM-7', () => {
    const sentences = { book_flight: bookFlightSentence };
    for (const [approval, renderer, segments] of [
      [record, render, 2],
      [record, createSmsRender({ clock, sentences }), 2],
      [{ ...record, args: { ...record.args, note: 'aisle seat – “if possible”…' } }, render, 2],
      [{ ...record, args: { ...record.args, passengers: ['Zoë Łukasiewicz'], note: 'window seat 🙏' } }, render, 3],
    ] as const) {
      const [message, ...rest] = request(approval, renderer);
      expect(rest).toEqual([]);
      expect(message?.body).toMatch(/book[_ ]flight/);
      expect(message?.body).toContain('GBP 374.00');
      expect(message?.body).toContain('Reply APPROVE K7QX2M or DENY K7QX2M');
      expect(message).toMatchObject({ kind: 'approval-request', to: SMS.address });
      expect(message?.segments).toBeLessThanOrEqual(segments);
    }
    expect(request(record)[0]?.body).toBe(
      'Approval K7QX2M: concierge wants to run book_flight with: Flight number: BA2043; Passengers: 2; Total cost: GBP 374.00.\nExpires in 4 hours, at 14:00 UTC.\nReply APPROVE K7QX2M or DENY K7QX2M',
    );
  });

  it('tells a requester who may not decide whose approval is awaited, without a code to reply with', () => {
    const [message, ...rest] = render({ type: 'approval-request', record, partId: 'p', part: said(''), mayDecide: false }, SMS);
    expect(rest).toEqual([]);
    expect(message?.body).toBe(
      "Approval K7QX2M: concierge wants to run book_flight with: Flight number: BA2043; Passengers: 2; Total cost: GBP 374.00.\nExpires in 4 hours, at 14:00 UTC.\nWaiting for grace's approval.",
    );
  });

  it('tells the outcome of a decided request, nothing while pending or to the decider', () => {
    const update = (approval: ApprovalRecord): SmsPayload[] => render({ type: 'approval-update', record: approval }, SMS);
    expect(update(record)).toEqual([]);
    const decided = { ...record, status: 'granted', decidedAt: '2030-01-01T10:05:00.000Z', decidedBy: { channel: 'email', address: 'grace@example.com', personId: 'grace' } } as const;
    expect(update(decided).map((payload) => payload.body)).toEqual(['Approval K7QX2M was approved by grace at 10:05 UTC: book_flight (GBP 374.00).']);
    expect(update({ ...decided, decidedBy: { ...SMS, personId: 'grace' } })).toEqual([]);
    expect(update({ ...decided, status: 'denied', reason: 'Too dear' })[0]?.body).toBe(
      'Approval K7QX2M was denied by grace at 10:05 UTC: book_flight (GBP 374.00). It will not be done. Reason: Too dear',
    );
    expect(update({ ...record, status: 'expired' })[0]?.body).toMatch(/^Approval K7QX2M expired without a decision at 14:00 UTC: .*It will not be done\.$/);
  });

  it('renders notices as plain text and turns as nothing', () => {
    expect(render({ type: 'notice', id: 'n-1', text: 'Your booking is **confirmed**.' }, SMS)).toEqual([
      { to: SMS.address, body: 'Your booking is confirmed.', kind: 'notice', segments: 1 },
    ]);
    expect(render({ type: 'turn', turnId: 't-1', turnState: 'complete' }, SMS)).toEqual([]);
    expect(render(envelope(said('  ')), SMS)).toEqual([]);
  });
});

describe('SMS media and WhatsApp', () => {
  const render = createSmsRender();
  const files = Array.from({ length: 12 }, (_, index) => file({ artifactId: `art-${index}`, name: `photo-${index}.jpg` }));

  it('sends artifacts as MMS media on the first part, at most 10; links as name: url lines', () => {
    const long = Array.from({ length: 3 }, (_, index) => `Paragraph ${index}: ${'sunny days by the sea. '.repeat(6)}`).join('\n\n');
    const payloads = render(envelope(said(long), ...files, file({ url: 'https://files.example/t/ticket.pdf', name: 'Ticket' })), SMS);
    expect(payloads.length).toBeGreaterThan(1);
    expect(payloads[0]?.mediaArtifactIds).toEqual(files.slice(0, 10).map((_, index) => `art-${index}`));
    expect(payloads.slice(1).every((payload) => payload.mediaArtifactIds === undefined)).toBe(true);
    const text = payloads.map((payload) => payload.body).join('\n');
    expect(text).toContain('Ticket: https://files.example/t/ticket.pdf');
    expect(text).toContain('photo-11.jpg (not available on this channel)');
    expect(render(envelope(files[0] ?? said('')), SMS)).toEqual([{ to: SMS.address, body: 'photo-0.jpg', mediaArtifactIds: ['art-0'], kind: 'answer', segments: 1 }]);
  });

  it('writes WhatsApp markup within 1600 characters a message, one medium a message', () => {
    const [first] = render(envelope(said('Your flight **BA 2043** is _confirmed_.')), WHATSAPP);
    expect(first).toEqual({ to: WHATSAPP.address, body: 'Your flight *BA 2043* is _confirmed_.', kind: 'answer', segments: 1 });
    const long = ANSWERS.map((answer) => answer.markdown).join('\n\n');
    const payloads = render(envelope(said(long), ...files.slice(0, 3)), WHATSAPP);
    expect(payloads.every((payload, index) => payload.body.length <= 1600 && payload.body.startsWith(`(${index + 1}/${payloads.length}) `))).toBe(true);
    expect(payloads.slice(0, 4).map((payload) => payload.mediaArtifactIds)).toEqual([['art-0'], ['art-1'], ['art-2'], undefined]);
    expect(payloads.some((payload) => payload.body.includes('**'))).toBe(false);
  });
});

describe('SMS payloads and options', () => {
  it('reads back a payload and refuses a malformed one', () => {
    const payload = smsPayload(SMS.address, 'notice', 'Hello');
    expect(readSmsPayload({ ...payload })).toEqual(payload);
    expect(() => readSmsPayload({ ...payload, to: '07700 900123', body: ' ', segments: 0 })).toThrow(
      expect.objectContaining({ code: 'channel.invalid', details: { fields: ['to', 'body', 'segments'] } }) as Error,
    );
    expect(() => readSmsPayload({ ...payload, mediaArtifactIds: Array.from({ length: 11 }, () => 'a') })).toThrow(/mediaArtifactIds/);
  });

  it('refuses limits out of range and unknown time zones', () => {
    for (const options of [{ partSegments: 11 }, { maxSegments: 0 }, { partSegments: 1.5 }, { timeZone: 'Mars/Olympus' }]) {
      expect(() => createSmsRender(options)).toThrow(expect.objectContaining({ code: 'config.invalid' }) as Error);
    }
  });
});
