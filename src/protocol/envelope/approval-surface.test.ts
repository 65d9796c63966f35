import { describe, expect, it } from 'vitest';
import type { ApprovalRequest } from '../parts/approval-parts.ts';
import { BASIC_CATALOG_ID } from './a2ui.ts';
import type { A2uiComponent, SurfaceTemplateContext } from './a2ui.ts';
import { argumentComponents, formatMoney, humaniseKey } from './approval-rows.ts';
import {
  APPROVAL_ACTION_EVENT,
  approvalSurfaceId,
  approvalSurfaceTemplate,
  createApprovalSurfaceTemplate,
  firstSentence,
  summarizeArgs,
} from './approval-surface.ts';
import { isoWithOffset } from './iso-offset.ts';
import { checkSurfaceMessage } from './surface-check.ts';

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

const booking: ApprovalRequest = {
  ...request,
  approvalId: 'apr_7',
  toolName: 'book_flight',
  args: {
    flightNumber: 'MW 304',
    date: '2026-12-18',
    passengers: [{ fullName: 'Ada Lovelace' }, { fullName: 'Charles Babbage' }],
    totalCost: 236,
    currency: 'GBP',
  },
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

/** The texts a person reads, top to bottom: each Text, a List's items indented by two spaces. */
function readable(components: readonly A2uiComponent[], id: string, indent = ''): string[] {
  const component = byId(components, id);
  if (component.component === 'Text') return [`${indent}${String(component['text'])}`];
  const inner = component.component === 'List' ? `${indent}  ` : indent;
  const children = [component['child'], ...((component['children'] as unknown[] | undefined) ?? [])].filter((child): child is string => typeof child === 'string');
  return children.flatMap((child) => readable(components, child, inner));
}

describe('approvalSurfaceTemplate', () => {
  const message = approvalSurfaceTemplate(request, context);
  const components = message.updateComponents.components;

  it('is a sound v0.9 basic-catalog surface with the approval surface id and no data model', () => {
    expect(message.version).toBe('v0.9');
    expect(message.createSurface).toEqual({ surfaceId: 'approval-apr_42', catalogId: BASIC_CATALOG_ID });
    expect(message.updateComponents.surfaceId).toBe('approval-apr_42');
    expect(message.updateDataModel).toBeUndefined();
    expect(checkSurfaceMessage(message)).toEqual([]);
  });

  it('is a Card holding a Column: title, who asked, one row per argument, the expiry, and the answer buttons', () => {
    const root = byId(components, 'root');
    expect(root.component).toBe('Card');
    expect(byId(components, root['child']).component).toBe('Column');
    expect(readable(components, 'root')).toEqual([
      'Approve send_email?',
      'concierge asks to run send_email',
      'To: ann@example.com',
      'Subject: Dinner',
      'Expires at 2026-05-01T12:00:00+00:00.',
      'Approve',
      'Deny',
    ]);
  });

  it('gives each Button an action carrying the approvalId and its decision, and a Text label', () => {
    const buttons = components.filter((component) => component.component === 'Button');
    expect(buttons.map((button) => button['action'])).toEqual([
      { event: { name: APPROVAL_ACTION_EVENT, context: { approvalId: 'apr_42', decision: 'granted' } } },
      { event: { name: APPROVAL_ACTION_EVENT, context: { approvalId: 'apr_42', decision: 'denied' } } },
    ]);
    expect(buttons.map((button) => byId(components, button['child'])['text'])).toEqual(['Approve', 'Deny']);
    expect(byId(components, 'approval-answer')).toMatchObject({ component: 'Row', children: ['approval-approve', 'approval-deny'] });
  });

  it('adds the arguments hash to the buttons when the request has one, as the web card answers with it', () => {
    const hashed = approvalSurfaceTemplate({ ...request, argsHash: 'h1' }, context).updateComponents.components;
    expect(byId(hashed, 'approval-approve')['action']).toEqual({
      event: { name: APPROVAL_ACTION_EVENT, context: { approvalId: 'apr_42', argsHash: 'h1', decision: 'granted' } },
    });
  });

  it('shows whom the request waits for, without buttons, when the part says its reader may not decide', () => {
    const waiting = approvalSurfaceTemplate({ ...request, mayDecide: false, waitingFor: "Waiting for grace's approval." }, context);
    expect(waiting.updateComponents.components.some((component) => component.component === 'Button')).toBe(false);
    expect(byId(waiting.updateComponents.components, 'approval-answer')['text']).toBe("Waiting for grace's approval.");
    expect(checkSurfaceMessage(waiting)).toEqual([]);
  });

  it('says why a person is asked when the request gives a reason', () => {
    const message = approvalSurfaceTemplate({ ...request, reason: 'this turn read content from outside: email body' }, context);
    expect(readable(message.updateComponents.components, 'root')).toContain('Asked because this turn read content from outside: email body.');
    expect(checkSurfaceMessage(message)).toEqual([]);
  });

  it('says when a request does not expire', () => {
    const { expiresAt: _expiresAt, ...noExpiry } = request;
    const text = byId(approvalSurfaceTemplate(noExpiry, context).updateComponents.components, 'approval-expiry')['text'];
    expect(text).toBe('Does not expire.');
  });

  it('refuses data that is not an approval request', () => {
    expect(() => approvalSurfaceTemplate({ toolName: 'x' }, context)).toThrow(expect.objectContaining({ code: 'envelope.invalid' }));
  });
});

describe('createApprovalSurfaceTemplate', () => {
  const template = createApprovalSurfaceTemplate({
    toolTitle: (tool) => (tool === 'book_flight' ? firstSentence('Book seats on one flight found with search_flights, for the named passengers. Needs approval.') : undefined),
    deciders: (tool) => (tool === 'book_flight' ? 'Grace Hopper, or anyone with the role travel-admin' : undefined),
    timeZone: 'Europe/Paris',
  });

  it('titles the request with the tool, lists money with its currency and arrays as lists, and says who may decide', () => {
    const message = template(booking, { ...context, surfaceId: 'approval-apr_7' });
    expect(checkSurfaceMessage(message)).toEqual([]);
    expect(readable(message.updateComponents.components, 'root')).toEqual([
      'Book seats on one flight found with search_flights, for the named passengers',
      'concierge asks to run book_flight',
      'Flight number: MW 304',
      'Date: 2026-12-18',
      'Passengers:',
      '  Ada Lovelace',
      '  Charles Babbage',
      'Total cost: GBP 236.00',
      'Expires at 2026-05-01T14:00:00+02:00.',
      'May decide: Grace Hopper, or anyone with the role travel-admin.',
      'Approve',
      'Deny',
    ]);
    const passengers = message.updateComponents.components.find((component) => component.component === 'List');
    expect(passengers?.['listStyle']).toBe('unordered');
  });

  it('falls back to "Approve <tool>?" for a tool it has no title for', () => {
    const message = template(request, context);
    expect(readable(message.updateComponents.components, 'root')[0]).toBe('Approve send_email?');
    expect(message.updateComponents.components.some((component) => component.id === 'approval-deciders')).toBe(false);
  });

  it('refuses an unknown time zone', () => {
    expect(() => createApprovalSurfaceTemplate({ timeZone: 'Mars/Olympus' })).toThrow(expect.objectContaining({ code: 'config.invalid' }));
  });
});

describe('argumentComponents', () => {
  const rows = (args: Record<string, unknown>): string[] => {
    const { ids, components } = argumentComponents(args, 'a');
    return ids.flatMap((id) => readable(components, id));
  };

  it('indents nested records, shows an amount with the currency of its object, and lists records of several fields', () => {
    expect(
      rows({
        hotel: { name: 'Le Marais', address: { city: 'Paris', postcode: '75004' } },
        deposit: { amount: 80, currency: 'eur' },
        rooms: [{ type: 'double', nights: 2 }],
        tags: [],
        notes: null,
        refundable: false,
      }),
    ).toEqual([
      'Hotel:',
      '  Name: Le Marais',
      '  Address:',
      '    City: Paris',
      '    Postcode: 75004',
      'Deposit: EUR 80.00',
      'Rooms:',
      '  Type: double',
      '  Nights: 2',
      'Tags: none',
      'Notes: none',
      'Refundable: no',
    ]);
  });

  it('says when there are no arguments, and cuts deep nesting and long values', () => {
    expect(rows({})).toEqual(['(no arguments)']);
    expect(rows({ a: { b: { c: { d: { e: { f: 1 } } } } } })).toEqual(['A:', '  B:', '    C:', '      D:', '        E: …']);
    const long = rows({ body: 'x'.repeat(500) })[0] ?? '';
    expect(long).toHaveLength('Body: '.length + 200);
    expect(long.endsWith('…')).toBe(true);
  });

  it('stops at its component limit with "… and more", keeping the rows made before it', () => {
    const { components } = argumentComponents({ items: Array.from({ length: 500 }, (_item, index) => `item ${String(index)}`) }, 'a');
    expect(components.length).toBeLessThanOrEqual(202);
    expect(components.some((component) => component['text'] === '… and more')).toBe(true);
    const list = components.find((component) => component.component === 'List');
    expect((list?.['children'] as string[]).length).toBeGreaterThan(190);
  });
});

describe('helpers', () => {
  it('humanises keys', () => {
    expect(['totalCost', 'flight_number', 'IATA_code', 'x'].map(humaniseKey)).toEqual(['Total cost', 'Flight number', 'IATA code', 'X']);
  });

  it('writes money with its currency code', () => {
    expect(formatMoney(1236, 'gbp')).toBe('GBP 1,236.00');
    expect(formatMoney(5, 'XX')).toBe('XX 5');
  });

  it('takes the first sentence of a description', () => {
    expect(firstSentence('Book a flight. It costs money.')).toBe('Book a flight');
    expect(firstSentence('Send the itinerary!  Then stop')).toBe('Send the itinerary');
    expect(firstSentence('Version 2.5 of the tool. More.')).toBe('Version 2.5 of the tool');
    expect(firstSentence('No full stop')).toBe('No full stop');
    expect(firstSentence('  ')).toBeUndefined();
  });

  it('writes an instant as ISO 8601 with the offset of a zone', () => {
    expect(isoWithOffset('2026-05-01T12:00:00.000Z', 'UTC')).toBe('2026-05-01T12:00:00+00:00');
    expect(isoWithOffset('2026-12-01T12:00:00Z', 'Europe/Paris')).toBe('2026-12-01T13:00:00+01:00');
    expect(isoWithOffset('2026-05-01T12:00:00Z', 'Asia/Kolkata')).toBe('2026-05-01T17:30:00+05:30');
    expect(isoWithOffset('soon', 'UTC')).toBe('soon');
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
