/**
 * The web chat's renderer: each output becomes one event of the conversation's stream, in the
 * shape the page reads (`stream/chat-event.ts`). The web chat is a streaming channel, so it never
 * receives a buffered envelope.
 */
import type { RenderInput } from '../../src/runtime/delivery/render-input.ts';
import type { WebChatEvent } from './stream/chat-event.ts';
import type { Part } from '../../src/protocol/parts/part.ts';
import { renderSafeHtml } from '../kit/render/render-html.ts';
import { decidedByLabel } from '../../src/runtime/approvals/approval-authority.ts';
import { waitingForText } from '../kit/approvals/describe-request.ts';

/** Part types whose text the page shows as formatted text. */
const FORMATTED = new Set(['response', 'clarify', 'error']);

function safeHtml(part: Part): { html?: string } {
  return FORMATTED.has(part.metadata.partType) && typeof part.text === 'string' ? { html: renderSafeHtml(part.text) } : {};
}

/** Renders one output as web chat events (none for what the page does not show). */
export function renderWebEvents(input: RenderInput): readonly WebChatEvent[] {
  switch (input.type) {
    case 'part':
      return [{ type: 'part', turnId: input.turnId, partId: input.partId, turnState: input.turnState, ...(input.actor === undefined ? {} : { actor: input.actor }), part: input.part, ...safeHtml(input.part) }];
    case 'turn':
      return [{ type: 'turn', turnId: input.turnId, turnState: input.turnState, ...(input.actor === undefined ? {} : { actor: input.actor }) }];
    case 'approval-request': {
      // A requester who may not decide sees whom the request waits for, and no buttons.
      const part = input.mayDecide === false ? { ...input.part, data: { ...input.part.data, mayDecide: false, waitingFor: waitingForText(input.record) } } : input.part;
      return [{ type: 'part', turnId: input.record.turnId, partId: input.partId, turnState: 'suspended', actor: input.record.actor, part }];
    }
    case 'approval-update': {
      const { record } = input;
      if (record.status === 'pending') return [];
      const decider = decidedByLabel(record);
      return [{
        type: 'approval',
        approvalId: record.approvalId,
        status: record.status,
        ...(decider === undefined ? {} : { decidedBy: decider }),
        ...(record.decidedAt === undefined ? {} : { decidedAt: record.decidedAt }),
      }];
    }
    case 'notice':
      return [
        { type: 'part', turnId: input.id, partId: `${input.id}.0`, turnState: 'complete', part: { text: input.text, metadata: { partType: 'response' } }, html: renderSafeHtml(input.text) },
        { type: 'turn', turnId: input.id, turnState: 'complete' },
      ];
    case 'envelope':
      return [];
  }
}
