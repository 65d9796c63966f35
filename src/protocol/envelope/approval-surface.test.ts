import { describe, expect, it } from 'vitest';
import type { ApprovalRequest } from '../parts/approval-parts.ts';
import { BASIC_CATALOG_ID, checkSurfaceMessage } from './a2ui.ts';
import type { A2uiComponent, SurfaceTemplateContext } from './a2ui.ts';
import { APPROVAL_ACTION_EVENT, approvalSurfaceId, approvalSurfaceTemplate, summarizeArgs } from './approval-surface.ts';

const request: ApprovalRequest = {
  approvalId: 'apr_42',
  toolName: 'send_email',
  toolCallId: 'toolu_1',
  args: { to: 'ann@example.com', subject: 'Dinner' },
  handler: 'concierge',
  turn: 'turn_1',
  session: 'sess_1',
  expiresAt: '2026-05-01T12:00:00Z',
};

const context: SurfaceTemplateContext = {
  surfaceId: approvalSurfaceId(request.approvalId),
  kind: 'approval-request',
  sessionId: 'sess_1',
  turnId: 'turn_1',
  mergeStrategy: 'replace',
};

function byId(components: readonly A2uiComponent[], id: unknown): A2uiComponent {
  const found = components.find((component) => component.id === id);
  if (found === undefined) throw new Error(`no component ${String(id)}`);
  return found;
}

describe('approvalSurfaceTemplate', () => {
  const message = approvalSurfaceTemplate(request, context);
  const components = message.updateComponents.components;

  it('is a sound v0.9 basic-catalog surface with the approval surface id', () => {
    expect(message.version).toBe('v0.9');
    expect(message.createSurface).toEqual({ surfaceId: 'approval-apr_42', catalogId: BASIC_CATALOG_ID });
    expect(message.updateComponents.surfaceId).toBe('approval-apr_42');
    expect(checkSurfaceMessage(message)).toEqual([]);
    expect(new Set(components.map((component) => component.component))).toEqual(new Set(['Card', 'Column', 'Text', 'Button']));
  });

  it('is a Card holding a Column of three Texts and two Buttons', () => {
    const root = byId(components, 'root');
    expect(root.component).toBe('Card');
    const column = byId(components, root['child']);
    expect(column.component).toBe('Column');
    const children = (column['children'] as string[]).map((id) => byId(components, id));
    expect(children.map((child) => child.component)).toEqual(['Text', 'Text', 'Text', 'Button', 'Button']);
    const texts = children.slice(0, 3).map((child) => child['text']);
    expect(texts[0]).toContain('send_email');
    expect(texts[1]).toBe('to: "ann@example.com", subject: "Dinner"');
    expect(texts[2]).toContain('2026-05-01T12:00:00Z');
  });

  it('gives each Button an action carrying the approvalId and its decision, and a Text label', () => {
    const buttons = components.filter((component) => component.component === 'Button');
    expect(buttons.map((button) => button['action'])).toEqual([
      { event: { name: APPROVAL_ACTION_EVENT, context: { approvalId: 'apr_42', decision: 'granted' } } },
      { event: { name: APPROVAL_ACTION_EVENT, context: { approvalId: 'apr_42', decision: 'denied' } } },
    ]);
    expect(buttons.map((button) => byId(components, button['child'])['text'])).toEqual(['Approve', 'Deny']);
  });

  it('says when a request does not expire', () => {
    const { expiresAt: _expiresAt, ...noExpiry } = request;
    const text = byId(approvalSurfaceTemplate(noExpiry, context).updateComponents.components, 'approval-expiry')['text'];
    expect(text).toBe('Does not expire.');
  });

  it('refuses data that is not an approval request', () => {
    expect(() => approvalSurfaceTemplate({ toolName: 'x' }, context)).toThrow(
      expect.objectContaining({ code: 'envelope.invalid' }),
    );
  });
});

describe('summarizeArgs', () => {
  it('says when there are no arguments', () => {
    expect(summarizeArgs({})).toBe('(no arguments)');
  });

  it('cuts long summaries with an ellipsis at maxChars', () => {
    const summary = summarizeArgs({ body: 'x'.repeat(500) }, 40);
    expect(summary).toHaveLength(40);
    expect(summary.endsWith('…')).toBe(true);
    expect(summarizeArgs({ a: 1 }, 40)).toBe('a: 1');
  });
});
