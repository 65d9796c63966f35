import { describe, expect, it } from 'vitest';
import type { StoredEventLogEntry } from '../../src/runtime/session/event-log.ts';
import { APPROVAL, ENTRIES, HOSTILE, SESSION } from '../../test/support/inspector-fixtures.ts';
import type { EntryView, ViewContext } from './entry-view.ts';
import { renderEntry } from './timeline-html.ts';
import { entryView, safeHref } from './timeline-views.ts';

const context: ViewContext = { sessionId: SESSION, approvals: new Map([[APPROVAL.approvalId, { record: APPROVAL, audit: [] }]]), captures: true };

function viewOfType(type: string, index = 0): EntryView {
  const found = ENTRIES.filter((entry) => entry.type === (type as StoredEventLogEntry['type']))[index];
  if (found === undefined) throw new Error(`no ${type} entry in the fixtures`);
  return entryView(found, context);
}

function valueOf(view: EntryView, label: string): string | undefined {
  return view.fields.find((item) => item.label === label)?.value;
}

describe('entry views', () => {
  it('show an injection with its channel, sender, what was verified and its attachments', () => {
    const view = viewOfType('injection');
    expect(view.title).toBe('Message in on sms');
    expect(valueOf(view, 'Sender')).toBe('ada (+15550100)');
    expect(valueOf(view, 'Verified')).toBe('not verified (caller id)');
    expect(valueOf(view, 'Content')).toBe('typed, outside content (read as data)');
    expect(valueOf(view, 'Attachments')).toBe('ticket.png (image/png, 2,048 bytes)');
    expect(view.blocks).toEqual([{ label: 'Text', text: `Book it ${HOSTILE}` }]);
  });

  it('show a model call with its model, latency, tokens, cost, stop reason, parts and capture link', () => {
    const response = viewOfType('model_response');
    expect(response.title).toBe('Model response, step 0');
    expect([valueOf(response, 'Model'), valueOf(response, 'Latency'), valueOf(response, 'Tokens in'), valueOf(response, 'Tokens out'), valueOf(response, 'Cache read')]).toEqual(['claude-test', '850 ms', '1,200', '80', '1,000']);
    expect(valueOf(response, 'Cost')).toBe('$0.004321');
    expect(valueOf(response, 'Stop reason')).toBe('tool_use');
    expect(response.blocks).toContainEqual({ label: 'respond() part: ack', text: `On it ${HOSTILE}` });
    const request = viewOfType('model_request');
    expect(request.fields.find((item) => item.label === 'Captured')?.href).toBe(`/admin/conversations/${SESSION}/captures/turn-1/0`);
    expect(entryView({ ...(ENTRIES[2] as StoredEventLogEntry) }, { ...context, captures: false }).fields.map((item) => item.label)).not.toContain('Captured');
  });

  it('show a failed model call as an error', () => {
    const view = entryView({ id: '1-0', at: 1, type: 'model_response', turnId: 't', data: { step: 1, error: 'overloaded' } }, context);
    expect(view).toMatchObject({ title: 'Model call failed, step 1', tone: 'error', blocks: [{ label: 'Error', text: 'overloaded' }] });
  });

  it('show a tool call with arguments, result, duration, scope, routing and its approval', () => {
    const waiting = viewOfType('tool_call');
    expect(waiting).toMatchObject({ title: 'Tool call: book_flight (approval required)', tone: 'warn' });
    const done = viewOfType('tool_call', 1);
    expect(valueOf(done, 'Duration')).toBe('42 ms');
    expect(valueOf(done, 'Scope / routing')).toBe('generalist / router');
    expect(done.fields.find((item) => item.label === 'Approval')?.href).toBe('#approval-appr-1');
    expect(done.blocks.map((item) => item.label)).toEqual(['Arguments', 'Result']);
    expect(done.blocks[1]?.text).toBe(`confirmed ${HOSTILE}`);
  });

  it('show who was asked for an approval, who decided and on which evidence', () => {
    const requested = viewOfType('approval');
    expect(valueOf(requested, 'Asked via')).toBe('ada (sms +15550100)');
    const decided = viewOfType('approval', 1);
    expect(decided.title).toBe('Approval decided: book_flight');
    expect(decided.tone).toBe('ok');
    expect(valueOf(decided, 'Decided by')).toBe('ada (sms +15550100), not verified');
    expect(valueOf(decided, 'Evidence')).toContain('reply APPROVE');
    expect(valueOf(decided, 'Status now')).toBe('granted');
  });

  it('show each delivery attempt and the provider status after it', () => {
    const retry = viewOfType('delivery');
    expect(retry).toMatchObject({ title: 'Delivery on sms, attempt 1: retry', tone: 'warn' });
    expect(valueOf(retry, 'Error')).toBe('Too many requests (delivery.rate_limited, HTTP 429)');
    expect(viewOfType('delivery', 1)).toMatchObject({ title: 'Delivery on sms, attempt 2: sent', providerMessageId: 'SM123' });
    const handed = entryView({ id: '1-0', at: 1, type: 'delivery', turnId: 't', data: { channel: 'sms', key: 'k1' } }, context);
    expect(handed).toMatchObject({ title: 'Handed to sms for delivery', fields: [{ label: 'Channel', value: 'sms' }, { label: 'Idempotency key', value: 'k1' }] });
    const skipped = entryView({ id: '1-0', at: 1, type: 'delivery', turnId: 't', data: { skipped: 'no such channel', channel: 'fax' } }, context);
    expect(skipped).toMatchObject({ title: 'Delivery on fax skipped: no such channel', tone: 'warn' });
    expect(viewOfType('delivery_status')).toMatchObject({ title: 'Provider status on sms: delivered', tone: 'ok', providerMessageId: 'SM123' });
  });

  it('show a handoff', () => {
    const view = entryView({ id: '1-0', at: 1, type: 'turn_state', turnId: 't', data: { turnState: 'awaiting', passTo: 'billing', note: 'over to billing' } }, context);
    expect(view.title).toBe('Handoff to billing (awaiting)');
    expect(view.blocks).toEqual([{ label: 'Note', text: 'over to billing' }]);
  });

  it('show an unknown type by its keys and values', () => {
    const view = viewOfType('mystery_event');
    expect(view.title).toBe('Mystery event');
    expect(view.fields).toEqual([{ label: 'note', value: HOSTILE }, { label: 'nested', value: '{"deep":[1,2]}' }]);
    expect(view.raw).toContain('"deep"');
  });

  it('never throw on malformed entries', () => {
    const malformed: unknown[] = [
      { id: '1-0', at: 1, type: 'model_response', data: null },
      { id: '1-1', at: 1, type: 'tool_call', data: 'just text' },
      { id: '1-2', at: 1, type: 'approval', data: { approvalId: 42, askedVia: 'somebody', decidedBy: [1] } },
      { id: '1-3', at: 1, type: 'delivery', data: { attempt: 'one', error: 'boom' } },
      { id: '1-4', at: 1, type: 'injection', data: { sender: 'x', attachments: 'none', content: 7 } },
      { id: '1-5', at: 'yesterday', type: 7, data: [1, 2] },
      { id: '1-6', at: 1, type: 'model_request', data: { truncated: true, head: '{"step":0,"messages":[' } },
      { id: '1-7', at: 1, type: 'constructor', data: {} },
      { id: '1-8', at: 1, type: 'model_response', data: { parts: [null, { partType: 3 }], usage: 'lots' } },
    ];
    for (const raw of malformed) {
      const view = entryView(raw as StoredEventLogEntry, context);
      expect(typeof view.title).toBe('string');
      expect(() => renderEntry(view)).not.toThrow();
    }
    expect(entryView(malformed[6] as StoredEventLogEntry, context)).toMatchObject({ title: 'Model request (cut: too long for the log)', tone: 'warn' });
    expect(entryView(malformed[7] as StoredEventLogEntry, context).title).toBe('Constructor');
  });
});

describe('rendered rows', () => {
  it('escape every value: model output, tool arguments, message text, unknown entries', () => {
    const html = ENTRIES.map((entry) => renderEntry(entryView(entry, context))).join('\n');
    expect(html).not.toContain(HOSTILE);
    expect(html).not.toMatch(/<img/i);
    expect(html).toContain('&#60;img src=x onerror=&#34;window.pwned=1&#34;&#62;');
    expect(html).toContain('data-type="mystery_event"');
  });

  it('link only to paths of this site and anchors', () => {
    expect(safeHref('/admin/conversations/x')).toBe('/admin/conversations/x');
    expect(safeHref('#approval-1')).toBe('#approval-1');
    for (const href of ['//evil.example/x', 'javascript:alert(1)', 'https://evil.example', '/a b', '/\\evil']) expect(safeHref(href)).toBeUndefined();
    const view: EntryView = { id: '1-0', type: 'x', at: '', title: 't', fields: [{ label: 'l', value: 'v', href: 'javascript:alert(1)' }], blocks: [], raw: '{}' };
    expect(renderEntry(view)).not.toContain('javascript:');
  });
});
