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

/** Options of {@link renderWebEvents}. */
export interface WebRenderOptions {
  /** A signed download URL of a stored artifact (`ChannelContext.artifactUrl`). Default: none. */
  readonly artifactUrl?: (artifactId: string) => string;
}

/**
 * An `artifact` part that names a stored artifact but no URL gets its signed download link, as a
 * path of this service (the page is served by it, so previews are same-origin under its CSP).
 */
function withArtifactLink(part: Part, options: WebRenderOptions): Part {
  const data = part.data;
  if (part.metadata.partType !== 'artifact' || options.artifactUrl === undefined || data === undefined) return part;
  const artifactId = data['artifactId'];
  if (typeof artifactId !== 'string' || artifactId === '' || typeof data['url'] === 'string') return part;
  const signed = new URL(options.artifactUrl(artifactId));
  return { ...part, data: { ...data, url: `${signed.pathname}${signed.search}` } };
}

/** Renders one output as web chat events (none for what the page does not show). */
export function renderWebEvents(input: RenderInput, options: WebRenderOptions = {}): readonly WebChatEvent[] {
  switch (input.type) {
    case 'part': {
      const part = withArtifactLink(input.part, options);
      return [{ type: 'part', turnId: input.turnId, partId: input.partId, turnState: input.turnState, ...(input.actor === undefined ? {} : { actor: input.actor }), part, ...safeHtml(part) }];
    }
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
