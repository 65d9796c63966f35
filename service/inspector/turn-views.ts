/**
 * The views of what happens inside a turn: the messages that came in, the model calls, the turn's
 * states and parts, handoffs and delegations, and the protocol's complaints.
 */
import { captureHref } from './links.ts';
import { count, identity, inline, isData, list, number, object, readable, text, usd, type Data } from './entry-fields.ts';
import { block, field, genericFields, type ViewBody, type ViewField, type ViewMaker } from './entry-view.ts';

/** Who sent an injection and what the channel verified, from `sender` or the flat fields. */
function senderFields(data: Data): ViewField[] {
  const sender = object(data, 'sender');
  const facts: Data = sender ?? data;
  const who = sender === undefined ? identity({ id: text(data, 'senderId'), displayName: text(data, 'displayName'), personId: text(data, 'personId') }) : identity({ ...sender, verified: undefined, basis: undefined });
  const verified = facts['verified'];
  const basis = text(facts, 'basis');
  const checked = verified === true ? `verified${basis === undefined ? '' : ` by ${basis}`}` : verified === false ? `not verified${basis === undefined ? '' : ` (${basis})`}` : basis;
  return [...field('Sender', who), ...field('Verified', checked), ...(facts['agent'] === true ? field('Agent', 'yes, another agent') : [])];
}

/** `photo.png (image/png, 12,345 bytes)` for each attachment. */
function attachmentList(data: Data): string | undefined {
  const attachments = list(data, 'attachments');
  if (attachments === undefined || attachments.length === 0) return undefined;
  return attachments
    .map((attachment) => {
      if (!isData(attachment)) return inline(attachment);
      const name = text(attachment, 'name') ?? text(attachment, 'filename') ?? text(attachment, 'artifactId') ?? 'attachment';
      const facts = [text(attachment, 'mimeType') ?? text(attachment, 'contentType'), number(attachment, 'size') === undefined ? undefined : `${count(number(attachment, 'size') ?? 0)} bytes`];
      const described = facts.filter((fact) => fact !== undefined).join(', ');
      return described === '' ? name : `${name} (${described})`;
    })
    .join('; ');
}

const injection: ViewMaker = (data) => {
  const content = object(data, 'content');
  const source = content === undefined ? text(data, 'content') : text(content, 'source');
  const trusted = content?.['trusted'];
  const action = object(data, 'action');
  const kind = text(data, 'kind') ?? 'message';
  return {
    title: kind === 'message' ? `Message in on ${text(data, 'channel') ?? 'a channel'}` : `${kind} on ${text(data, 'channel') ?? 'a channel'}`,
    fields: [
      ...field('Channel', text(data, 'channel')),
      ...field('Kind', kind),
      ...senderFields(data),
      ...field('Content', source === undefined ? undefined : `${source}${trusted === true ? ', trusted' : trusted === false ? ', outside content (read as data)' : ''}`),
      ...field('Attachments', attachmentList(data)),
      ...field('Action', action === undefined ? undefined : `${text(action, 'name') ?? ''} on surface ${text(action, 'surfaceId') ?? ''}`),
      ...field('Id', text(data, 'id')),
    ],
    blocks: [...block('Text', text(data, 'text')), ...block('Action context', action?.['context'] === undefined ? undefined : readable(action['context']))],
  };
};

function captureField(data: Data, turnId: string | undefined, context: { sessionId: string; captures: boolean }): ViewField[] {
  const step = number(data, 'step');
  if (!context.captures || data['captured'] !== true || turnId === undefined || step === undefined) return [];
  return field('Captured', 'full request and response', captureHref(context.sessionId, turnId, step));
}

const modelRequest: ViewMaker = (data, entry, context) => {
  const messages = data['messages'];
  const tools = list(data, 'tools');
  return {
    title: `Model request, step ${inline(data['step'])}`,
    fields: [
      ...field('Model', text(data, 'model')),
      ...field('Messages', typeof messages === 'number' ? messages : Array.isArray(messages) ? messages.length : undefined),
      ...field('Tools', tools?.map((tool) => (isData(tool) ? text(tool, 'name') ?? inline(tool) : inline(tool))).join(', ')),
      ...captureField(data, entry.turnId, context),
    ],
  };
};

/** `respond()` parts as blocks labelled with their part type. */
function partBlocks(data: Data): ViewBody['blocks'] {
  const parts = list(data, 'parts') ?? [];
  return parts.flatMap((part, index) => {
    if (!isData(part)) return block(`Part ${String(index + 1)}`, readable(part));
    const label = `respond() part: ${text(part, 'partType') ?? 'unknown type'}`;
    const partText = text(part, 'text');
    return partText === undefined ? [{ label, text: '(no text)' }] : block(label, partText);
  });
}

const modelResponse: ViewMaker = (data, entry, context) => {
  const step = inline(data['step']);
  const error = data['error'];
  if (error !== undefined) return { title: `Model call failed, step ${step}`, tone: 'error', fields: field('Model', text(data, 'model')), blocks: block('Error', readable(error)) };
  const usage = object(data, 'usage') ?? {};
  const tokens = (key: string): string | undefined => {
    const value = number(usage, key);
    return value === undefined ? undefined : count(value);
  };
  const cost = number(data, 'costUsd');
  const latency = number(data, 'latencyMs');
  const blocks = list(data, 'blocks');
  const content = data['content'];
  return {
    title: `Model response, step ${step}`,
    fields: [
      ...field('Model', text(data, 'model')),
      ...field('Latency', latency === undefined ? undefined : `${count(latency)} ms`),
      ...field('Tokens in', tokens('inputTokens')),
      ...field('Tokens out', tokens('outputTokens')),
      ...field('Cache read', tokens('cacheReadInputTokens')),
      ...field('Cache write', tokens('cacheCreationInputTokens')),
      ...field('Cost', data['priced'] === false ? 'unknown (no price for this model)' : cost === undefined ? undefined : usd(cost)),
      ...field('Stop reason', text(data, 'stopReason')),
      ...field('Blocks', blocks?.map(inline).join(', ')),
      ...field('Response id', text(data, 'id')),
      ...captureField(data, entry.turnId, context),
    ],
    blocks: [...(partBlocks(data) ?? []), ...block('Content', content === undefined ? undefined : readable(content))],
  };
};

const turnState: ViewMaker = (data) => {
  const state = text(data, 'turnState') ?? 'unknown';
  const passTo = data['passTo'];
  const handedTo = passTo === undefined ? undefined : typeof passTo === 'string' ? passTo : isData(passTo) ? text(passTo, 'actor') ?? inline(passTo) : inline(passTo);
  const budget = number(data, 'budgetMs');
  return {
    title: handedTo === undefined ? `Turn state: ${state}` : `Handoff to ${handedTo} (${state})`,
    ...(state === 'failed' ? { tone: 'error' as const } : {}),
    fields: [
      ...field('State', state),
      ...field('Handed to', handedTo),
      ...field('Delegation budget', budget === undefined ? undefined : `${count(budget)} ms`),
      ...field('Deadline', text(data, 'deadlineAt')),
      ...field('Waiting for approvals', data['approvals'] === undefined ? undefined : inline(data['approvals'])),
    ],
    blocks: block('Note', text(data, 'note')),
  };
};

const part: ViewMaker = (data) => ({
  title: `Part: ${text(data, 'partType') ?? 'unknown type'}`,
  ...(text(data, 'partType') === 'error' ? { tone: 'error' as const } : {}),
  fields: [...field('Part', text(data, 'partId')), ...field('State', text(data, 'turnState')), ...field('Reason', text(data, 'reason'))],
  blocks: block('Text', text(data, 'text')),
});

const settled: ViewMaker = (data) => {
  const state = text(data, 'turnState') ?? 'unknown';
  return { title: `Turn settled: ${state}`, tone: state === 'failed' ? 'error' : 'ok', fields: genericFields(data) };
};

const specialist: ViewMaker = (data) => ({
  title: `Specialist ran ${text(data, 'tool') ?? 'a tool'}`,
  tone: text(data, 'outcome') === 'ok' ? 'ok' : 'warn',
  fields: [
    ...field('Tool', text(data, 'tool')),
    ...field('Outcome', text(data, 'outcome')),
    ...field('Duration', number(data, 'durationMs') === undefined ? undefined : `${count(number(data, 'durationMs') ?? 0)} ms`),
    ...field('Scope / routing', [text(data, 'scope'), text(data, 'routing')].filter((value) => value !== undefined).join(' / ')),
    ...field('Bypassed the router because', text(data, 'bypassReason')),
  ],
  blocks: [...block('Arguments', data['args'] === undefined ? undefined : readable(data['args'])), ...block('Result', data['result'] === undefined ? undefined : readable(data['result']))],
});

const violation: ViewMaker = (data) => ({
  title: `Protocol violation: ${text(data, 'kind') ?? 'unknown'}`,
  tone: 'warn',
  fields: genericFields(Object.fromEntries(Object.entries(data).filter(([key]) => key !== 'text' && key !== 'issues'))),
  blocks: [...block('Text', text(data, 'text')), ...block('Issues', data['issues'] === undefined ? undefined : readable(data['issues']))],
});

const senderPolicy: ViewMaker = (data) => {
  const outcome = text(data, 'outcome') ?? 'unknown';
  return {
    title: `Sender policy: ${outcome}`,
    ...(outcome === 'allowed' ? {} : { tone: 'warn' as const }),
    fields: [...field('Outcome', outcome), ...field('Mode', text(data, 'mode')), ...field('Sender', identity(data['sender'])), ...field('Reason', text(data, 'reason')), ...field('Released', data['released'] === undefined ? undefined : inline(data['released']))],
  };
};

const surfaceDropped: ViewMaker = (data) => ({
  title: `Surface left out: ${text(data, 'surfaceId') ?? 'unknown'}`,
  tone: 'warn',
  fields: [...field('Kind', text(data, 'kind')), ...field('Reason', text(data, 'reason')), ...field('Code', text(data, 'code'))],
  blocks: [...block('Message', text(data, 'message')), ...block('Problems', data['problems'] === undefined ? undefined : readable(data['problems']))],
});

/** The views of the turn's own entries, by type. */
export const TURN_VIEWS: Readonly<Record<string, ViewMaker>> = {
  injection,
  turn_started: (data) => ({ title: 'Turn started', fields: genericFields(data) }),
  turn_resumed: (data) => ({ title: `Turn resumed${text(data, 'after') === undefined ? '' : ` after ${text(data, 'after') ?? ''}`}`, fields: genericFields(data) }),
  model_request: modelRequest,
  model_response: modelResponse,
  part,
  turn_state: turnState,
  turn_settled: settled,
  specialist_execution: specialist,
  router_event: (data) => ({ title: `Router: ${text(data, 'kind') ?? text(data, 'event') ?? 'event'}`, fields: genericFields(data) }),
  protocol_violation: violation,
  sender_policy: senderPolicy,
  surface_dropped: surfaceDropped,
  llm_context: (data) => ({ title: 'Context for a peer', fields: genericFields(data) }),
};
