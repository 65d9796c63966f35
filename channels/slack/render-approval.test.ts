import { describe, expect, it } from 'vitest';
import type { ApprovalRecord } from '../../src/runtime/approvals/approval-types.ts';
import { bookFlightSentence } from '../kit/approvals/book-flight-sentence.ts';
import { contractApproval } from '../kit/contract/channel-contract.ts';
import { escapeProblems, mrkdwnTexts } from './render-checks.ts';
import { createSlackRender } from './render.ts';
import { readSlackPayload, type SlackBlock, type SlackPayload } from './slack-payload.ts';

const DEST = { channel: 'slack', address: 'C0123ABC', thread: { teamId: 'T0001', threadTs: '1712345678.000100' } };
const clock = (): Date => new Date('2030-01-01T10:00:00.000Z');
const render = createSlackRender({ clock, sentences: { book_flight: bookFlightSentence } });
const RECORD: ApprovalRecord = { ...contractApproval({ channel: 'slack', address: 'T0001:U0GRACE' }), requester: { channel: 'slack', address: 'T0001:U0ADA' } };
const KEY = `approval:${RECORD.approvalId}`;

function card(record: ApprovalRecord = RECORD, options = render): SlackPayload {
  const payloads = options({ type: 'approval-request', record, partId: 'turn-1.0', part: { metadata: { partType: 'approval-request' } } }, DEST);
  expect(payloads).toHaveLength(1);
  const [payload] = payloads;
  if (payload === undefined) throw new Error('no card');
  expect(readSlackPayload(payload)).toBe(payload);
  for (const text of mrkdwnTexts(payload)) expect(escapeProblems(text)).toEqual([]);
  return payload;
}

const blocksOf = (payload: SlackPayload): readonly SlackBlock[] => (payload.op === 'post' || payload.op === 'update' ? (payload.blocks ?? []) : []);
const fieldsOf = (payload: SlackPayload): string[] => blocksOf(payload).flatMap((block) => (block.type === 'section' ? (block.fields ?? []) : [])).map((field) => field.text);
const blockOf = <T extends SlackBlock['type']>(payload: SlackPayload, type: T): Extract<SlackBlock, { type: T }> | undefined =>
  blocksOf(payload).find((block): block is Extract<SlackBlock, { type: T }> => block.type === type);

describe('Slack approval card', () => {
  it('is one message in the thread, kept under the approval key, with a plain fallback', () => {
    const payload = card();
    expect(payload).toMatchObject({ op: 'post', channel: 'C0123ABC', teamId: 'T0001', threadTs: DEST.thread.threadTs, key: KEY });
    expect(payload.op === 'post' && payload.text).toBe('Approval needed: book flight BA2043, GBP 374.00 (code K7QX2M)');
    expect(blockOf(payload, 'header')?.text.text).toBe('Approval needed: book flight');
  });

  it('has Approve and Deny buttons carrying the approval id and the arguments hash', () => {
    const actions = blockOf(card(), 'actions');
    expect(actions?.block_id).toBe(KEY);
    const buttons = (actions?.elements ?? []).map((element) => (element.type === 'button' ? element : undefined));
    expect(buttons.map((button) => [button?.action_id, button?.style, button?.text.text])).toEqual([
      ['approval.approve', 'primary', 'Approve'],
      ['approval.deny', 'danger', 'Deny'],
    ]);
    for (const button of buttons) {
      expect((button?.value ?? '').length).toBeLessThanOrEqual(2000);
      expect(JSON.parse(button?.value ?? '')).toEqual({ approvalId: RECORD.approvalId, argsHash: RECORD.argsHash });
    }
  });

  it('says why it is asked when the record says (the turn read content from outside)', () => {
    const payload = card({ ...RECORD, askedBecause: 'this turn read content from outside: email body' });
    const contexts = blocksOf(payload).flatMap((block) => (block.type === 'context' ? block.elements : []));
    expect(contexts).toContainEqual({ type: 'mrkdwn', text: 'Asked because this turn read content from outside: email body.' });
  });

  it('shows a requester who may not decide whose approval is awaited instead of the buttons', () => {
    const payloads = render({ type: 'approval-request', record: RECORD, partId: 'turn-1.0', part: { metadata: { partType: 'approval-request' } }, mayDecide: false }, DEST);
    const [payload] = payloads;
    if (payload === undefined) throw new Error('no card');
    expect(readSlackPayload(payload)).toBe(payload);
    expect(blockOf(payload, 'actions')).toBeUndefined();
    expect(blocksOf(payload).at(-1)).toEqual({ type: 'context', elements: [{ type: 'mrkdwn', text: "Waiting for grace's approval." }] });
  });

  it('says what the call does, its amount once, its code, requester and expiry', () => {
    const plain = card(RECORD, createSlackRender({ clock }));
    const texts = mrkdwnTexts(plain).join('\n');
    expect(texts).toContain('concierge wants to run book_flight with:\n*Amount:* GBP 374.00');
    expect(fieldsOf(plain)).toEqual(['*Flight number*\nBA2043', '*Passengers*\n2']);
    expect(texts).toContain('Code *K7QX2M*  ·  Requested by <@U0ADA>  ·  Expires <!date^1893506400^{date_short_pretty} at {time}|at 14:00 UTC>');
    expect(mrkdwnTexts(card()).join('\n')).not.toContain('*Amount:*');
  });

  it('keeps to ten fields and escapes what the arguments hold', () => {
    const args = Object.fromEntries(Array.from({ length: 14 }, (_, index) => [`note${index}`, `a < b & c > d ${index}`]));
    const fields = fieldsOf(card({ ...RECORD, toolName: 'send_notes', args }));
    expect(fields).toHaveLength(10);
    expect(fields[0]).toBe('*Note 0*\na &lt; b &amp; c &gt; d 0');
    expect(fields[9]).toBe('_and 5 more_');
  });

  it('has no buttons once the request has expired', () => {
    const payload = card({ ...RECORD, expiresAt: '2030-01-01T09:00:00.000Z' });
    expect(blockOf(payload, 'actions')).toBeUndefined();
    expect(mrkdwnTexts(payload).join('\n')).toContain('Expired <!date^');
  });
});

describe('Slack approval card update', () => {
  const update = (record: ApprovalRecord): SlackPayload[] => render({ type: 'approval-update', record }, DEST);
  const decided = (status: 'granted' | 'denied', by = { channel: 'slack', address: 'T0001:U0GRACE', personId: 'grace' }): ApprovalRecord => ({
    ...RECORD,
    status,
    decidedBy: by,
    decidedAt: '2030-01-01T14:02:00.000Z',
  });

  it('replaces the buttons of the card with who approved it, and when', () => {
    const [payload, ...rest] = update(decided('granted'));
    expect(rest).toEqual([]);
    if (payload === undefined) throw new Error('no update');
    expect(readSlackPayload(payload)).toBe(payload);
    expect(payload).toMatchObject({ op: 'update', channel: 'C0123ABC', teamId: 'T0001', lookupKey: KEY, text: 'Approved by grace: book flight BA2043, GBP 374.00' });
    expect(blockOf(payload, 'actions')).toBeUndefined();
    expect(blockOf(payload, 'header')?.text.text).toBe('Approval needed: book flight');
    expect(blockOf(payload, 'context')?.elements).toEqual([
      { type: 'mrkdwn', text: ':white_check_mark: Approved by <@U0GRACE> <!date^1893506520^{date_short_pretty} at {time}|at 14:02 UTC>' },
    ]);
    for (const text of mrkdwnTexts(payload)) expect(escapeProblems(text)).toEqual([]);
  });

  it('tells a denial with its reason, and a decider from another channel by name', () => {
    const [payload] = update({ ...decided('denied', { channel: 'sms', address: '+447700900123', personId: 'grace' }), reason: 'Too dear <really>' });
    expect(payload).toMatchObject({ op: 'update', text: 'Denied by grace: book flight BA2043, GBP 374.00' });
    const line = payload === undefined ? '' : mrkdwnTexts(payload).at(-1);
    expect(line).toBe(':x: Denied by grace <!date^1893506520^{date_short_pretty} at {time}|at 14:02 UTC>. Reason: Too dear &lt;really&gt;');
  });

  it('tells an expiry, and sends nothing while pending', () => {
    const [payload] = update({ ...RECORD, status: 'expired' });
    expect(payload).toMatchObject({ op: 'update', lookupKey: KEY, text: 'Expired without a decision: book flight BA2043, GBP 374.00' });
    expect(payload === undefined ? '' : mrkdwnTexts(payload).at(-1)).toBe(':hourglass: Expired <!date^1893506400^{date_short_pretty} at {time}|at 14:00 UTC>');
    expect(update(RECORD)).toEqual([]);
  });
});
