/**
 * The views of what a turn did outside the model: tool calls, approvals (from the entry and the
 * approval store's record), delivery attempts and the provider's later statuses.
 */
import { count, identity, inline, isData, isoTime, list, number, object, readable, text, type Data } from './entry-fields.ts';
import { block, field, type ViewField, type ViewMaker, type ViewTone } from './entry-view.ts';

/** The page anchor of an approval's record. */
export function approvalAnchor(approvalId: string): string {
  return `approval-${approvalId.replace(/[^A-Za-z0-9_-]/g, '_')}`;
}

const TOOL_TONES: Readonly<Record<string, ViewTone>> = { ok: 'ok', error: 'error', invalid_output: 'error', approval_required: 'warn' };

function duration(data: Data): string | undefined {
  const ms = number(data, 'durationMs');
  return ms === undefined ? undefined : `${count(ms)} ms`;
}

const toolCall: ViewMaker = (data) => {
  const outcome = text(data, 'outcome') ?? 'unknown';
  const approvalId = text(data, 'approvalId');
  const tone = TOOL_TONES[outcome];
  const result = data['result'];
  const error = data['error'];
  return {
    title: `Tool call: ${text(data, 'tool') ?? 'unknown tool'} (${outcome.replace(/_/g, ' ')})`,
    ...(tone === undefined ? {} : { tone }),
    fields: [
      ...field('Tool', text(data, 'tool')),
      ...field('Outcome', outcome),
      ...field('Duration', duration(data)),
      ...field('Scope / routing', [text(data, 'scope'), text(data, 'routing')].filter((value) => value !== undefined).join(' / ')),
      ...field('Why approval', text(data, 'reason')),
      ...field('Approval', approvalId, approvalId === undefined ? undefined : `#${approvalAnchor(approvalId)}`),
      ...field('Call id', text(data, 'callId')),
    ],
    blocks: [
      ...block('Arguments', data['args'] === undefined ? undefined : readable(data['args'])),
      ...block('Result', result === undefined ? undefined : readable(result)),
      ...block('Error', error === undefined ? undefined : readable(error)),
    ],
  };
};

/** Who was asked, from a list of identities or words. */
function askedVia(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  const items = Array.isArray(value) ? value : [value];
  return items.map((item) => identity(item) ?? inline(item)).join('; ');
}

const approval: ViewMaker = (data, _entry, context) => {
  const approvalId = text(data, 'approvalId');
  const event = text(data, 'event') ?? 'event';
  const detail = approvalId === undefined ? undefined : context.approvals.get(approvalId);
  const decision = text(data, 'decision');
  const evidence = data['evidence'];
  const tone: ViewTone | undefined = decision === 'granted' ? 'ok' : decision === 'denied' || event === 'expired' ? 'error' : event === 'requested' ? 'warn' : undefined;
  const fields: ViewField[] = [
    ...field('Approval', approvalId, approvalId === undefined || detail === undefined ? undefined : `#${approvalAnchor(approvalId)}`),
    ...field('Tool', text(data, 'tool') ?? detail?.record.toolName),
    ...field('Asked via', askedVia(data['askedVia'])),
    ...field('Decision', decision),
    ...field('Decided by', identity(data['decidedBy'])),
    ...field('Evidence', typeof evidence === 'string' ? evidence : undefined),
    ...(detail === undefined ? [] : field('Status now', detail.record.status)),
  ];
  return {
    title: `Approval ${event}: ${text(data, 'tool') ?? detail?.record.toolName ?? ''}`.trim(),
    ...(tone === undefined ? {} : { tone }),
    fields,
    blocks: block('Evidence', evidence === undefined || typeof evidence === 'string' ? undefined : readable(evidence)),
  };
};

const DELIVERY_TONES: Readonly<Record<string, ViewTone>> = { sent: 'ok', retry: 'warn', deferred: 'warn', failed: 'error' };

/** An error summary in one line: `message (code, provider code 21610, HTTP 400)`. */
function errorLine(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  if (!isData(value)) return inline(value);
  const facts = [text(value, 'code'), text(value, 'providerCode') === undefined ? undefined : `provider code ${text(value, 'providerCode') ?? ''}`, number(value, 'status') === undefined ? undefined : `HTTP ${String(number(value, 'status'))}`];
  const known = facts.filter((fact) => fact !== undefined);
  const message = text(value, 'message') ?? inline(value);
  return known.length === 0 ? message : `${message} (${known.join(', ')})`;
}

/**
 * A `delivery` entry is one of three: the turn handed a part to its channel (`key`), left it out
 * (`skipped`, why), or the channel's queue tried to send it (`outcome`, `attempt`, …).
 */
const delivery: ViewMaker = (data) => {
  const channel = text(data, 'channel') ?? 'a channel';
  const skipped = text(data, 'skipped');
  if (skipped !== undefined) {
    return { title: `Delivery on ${channel} skipped: ${skipped}`, tone: 'warn', fields: [...field('Channel', text(data, 'channel')), ...field('Part', text(data, 'partId')), ...field('Part type', text(data, 'partType'))] };
  }
  if (data['outcome'] === undefined && text(data, 'key') !== undefined) {
    return { title: `Handed to ${channel} for delivery`, fields: [...field('Channel', text(data, 'channel')), ...field('Idempotency key', text(data, 'key'))] };
  }
  const outcome = text(data, 'outcome') ?? 'unknown';
  const tone = DELIVERY_TONES[outcome];
  const providerMessageId = text(data, 'providerMessageId');
  const attempt = number(data, 'attempt');
  return {
    title: `Delivery on ${channel}${attempt === undefined ? '' : `, attempt ${String(attempt)}`}: ${outcome}`,
    ...(tone === undefined ? {} : { tone }),
    fields: [
      ...field('Channel', text(data, 'channel')),
      ...field('To', text(data, 'address')),
      ...field('Outcome', outcome),
      ...field('Attempt', attempt),
      ...field('Provider message id', providerMessageId),
      ...field('Error', errorLine(data['error'])),
      ...field('Next attempt', text(data, 'nextAttemptAt')),
      ...field('Idempotency key', text(data, 'idempotencyKey')),
    ],
    ...(providerMessageId === undefined ? {} : { providerMessageId }),
  };
};

const STATUS_TONES: Readonly<Record<string, ViewTone>> = { delivered: 'ok', read: 'ok', failed: 'error', undelivered: 'error' };

const deliveryStatus: ViewMaker = (data) => {
  const status = text(data, 'status') ?? 'unknown';
  const tone = STATUS_TONES[status];
  const providerMessageId = text(data, 'providerMessageId');
  const at = data['at'];
  const errorCode = data['errorCode'];
  return {
    title: `Provider status on ${text(data, 'channel') ?? 'a channel'}: ${status}`,
    ...(tone === undefined ? {} : { tone }),
    fields: [
      ...field('Channel', text(data, 'channel')),
      ...field('Status', status),
      ...field('Provider message id', providerMessageId),
      ...field('Error code', errorCode === undefined ? undefined : inline(errorCode)),
      ...field('Provider time', typeof at === 'number' ? isoTime(at) : typeof at === 'string' ? at : undefined),
    ],
    ...(providerMessageId === undefined ? {} : { providerMessageId }),
  };
};

/** The views of tool calls, approvals and deliveries, by type. */
export const ACTION_VIEWS: Readonly<Record<string, ViewMaker>> = {
  tool_call: toolCall,
  approval,
  delivery,
  delivery_status: deliveryStatus,
};

/** Ids of the approvals an entry's data names (`approvalId`, or `approvals` as a list or comma-separated ids). */
export function approvalIdsOf(data: unknown): string[] {
  if (!isData(data)) return [];
  const one = text(data, 'approvalId');
  const many = list(data, 'approvals') ?? (typeof data['approvals'] === 'string' ? data['approvals'].split(',') : []);
  const nested = object(data, 'approval');
  return [...(one === undefined ? [] : [one]), ...many.filter((id): id is string => typeof id === 'string' && id !== ''), ...(nested === undefined ? [] : approvalIdsOf(nested))];
}
