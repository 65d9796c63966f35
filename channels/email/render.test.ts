import { describe, expect, it } from 'vitest';
import type { RenderInput } from '../channel.ts';
import { collectDomainData } from '../../src/protocol/envelope/collect-domain-data.ts';
import type { Part } from '../../src/protocol/parts/part.ts';
import type { ApprovalRecord } from '../../src/runtime/approvals/approval-types.ts';
import type { Destination } from '../../src/runtime/injection.ts';
import { sampleApproval } from '../../test/support/approval-fixtures.ts';
import { bookFlightSentence } from '../kit/approvals/book-flight-sentence.ts';
import { parseApprovalReply } from '../kit/approvals/parse-reply.ts';
import { markdownArtefacts } from '../kit/render/fixtures/checks.ts';
import { FLIGHT_RESULTS } from '../kit/render/fixtures/flight-data.ts';
import { createMessageIds } from './message-ids.ts';
import { MAX_REFERENCES, createEmailRender } from './render.ts';
import { approvalIdsInSubject } from './subject.ts';

const NOW = new Date('2030-01-01T10:00:00.000Z');
const APPROVAL_ID = 'AbCdEfGhIjKlMnOpQrStUv';
const messageIds = createMessageIds({ secret: 'render-test-secret', domain: 'example.com' });
const render = createEmailRender({
  from: '"Concierge" <bot@example.com>',
  fromAddress: 'bot@example.com',
  messageIds,
  clock: () => NOW,
  sentences: { book_flight: bookFlightSentence },
});

const text = (value: string, partType = 'response'): Part => ({ text: value, metadata: { partType } });
const envelope = (...parts: Part[]): RenderInput => ({ type: 'envelope', turnId: 'turn-1', turnState: 'complete', parts });
const ada: Destination = { channel: 'email', address: 'ada@example.com' };
const inThread = (thread: Record<string, string>): Destination => ({ ...ada, thread });
const record = (overrides: Partial<ApprovalRecord> = {}): ApprovalRecord =>
  sampleApproval({
    approvalId: APPROVAL_ID,
    status: 'pending',
    args: { flightNumber: 'MW 304', date: '2026-12-18', passengers: [{ fullName: 'Ada Lovelace' }], totalCost: 412.5, currency: 'EUR' },
    ...overrides,
  });
const approvalRequest = (approval: ApprovalRecord, mayDecide?: boolean): RenderInput => ({
  type: 'approval-request',
  record: approval,
  partId: 'p-1',
  part: { metadata: { partType: 'approval-request' } },
  ...(mayDecide === undefined ? {} : { mayDecide }),
});

function only<T>(items: readonly T[]): T {
  expect(items).toHaveLength(1);
  return items[0] as T;
}

describe('email answers', () => {
  it('thread on the answered mail: In-Reply-To, References and Re: subject', () => {
    const mail = only(render(envelope(text('Sure.')), inThread({ messageId: '<m3@mail.example>', references: '<m1@mail.example> <m2@mail.example>', subject: 'Flights to Paris' })));
    expect(mail).toMatchObject({ kind: 'answer', to: 'ada@example.com', autoSubmitted: 'auto-replied', subject: 'Re: Flights to Paris', inReplyTo: '<m3@mail.example>' });
    expect(mail.references).toEqual(['<m1@mail.example>', '<m2@mail.example>', '<m3@mail.example>']);
    expect(mail.messageId).toBeUndefined();
  });

  it.each([
    ['AW: Flüge nach Paris', 'Re: Flüge nach Paris'],
    ['SV: Re: Resa till Paris', 'Re: Resa till Paris'],
    ['RE: Fwd: trip', 'Re: trip'],
  ])('answers a mail titled %j as %j', (original, expected) => {
    expect(only(render(envelope(text('Ok')), inThread({ messageId: '<a@b>', subject: original }))).subject).toBe(expected);
  });

  it('drops repeated references and keeps the root and the newest when there are too many', () => {
    const chain = Array.from({ length: 30 }, (_, index) => `<m${index}@x>`);
    const mail = only(render(envelope(text('Ok')), inThread({ messageId: '<m29@x>', references: [...chain.slice(0, 29), '<m5@x>'].join(' '), subject: 's' })));
    expect(mail.references).toHaveLength(MAX_REFERENCES);
    expect(mail.references?.[0]).toBe('<m0@x>');
    expect(mail.references?.at(-1)).toBe('<m29@x>');
    expect(new Set(mail.references).size).toBe(MAX_REFERENCES);
  });

  it('without a thread, takes the first heading, else the first line, as a fresh subject', () => {
    const headed = only(render(envelope(text('# Your trip to Paris\n\nAll set.')), ada));
    expect(headed.subject).toBe('Your trip to Paris');
    expect(headed.inReplyTo).toBeUndefined();
    expect(headed.references).toBeUndefined();
    expect(headed.autoSubmitted).toBe('auto-generated');
    const long = only(render(envelope(text(`**Good news:** ${'a very long line '.repeat(10)}\n\nMore.`)), ada));
    expect(long.subject.startsWith('Good news: a very long line')).toBe(true);
    expect(Array.from(long.subject).length).toBeLessThanOrEqual(78);
  });

  it('carries the same content as HTML and as text without markdown, and escapes model HTML', () => {
    const mail = only(render(envelope(text('Here are **two** [options](https://example.com/o) <script>alert(1)</script>\n\n- one\n- two')), ada));
    expect(mail.html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(mail.html).not.toContain('<script');
    expect(mail.html).toContain('<strong>two</strong>');
    expect(markdownArtefacts(mail.text, { backticks: true })).toEqual([]);
    expect(mail.text).toContain('Here are two options: https://example.com/o');
    expect(mail.text).toContain('- one\n- two');
  });

  it('wraps the HTML in a small self-contained document: inline styles, no external CSS or script', () => {
    const { html } = only(render(envelope(text('Hi')), ada));
    expect(html.startsWith('<!DOCTYPE html>')).toBe(true);
    expect(html).toContain('max-width:640px');
    expect(html).not.toMatch(/<(?:script|style|link|img)\b/i);
    expect(html).toContain('Concierge · automated assistant');
  });

  it('shows flight results as a table in HTML and as one readable line per flight in text', () => {
    const data = collectDomainData({ events: [{ kind: 'flight-results', data: FLIGHT_RESULTS }] });
    const mail = only(render(envelope(text('Two flights:'), ...(data === undefined ? [] : [data])), ada));
    expect(mail.html).toMatch(/<table style="[^"]+">/);
    expect(mail.html).toMatch(/<th style="[^"]+">Flight<\/th>/);
    expect(mail.html).toMatch(/<td style="[^"]+">AU 1021 Aurora Air<\/td>/);
    expect(mail.text).toContain('Flights LHR → CDG, Fri 18 Dec 2026, 2 passengers\n- AU 1021 Aurora Air, 18 Dec 09:10 → 11:25, direct, £94 pp, £188 total, 3 seats left\n- NX 880');
  });

  it('attaches stored artifacts and links artifacts that only have a URL', () => {
    const stored: Part = { data: { artifactId: 'AAAAAAAAAAAAAAAAAAAAAA', name: 'ticket.pdf', mimeType: 'application/pdf', sizeBytes: 1200 }, metadata: { partType: 'artifact' } };
    const linked: Part = { data: { url: 'https://files.example/map.png', name: 'map.png' }, metadata: { partType: 'artifact' } };
    const mail = only(render(envelope(text('Your files.'), stored, linked), ada));
    expect(mail.attachments).toEqual([{ artifactId: 'AAAAAAAAAAAAAAAAAAAAAA', name: 'ticket.pdf', mimeType: 'application/pdf', sizeBytes: 1200 }]);
    expect(mail.text).toContain('map.png: https://files.example/map.png');
    expect(mail.html).toContain('<a href="https://files.example/map.png">map.png</a>');
    const filesOnly = only(render(envelope(stored), ada));
    expect(filesOnly.text.startsWith('Attached: ticket.pdf')).toBe(true);
  });

  it('renders a flushed part alone, nothing for turns, empty renderings or mail to itself', () => {
    expect(only(render({ type: 'part', turnId: 't', partId: 'p', turnState: 'working', part: text('Which day?', 'clarify') }, ada)).text).toContain('Which day?');
    expect(render({ type: 'turn', turnId: 't', turnState: 'complete' }, ada)).toEqual([]);
    expect(render(envelope(text('  '), text('thinking…', 'thinking')), ada)).toEqual([]);
    expect(render(envelope(text('Hi')), { channel: 'email', address: 'Bot@Example.com' })).toEqual([]);
  });

  it('signs the text after the "-- " delimiter, with the bare address when From has no name', () => {
    expect(only(render(envelope(text('Hi')), ada)).text).toBe('Hi\n\n-- \nConcierge · automated assistant');
    const unnamed = createEmailRender({ from: '<bot@example.com>', fromAddress: 'bot@example.com', messageIds, clock: () => NOW });
    expect(only(unnamed(envelope(text('Hi')), ada)).text.endsWith('-- \nbot@example.com · automated assistant')).toBe(true);
  });

  it('refuses an unknown time zone', () => {
    expect(() => createEmailRender({ from: 'bot@example.com', fromAddress: 'bot@example.com', messageIds, timeZone: 'Mars/Olympus' })).toThrow(/time zone/);
  });

  it('is plain JSON', () => {
    const mail = only(render(envelope(text('Hi')), inThread({ messageId: '<a@b>', subject: 's' })));
    expect(JSON.parse(JSON.stringify(mail))).toEqual(mail);
  });
});

describe('email notices', () => {
  it('are short auto-replied mail threaded on the mail they answer', () => {
    const notice: RenderInput = { type: 'notice', id: 'approval-answer:1', text: 'Approved: **K7QX2M**.', inReplyTo: 'r1@mail.example' };
    const mail = only(render(notice, inThread({ messageId: '<r0@mail.example>', subject: 'Re: [approval:x] Approve' })));
    expect(mail).toMatchObject({ kind: 'notice', autoSubmitted: 'auto-replied', inReplyTo: '<r1@mail.example>', text: expect.stringMatching(/^Approved: K7QX2M\./) as unknown });
    expect(mail.references).toEqual(['<r0@mail.example>', '<r1@mail.example>']);
  });

  it('thread on the answered mail when their parent is not a Message-ID', () => {
    const notice: RenderInput = { type: 'notice', id: 'n-2', text: 'Done.', inReplyTo: 'web-message-7' };
    const mail = only(render(notice, inThread({ messageId: '<r0@mail.example>', subject: 'Trip' })));
    expect(mail).toMatchObject({ inReplyTo: '<r0@mail.example>', references: ['<r0@mail.example>'], subject: 'Re: Trip' });
  });
});

describe('approval request mail', () => {
  it('out of a thread: token subject, fixed Message-ID, auto-generated', () => {
    const mail = only(render(approvalRequest(record()), { channel: 'email', address: 'boss@example.com' }));
    expect(mail.subject).toBe(`[approval:${APPROVAL_ID}] Approve: book flight MW 304 on Fri 18 Dec 2026 for Ada Lovelace, EUR 412.50`);
    expect(mail.messageId).toBe(messageIds.forApproval(APPROVAL_ID, 'boss@example.com'));
    expect(messageIds.read(mail.messageId ?? '')).toEqual({ kind: 'approval', approvalId: APPROVAL_ID });
    expect(mail).toMatchObject({ kind: 'approval-request', to: 'boss@example.com', autoSubmitted: 'auto-generated', attachments: [] });
    expect(mail.inReplyTo).toBeUndefined();
  });

  it('says what will happen, with the arguments, amount, expiry, code and how to answer, in text and HTML', () => {
    const mail = only(render(approvalRequest(record()), { channel: 'email', address: 'boss@example.com' }));
    for (const body of [mail.text, mail.html]) {
      expect(body).toContain('concierge wants to book flight MW 304 on Fri 18 Dec 2026 for Ada Lovelace, EUR 412.50.');
      expect(body).toMatch(/Passengers:(<\/strong>)? Ada Lovelace/);
      expect(body).toMatch(/Amount:(<\/strong>)? EUR 412.50/);
      expect(body).toContain('This request expires in 1 hour, at 11:00 UTC.');
      expect(body).toContain('K7QX2M');
      expect(body).toContain('Reply APPROVE to approve, or DENY to refuse.');
      // The web card is shown only in the web conversation that asked; no mail names it.
      expect(body).not.toContain('web chat');
    }
    expect(markdownArtefacts(mail.text, { backticks: true })).toEqual([]);
  });

  it('tells a requester who may not decide whose approval is awaited, without how to answer', () => {
    const mail = only(render(approvalRequest(record(), false), { channel: 'email', address: 'ada@example.com' }));
    for (const body of [mail.text, mail.html]) {
      expect(body).toContain('concierge wants to book flight MW 304 on Fri 18 Dec 2026 for Ada Lovelace, EUR 412.50.');
      expect(body).toContain("Waiting for boss's approval.");
      expect(body).not.toMatch(/APPROVE|DENY|Reply|web chat/);
    }
  });

  it('has no line that would decide if quoted back', () => {
    const mail = only(render(approvalRequest(record()), { channel: 'email', address: 'boss@example.com' }));
    for (const line of mail.text.split('\n')) expect(parseApprovalReply(line).kind).toBe('none');
  });

  it('in a thread: keeps the thread subject without approval tokens, and its own Message-ID', () => {
    const stale = 'BbCdEfGhIjKlMnOpQrStUv';
    const destination = inThread({ messageId: '<m2@x>', references: '<m1@x>', subject: `Re: [approval:${stale}] Approve: hotel` });
    const mail = only(render(approvalRequest(record()), destination));
    expect(mail.subject).toBe('Re: Approve: hotel');
    expect(approvalIdsInSubject(mail.subject)).toEqual([]);
    expect(mail).toMatchObject({ messageId: messageIds.forApproval(APPROVAL_ID, 'ada@example.com'), inReplyTo: '<m2@x>', references: ['<m1@x>', '<m2@x>'] });
  });
});

describe('approval update mail', () => {
  const decided = record({ status: 'granted', decidedBy: { channel: 'email', address: 'boss@example.com', personId: 'boss' }, decidedAt: '2030-01-01T10:05:00.000Z' });

  it('answers the request mail: In-Reply-To its Message-ID, Re: its subject; the decider gets no update', () => {
    expect(render({ type: 'approval-update', record: decided }, { channel: 'email', address: decided.decidedBy?.address ?? '' })).toEqual([]);
    const mail = only(render({ type: 'approval-update', record: decided }, { channel: 'email', address: 'deputy@example.com' }));
    const requestId = messageIds.forApproval(APPROVAL_ID, 'deputy@example.com');
    expect(mail).toMatchObject({ kind: 'approval-update', autoSubmitted: 'auto-generated', inReplyTo: requestId, references: [requestId] });
    expect(mail.subject.startsWith(`Re: [approval:${APPROVAL_ID}] Approve: book flight MW 304`)).toBe(true);
    expect(mail.text).toContain('Request K7QX2M (book flight MW 304 on Fri 18 Dec 2026 for Ada Lovelace, EUR 412.50) was approved by boss at 10:05 UTC.');
    expect(mail.messageId).toBeUndefined();
  });

  it('in a thread: keeps the thread subject and answers the request after the thread chain', () => {
    const mail = only(render({ type: 'approval-update', record: decided }, inThread({ messageId: '<m2@x>', references: '<m1@x>', subject: 'Re: Paris' })));
    const requestId = messageIds.forApproval(APPROVAL_ID, 'ada@example.com');
    expect(mail).toMatchObject({ subject: 'Re: Paris', inReplyTo: requestId, references: ['<m1@x>', '<m2@x>', requestId] });
  });

  it('says denied and expired outcomes, and nothing while pending', () => {
    const denied = only(render({ type: 'approval-update', record: { ...decided, status: 'denied', reason: 'Too expensive' } }, ada));
    expect(denied.text).toContain('was denied by boss at 10:05 UTC. It will not be done.');
    expect(denied.text).toContain('Reason: Too expensive');
    const expired = only(render({ type: 'approval-update', record: record({ status: 'expired' }) }, ada));
    expect(expired.text).toContain('expired at 11:00 UTC without a decision');
    expect(render({ type: 'approval-update', record: record() }, ada)).toEqual([]);
  });
});
