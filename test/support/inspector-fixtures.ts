/**
 * A recorded conversation for the inspector's tests: an SMS asking for a booking, a model call,
 * a tool call that waited for an approval, the approval, the answer's delivery and its later
 * status, with hostile text in the places a model, a person or a tool fills. And small in-memory
 * sources to serve it.
 */
import type { ApprovalAuditEntry, ApprovalRecord } from '../../src/runtime/approvals/approval-types.ts';
import type { ConversationQuery, ConversationSummary } from '../../src/runtime/inspect/conversation-index.ts';
import type { StoredEventLogEntry } from '../../src/runtime/session/event-log.ts';
import { readOnlyApprovalStore } from './read-only-approval-store.ts';
import { sampleApproval } from './approval-fixtures.ts';
import type { InspectorSources } from '../../service/inspector/inspector-sources.ts';

/** Markup that must stay text wherever it is shown. */
export const HOSTILE = '<img src=x onerror="window.pwned=1">';

/** The recorded conversation's session id. */
export const SESSION = 'ses_inspectortestsession0001';

const AT = Date.UTC(2030, 0, 1, 10, 0, 0);

function entry(seq: number, type: string, data: unknown, turnId?: string): StoredEventLogEntry {
  return { id: `${String(AT + seq)}-0`, at: AT + seq, type: type as StoredEventLogEntry['type'], ...(turnId === undefined ? {} : { turnId, actor: 'concierge' }), data: data as Record<string, unknown> };
}

/** The log of {@link SESSION}, in order. */
export const ENTRIES: readonly StoredEventLogEntry[] = [
  entry(1, 'sender_policy', { outcome: 'allowed', mode: 'open', sender: '+15550100' }),
  entry(2, 'injection', { id: 'sms:SM1', kind: 'message', channel: 'sms', content: { source: 'typed', trusted: false }, text: `Book it ${HOSTILE}`, sender: { id: '+15550100', personId: 'ada', verified: false, basis: 'caller id' }, attachments: [{ name: 'ticket.png', mimeType: 'image/png', size: 2048 }] }, 'turn-1'),
  entry(3, 'model_request', { step: 0, model: 'claude-test', messages: 3, tools: ['respond', 'book_flight'], captured: true }, 'turn-1'),
  entry(4, 'model_response', { step: 0, id: 'msg_1', model: 'claude-test', stopReason: 'tool_use', usage: { inputTokens: 1200, outputTokens: 80, cacheReadInputTokens: 1000, cacheCreationInputTokens: 0 }, latencyMs: 850, costUsd: 0.004321, blocks: ['respond', 'book_flight'], parts: [{ partType: 'ack', text: `On it ${HOSTILE}` }] }, 'turn-1'),
  entry(5, 'tool_call', { callId: 'toolu_1', tool: 'book_flight', scope: 'generalist', routing: 'router', durationMs: 0, outcome: 'approval_required', args: { flight: HOSTILE }, approvalId: 'appr-1' }, 'turn-1'),
  entry(6, 'approval', { approvalId: 'appr-1', event: 'requested', tool: 'book_flight', askedVia: [{ channel: 'sms', address: '+15550100', personId: 'ada' }] }, 'turn-1'),
  entry(7, 'turn_state', { turnState: 'suspended', approvals: 'appr-1' }, 'turn-1'),
  entry(8, 'approval', { approvalId: 'appr-1', event: 'decided', tool: 'book_flight', decision: 'granted', decidedBy: { channel: 'sms', address: '+15550100', personId: 'ada', verified: false }, evidence: 'reply APPROVE K7QX2M from the approver\'s number' }, 'turn-1'),
  entry(9, 'tool_call', { callId: 'toolu_1', tool: 'book_flight', scope: 'generalist', routing: 'router', durationMs: 42, outcome: 'ok', args: { flight: HOSTILE }, result: `confirmed ${HOSTILE}`, approvalId: 'appr-1' }, 'turn-1'),
  entry(10, 'delivery', { outcome: 'retry', attempt: 1, channel: 'sms', address: '+15550100', idempotencyKey: 'k1', error: { code: 'delivery.rate_limited', message: 'Too many requests', status: 429 } }, 'turn-1'),
  entry(11, 'delivery', { outcome: 'sent', attempt: 2, channel: 'sms', address: '+15550100', idempotencyKey: 'k1', providerMessageId: 'SM123' }, 'turn-1'),
  entry(12, 'turn_settled', { turnState: 'complete', steps: 2 }, 'turn-1'),
  entry(13, 'delivery_status', { channel: 'sms', providerMessageId: 'SM123', status: 'delivered', at: AT + 13 }),
  entry(14, 'mystery_event', { note: HOSTILE, nested: { deep: [1, 2] } }),
];

/** The approval of the conversation's booking, granted. */
export const APPROVAL: ApprovalRecord = sampleApproval({
  approvalId: 'appr-1',
  status: 'granted',
  sessionId: SESSION,
  turnId: 'turn-1',
  args: { flight: HOSTILE },
  approvers: [{ channel: 'sms', address: '+15550100', personId: 'ada' }],
  requester: { channel: 'sms', address: '+15550100', personId: 'ada' },
  decidedBy: { channel: 'sms', address: '+15550100', personId: 'ada', verified: false },
  decidedAt: '2030-01-01T10:00:00.008Z',
  replyTo: { channel: 'sms', address: '+15550100' },
});

const AUDIT: Record<string, ApprovalAuditEntry[]> = {
  'appr-1': [
    { at: '2030-01-01T10:00:00.006Z', action: 'requested', by: { channel: 'sms', address: '+15550100' } },
    { at: '2030-01-01T10:00:00.008Z', action: 'granted', by: { channel: 'sms', address: '+15550100', personId: 'ada' } },
  ],
};

/** The index's summary of {@link SESSION}. */
export const SUMMARY: ConversationSummary = {
  sessionId: SESSION,
  channel: 'sms',
  address: '+15550100',
  senderId: '+15550100',
  personId: 'ada',
  actor: 'concierge',
  state: 'settled',
  firstAt: AT,
  lastAt: AT + 12,
  turns: 1,
  tokens: 1280,
  costUsd: 0.004321,
  lastText: `Booked ${HOSTILE}`,
};

/** In-memory sources serving {@link ENTRIES}; `searches` records every query the index got. */
export function fakeSources(extra: Partial<InspectorSources> = {}): InspectorSources & { readonly searches: ConversationQuery[] } {
  const searches: ConversationQuery[] = [];
  return {
    searches,
    conversations: {
      search: (query) => {
        searches.push(query);
        return Promise.resolve(query.channel === 'email' ? { items: [] } : { items: [SUMMARY], next: '1893492000012.1' });
      },
      get: (sessionId) => Promise.resolve(sessionId === SESSION ? SUMMARY : undefined),
    },
    eventLog: { read: (sessionId, count) => Promise.resolve(sessionId === SESSION ? ENTRIES.slice(0, count) : []) },
    approvals: readOnlyApprovalStore([APPROVAL], AUDIT),
    captures: {
      read: (sessionId, turnId, step) =>
        Promise.resolve(sessionId === SESSION && turnId === 'turn-1' && step === 0 ? { request: { system: HOSTILE }, response: { content: [] }, savedAt: '2030-01-01T10:00:00.004Z' } : undefined),
    },
    ...extra,
  };
}
