import { describe, expect, it } from 'vitest';
import { sampleApproval } from '../../test/support/approval-fixtures.ts';
import { renderWebEvents } from './render.ts';

describe('renderWebEvents', () => {
  it('gives an answer part safe HTML: markdown formatted, the model\'s raw HTML escaped', () => {
    const [event] = renderWebEvents({
      type: 'part',
      turnId: 't1',
      partId: 't1.0',
      turnState: 'complete',
      part: { text: '**BA 2043** <img src=x onerror=alert(1)> [fares](javascript:alert(1)) and [rules](https://example.com/r)', metadata: { partType: 'response' } },
    });
    const html = event?.type === 'part' ? event.html : undefined;
    expect(html).toContain('<strong>BA 2043</strong>');
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(html).not.toContain('javascript:');
    expect(html).toContain('href="https://example.com/r"');
  });

  it('leaves parts the page does not show as text without HTML', () => {
    const [event] = renderWebEvents({ type: 'part', turnId: 't1', partId: 't1.0', turnState: 'awaiting', part: { data: { x: 1 }, metadata: { partType: 'domain-data' } } });
    expect(event).toMatchObject({ type: 'part' });
    expect(event !== undefined && 'html' in event).toBe(false);
  });

  it('shows a requester who may not decide whom the request waits for (the card then has no buttons)', () => {
    const record = sampleApproval({ approvalId: 'a3', status: 'pending', approvers: [{ channel: 'email', address: 'grace@example.com', personId: 'grace' }] });
    const part = { data: { approvalId: 'a3' }, metadata: { partType: 'approval-request' } };
    const [waiting] = renderWebEvents({ type: 'approval-request', record, partId: 'p1', part, mayDecide: false });
    expect(waiting?.type === 'part' ? waiting.part.data : undefined).toEqual({ approvalId: 'a3', mayDecide: false, waitingFor: "Waiting for grace's approval." });
    const [deciding] = renderWebEvents({ type: 'approval-request', record, partId: 'p1', part });
    expect(deciding?.type === 'part' ? deciding.part.data : undefined).toEqual({ approvalId: 'a3' });
  });

  it('turns a decided approval into its card update, and a pending one into nothing', () => {
    const decided = sampleApproval({ approvalId: 'a1', status: 'granted', decidedBy: { channel: 'email', address: 'grace@example.com', personId: 'grace' }, decidedAt: '2030-01-01T10:05:00.000Z' });
    expect(renderWebEvents({ type: 'approval-update', record: decided })).toEqual([{ type: 'approval', approvalId: 'a1', status: 'granted', decidedBy: 'grace', decidedAt: '2030-01-01T10:05:00.000Z' }]);
    expect(renderWebEvents({ type: 'approval-update', record: sampleApproval({ approvalId: 'a2', status: 'pending' }) })).toEqual([]);
  });

  it('shows a notice as a settled answer of its own', () => {
    const events = renderWebEvents({ type: 'notice', id: 'n1', text: 'Sent to *Grace*.' });
    expect(events.map((event) => event.type)).toEqual(['part', 'turn']);
    expect(events[0]).toMatchObject({ html: expect.stringContaining('<em>Grace</em>') as string });
  });

  it('gives an artifact part that names a stored artifact its signed link, as a path of this service', () => {
    const artifactUrl = (id: string): string => `https://chat.example.com/artifacts/${id}?sig=abc&exp=1`;
    const [event] = renderWebEvents({ type: 'part', turnId: 't1', partId: 't1.0', turnState: 'complete', part: { data: { artifactId: 'art_1', name: 'ticket.pdf' }, metadata: { partType: 'artifact' } } }, { artifactUrl });
    expect(event).toMatchObject({ part: { data: { artifactId: 'art_1', name: 'ticket.pdf', url: '/artifacts/art_1?sig=abc&exp=1' } } });
    const [given] = renderWebEvents({ type: 'part', turnId: 't1', partId: 't1.1', turnState: 'complete', part: { data: { url: 'https://files.example.com/a.png' }, metadata: { partType: 'artifact' } } }, { artifactUrl });
    expect(given).toMatchObject({ part: { data: { url: 'https://files.example.com/a.png' } } });
  });
});
