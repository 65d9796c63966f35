import { describe, expect, it } from 'vitest';
import { collectDomainData } from '../../../src/protocol/envelope/collect-domain-data.ts';
import { SwitchboardError } from '../../../src/protocol/errors.ts';
import type { Part } from '../../../src/protocol/parts/part.ts';
import { ANSWERS } from './fixtures/answers.ts';
import { sanitise, slackProblems } from './fixtures/checks.ts';
import { BOOKING, FLIGHT_RESULTS } from './fixtures/flight-data.ts';
import { renderForChannel } from './render-for-channel.ts';
import { smsSegments } from './sms-segments.ts';

const text = (partType: string, value: string): Part => ({ text: value, metadata: { partType } });
const domainData = collectDomainData({ events: [{ kind: 'flight-results', data: FLIGHT_RESULTS }, { kind: 'booking', data: BOOKING }] });
const approval: Part = {
  data: {
    approvalId: 'ap-1',
    toolName: 'book_flight',
    toolCallId: 'call-1',
    args: { flightNumber: 'MW 304', passengers: [{ fullName: 'Ada Lovelace' }], totalCost: 118, currency: 'GBP' },
    handler: 'travel',
    turn: 'turn-1',
    session: 'session-1',
    expiresAt: '2026-12-01T10:00:00Z',
  },
  metadata: { partType: 'approval-request' },
};
const ticket: Part = { data: { url: 'https://files.example/SB7K2M9Q.pdf', mimeType: 'application/pdf' }, metadata: { partType: 'artifact' } };

describe('renderForChannel', () => {
  it('renders the parts people see and skips internal ones', () => {
    const parts = [
      text('ack', 'On it!'),
      text('thinking', 'Searching…'),
      text('response', '**Done.**'),
      text('llm-context', 'For the peer model only.'),
      text('clarify', 'Which day?'),
      { data: { message: 'The booking system is down.' }, metadata: { partType: 'error' } },
      text('ta.custom-note', 'A consumer part with text.'),
      { data: { x: 1 }, metadata: { partType: 'citation' } },
    ];
    expect(renderForChannel({ format: 'plain' }, parts).chunks).toEqual([
      'Done.\n\nWhich day?\n\nThe booking system is down.\n\nA consumer part with text.',
    ]);
  });

  it('renders approval requests with the channel prompt, and domain data through the templates', () => {
    const { chunks } = renderForChannel({ format: 'whatsapp' }, [approval, ...(domainData === undefined ? [] : [domainData])], {
      approvalPrompt: () => 'Reply YES to approve or NO to decline.',
    });
    expect(chunks).toHaveLength(1);
    expect(chunks[0]).toBe(
      [
        '*Approval needed: book flight*',
        '- *Flight number:* MW 304',
        '- *Passengers:* Ada Lovelace',
        '- *Total cost:* 118',
        '- *Currency:* GBP',
        '',
        'Answer before 2026-12-01 10:00 UTC.',
        '',
        'Reply YES to approve or NO to decline.',
        '',
        '*Flights LHR → CDG, Fri 18 Dec 2026, 2 passengers*',
        '- AU 1021 Aurora Air, 18 Dec 09:10 → 11:25, direct, £94 pp, £188 total, 3 seats left',
        '- NX 880 Northwind Express, 18 Dec 23:05 → 02:40 (+1 day), 1 stop, €71.50 pp, €143 total',
        '',
        '*Booking confirmed*',
        '*Reference:* SB7K2M9Q',
        '*Flight:* MW 304 Meridian Airways, LHR 07:25 → CDG 09:40, Fri 18 Dec 2026',
        '*Passengers:* Ada Lovelace, Alan Turing',
        '*Total:* £236',
      ].join('\n'),
    );
  });

  it('says why an approval is asked when the request gives a reason', () => {
    const data = { ...approval.data, reason: 'this turn read content from outside: email body' };
    const { chunks } = renderForChannel({ format: 'plain' }, [{ ...approval, data }]);
    expect(chunks[0]).toContain('Asked because this turn read content from outside: email body.\n\nAnswer before 2026-12-01 10:00 UTC.');
  });

  it('leaves domain data out when asked', () => {
    const parts = [text('response', 'Hi'), ...(domainData === undefined ? [] : [domainData])];
    expect(renderForChannel({ format: 'slack' }, parts, { includeDomainData: false }).chunks).toEqual(['Hi']);
  });

  it('e-mail: subject, sanitiser-proof HTML with a flight table, plain-text alternative, attachments', () => {
    const parts = [text('response', '# Your trip to Paris\n\nAll set <script>x</script>.'), ...(domainData === undefined ? [] : [domainData]), ticket];
    const mail = renderForChannel({ format: 'email' }, parts);
    expect(mail.subject).toBe('Your trip to Paris');
    expect(mail.html).toContain('<p>All set &lt;script&gt;x&lt;/script&gt;.</p>');
    expect(mail.html).toContain('<tr><th>Flight</th>');
    expect(sanitise(mail.html)).toBe(mail.html);
    expect(mail.text.startsWith('Your trip to Paris\nAll set x.\n\nFlights LHR → CDG')).toBe(true);
    expect(mail.attachments).toEqual([{ name: 'SB7K2M9Q.pdf', url: 'https://files.example/SB7K2M9Q.pdf', mimeType: 'application/pdf' }]);
    expect(renderForChannel({ format: 'email' }, [approval]).subject).toBe('Approval needed: book flight');
    expect(renderForChannel({ format: 'email' }, [text('response', 'No heading')]).subject).toBeUndefined();
  });

  it('gives artifacts as attachments or as link lines, per target', () => {
    const parts = [text('response', 'Your ticket:'), ticket];
    expect(renderForChannel({ format: 'whatsapp' }, parts)).toMatchObject({ chunks: ['Your ticket:'], attachments: [{ name: 'SB7K2M9Q.pdf' }] });
    expect(renderForChannel({ format: 'plain' }, parts)).toEqual({
      format: 'plain',
      chunks: ['Your ticket:\n\nSB7K2M9Q.pdf: https://files.example/SB7K2M9Q.pdf'],
      attachments: [],
    });
    expect(renderForChannel({ format: 'slack' }, parts).chunks).toEqual(['Your ticket:\n\n<https://files.example/SB7K2M9Q.pdf|SB7K2M9Q.pdf>']);
    expect(renderForChannel({ format: 'web' }, parts).html).toBe(
      '<p>Your ticket:</p>\n<p><a href="https://files.example/SB7K2M9Q.pdf" target="_blank" rel="noopener noreferrer nofollow">SB7K2M9Q.pdf</a></p>',
    );
  });

  it('keeps every chunk within the target limit over the whole corpus', () => {
    const parts = ANSWERS.map((answer) => text('response', answer.markdown));
    const sms = renderForChannel({ format: 'plain', maxSegments: 3 }, parts);
    for (const chunk of sms.chunks) expect(smsSegments(chunk).segments).toBeLessThanOrEqual(3);
    const whatsapp = renderForChannel({ format: 'whatsapp' }, parts);
    for (const chunk of whatsapp.chunks) expect(chunk.length).toBeLessThanOrEqual(4096);
    const slack = renderForChannel({ format: 'slack' }, parts);
    for (const chunk of slack.chunks) {
      expect(chunk.length).toBeLessThanOrEqual(3000);
      expect(slackProblems(chunk)).toEqual([]);
    }
    expect(whatsapp.chunks.length).toBeGreaterThan(1);
    expect(slack.chunks.length).toBeGreaterThan(1);
  });

  it('makes SMS text GSM-7 friendly by default', () => {
    expect(renderForChannel({ format: 'plain' }, [text('response', 'It’s “on” — 5…')]).chunks).toEqual([`It's "on" - 5...`]);
    expect(renderForChannel({ format: 'plain', gsm: false }, [text('response', 'It’s')]).chunks).toEqual(['It’s']);
  });

  it('gives nothing for nothing, and refuses bad limits', () => {
    expect(renderForChannel({ format: 'slack' }, [])).toEqual({ format: 'slack', chunks: [], attachments: [] });
    expect(renderForChannel({ format: 'email' }, [])).toEqual({ format: 'email', html: '', text: '', attachments: [] });
    expect(() => renderForChannel({ format: 'whatsapp', maxChars: 0 }, [text('response', 'x')])).toThrow(SwitchboardError);
  });
});
