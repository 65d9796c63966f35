import { describe, expect, it } from 'vitest';
import type { Part } from '../../src/protocol/parts/part.ts';
import type { RenderInput } from '../channel.ts';
import { contractApproval } from '../kit/contract/channel-contract.ts';
import { ANSWERS } from '../kit/render/fixtures/answers.ts';
import { codeStrings, withoutCode } from '../kit/render/fixtures/checks.ts';
import { parseMarkdown } from '../kit/render/parse-markdown.ts';
import { readApprovalButtonId } from './approval-buttons.ts';
import { createWhatsAppRender } from './render.ts';
import { MAX_TEMPLATE_PARAM_CHARS, MAX_TEXT_CHARS, readWhatsAppPayload, templateLine, type WhatsAppPayload } from './whatsapp-payload.ts';

const GRACE = { channel: 'whatsapp', address: '+447700900123', thread: { quoteId: 'wamid.HBgM1' } };
const GROUP = { channel: 'whatsapp', address: '120363041234567890@g.us', thread: { quoteId: 'false_120363041234567890@g.us_3EB0AB' } };
const clock = (): Date => new Date('2030-01-01T10:00:00.000Z');
const said = (text: string): Part => ({ text, metadata: { partType: 'response' } });
const envelope = (...parts: Part[]): RenderInput => ({ type: 'envelope', turnId: 't-1', turnState: 'complete', parts });
const textOf = (payload: WhatsAppPayload | undefined): string => (payload?.message.kind === 'text' ? payload.message.text : '');

/** Markdown left in WhatsApp text: `**`, `__`, a `#` heading, `](`, `<http`. */
function artefacts(text: string): string[] {
  const found = ['**', '__', '](', '<http'].filter((mark) => text.includes(mark));
  return /^\s*#{1,6}\s/m.test(text) ? [...found, '#'] : found;
}

describe('WhatsApp rendering', () => {
  const render = createWhatsAppRender({ via: 'cloud', clock });

  it('renders the corpus of model answers in WhatsApp markup, no markdown left, 4,096 characters a message', () => {
    expect(ANSWERS.length).toBeGreaterThanOrEqual(60);
    for (const { markdown } of ANSWERS) {
      const payloads = render(envelope(said(markdown)), GRACE);
      const code = codeStrings(parseMarkdown(markdown));
      for (const payload of payloads.filter((each) => each.message.kind === 'text')) {
        const text = textOf(payload);
        expect(text.length).toBeLessThanOrEqual(MAX_TEXT_CHARS);
        expect(artefacts(withoutCode(text, code)), markdown).toEqual([]);
        expect(payload.templateText.length).toBeLessThanOrEqual(MAX_TEMPLATE_PARAM_CHARS);
        expect(payload.templateText).not.toMatch(/[\n\t]| {5}/);
      }
    }
  });

  it('uses bold, italic, strike and monospace, and splits a long answer at paragraph boundaries', () => {
    const [first] = render(envelope(said('# Trip\n\n**Day 1**: ~~Rome~~ _Florence_, `BA2043`')), GRACE);
    expect(textOf(first)).toBe('*Trip*\n*Day 1*: ~Rome~ _Florence_, ```BA2043```');
    const paragraphs = Array.from({ length: 80 }, (_, index) => `Paragraph ${index + 1}: ${'the direct flight leaves at 08:45 and lands at 14:20. '.repeat(2)}`);
    const payloads = render(envelope(said(paragraphs.join('\n\n'))), GRACE);
    expect(payloads.length).toBeGreaterThan(1);
    for (const payload of payloads) {
      expect(textOf(payload).length).toBeLessThanOrEqual(MAX_TEXT_CHARS);
      // Every message ends at the end of a paragraph.
      expect(textOf(payload).trimEnd()).toMatch(/14:20\.$/);
    }
    expect(payloads.map(textOf).join('\n\n')).toContain('Paragraph 80:');
  });

  it('quotes the message it answers in a group, not in a one-to-one chat', () => {
    const [inGroup] = render(envelope(said('Here you are.')), GROUP);
    expect(inGroup?.message).toMatchObject({ kind: 'text', to: GROUP.address, quoteId: GROUP.thread.quoteId });
    const [direct] = render(envelope(said('Here you are.')), GRACE);
    expect(direct?.message).not.toHaveProperty('quoteId');
  });

  it('sends kept artifacts as media messages and lists domain data as short lines', () => {
    const file: Part = { data: { artifactId: 'Zx4bQ2tGd1sQ9cYk3mWvTa', name: 'ticket.pdf', mimeType: 'application/pdf' }, metadata: { partType: 'artifact' } };
    const data: Part = { data: { flights: [{ flightNumber: 'BA2043', from: 'LGW', to: 'CFU', price: 187 }] }, metadata: { partType: 'domain-data' } };
    const payloads = render(envelope(said('Your ticket:'), data, file), GRACE);
    expect(payloads.at(-1)?.message).toEqual({ kind: 'media', to: GRACE.address, artifactId: 'Zx4bQ2tGd1sQ9cYk3mWvTa', name: 'ticket.pdf' });
    const text = payloads.filter((payload) => payload.message.kind === 'text').map(textOf).join('\n');
    expect(text).toContain('BA2043');
    expect(artefacts(text)).toEqual([]);
  });

  it('asks for an approval with two reply buttons whose ids carry the approval (Cloud API)', () => {
    const record = contractApproval({ channel: 'whatsapp', address: GRACE.address });
    const [payload] = render({ type: 'approval-request', record, partId: 't-1.0', part: { data: { approvalId: record.approvalId }, metadata: { partType: 'approval-request' } } }, GRACE);
    expect(payload?.kind).toBe('approval-request');
    const message = payload?.message;
    if (message?.kind !== 'buttons') throw new Error('expected buttons');
    expect(message.body.length).toBeLessThanOrEqual(1024);
    expect(message.body).toContain('K7QX2M');
    expect(message.buttons.map((button) => button.title)).toEqual(['Approve', 'Deny']);
    expect(message.buttons.map((button) => readApprovalButtonId(button.id))).toEqual([
      { approvalId: record.approvalId, decision: 'granted', argsHash: record.argsHash },
      { approvalId: record.approvalId, decision: 'denied', argsHash: record.argsHash },
    ]);
    expect(payload?.quickReplies).toEqual(message.buttons.map((button) => button.id));
  });

  it('tells a requester who may not decide what is awaited, without buttons or a code to answer', () => {
    const record = { ...contractApproval({ channel: 'whatsapp', address: '+15550100999' }), requester: { channel: 'whatsapp', address: GRACE.address } };
    const [payload] = render({ type: 'approval-request', record, partId: 't-1.0', part: { data: { approvalId: record.approvalId }, metadata: { partType: 'approval-request' } }, mayDecide: false }, GRACE);
    expect(payload?.message.kind).toBe('text');
    expect(textOf(payload)).toMatch(/^Approval K7QX2M: .*\nWaiting for grace's approval\.$/s);
    expect(textOf(payload)).not.toMatch(/APPROVE|DENY|[Rr]eply/);
    expect(payload?.quickReplies).toBeUndefined();
  });

  it('asks for an approval by short code in web mode', () => {
    const record = contractApproval({ channel: 'whatsapp', address: GRACE.address });
    const [payload] = createWhatsAppRender({ via: 'web', clock })({ type: 'approval-request', record, partId: 't-1.0', part: { data: { approvalId: record.approvalId }, metadata: { partType: 'approval-request' } } }, GRACE);
    expect(textOf(payload)).toMatch(/APPROVE K7QX2M.*DENY K7QX2M/s);
  });

  it('tells the others an approval was decided, and not the person who decided it', () => {
    const record = { ...contractApproval({ channel: 'whatsapp', address: GRACE.address }), status: 'granted' as const, decidedAt: '2030-01-01T10:05:00.000Z', decidedBy: { channel: 'whatsapp', address: GRACE.address, personId: 'grace', verified: true } };
    expect(render({ type: 'approval-update', record }, GRACE)).toEqual([]);
    const [other] = render({ type: 'approval-update', record }, { channel: 'whatsapp', address: '+15550100999' });
    expect(textOf(other)).toMatch(/^Approval K7QX2M was approved by .* at 10:05 UTC/);
  });

  it('reads its own payloads back and refuses anything else', () => {
    for (const payload of render(envelope(said('Hello')), GRACE)) expect(readWhatsAppPayload(JSON.parse(JSON.stringify(payload)))).toEqual(payload);
    expect(() => readWhatsAppPayload({ kind: 'answer', message: { kind: 'fax', to: '+1' }, templateText: '' })).toThrow(/Not a WhatsApp payload/);
  });

  it('writes a template line without new lines, tabs or long runs of spaces', () => {
    expect(templateLine('Line one\n\n  Line\ttwo      wide')).toBe('Line one · Line two wide');
    expect(templateLine('x'.repeat(2000))).toHaveLength(MAX_TEMPLATE_PARAM_CHARS);
  });
});
