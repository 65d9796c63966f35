import { describe, expect, it } from 'vitest';
import type { StoredEventLogEntry } from '../../src/runtime/session/event-log.ts';
import { ENTRIES, SESSION } from '../../test/support/inspector-fixtures.ts';
import { groupTimeline } from './timeline-groups.ts';
import { entryView } from './timeline-views.ts';

const context = { sessionId: SESSION, approvals: new Map(), captures: false };

function group(entries: readonly StoredEventLogEntry[]) {
  return groupTimeline(entries, entries.map((entry) => entryView(entry, context)));
}

function entry(id: string, type: string, data: Record<string, unknown>, turnId?: string): StoredEventLogEntry {
  return { id, at: 1, type: type as StoredEventLogEntry['type'], ...(turnId === undefined ? {} : { turnId }), data };
}

describe('groupTimeline', () => {
  it('puts a turn together, with a later provider status under the turn of its delivery', () => {
    const sections = group(ENTRIES);
    expect(sections.map((section) => section.key)).toEqual([`between-${ENTRIES[0]?.id ?? ''}`, 'turn-1', `between-${ENTRIES[13]?.id ?? ''}`]);
    const turn = sections[1];
    expect(turn?.actor).toBe('concierge');
    expect(turn?.views.map((view) => view.type).at(-1)).toBe('delivery_status');
    expect(sections[2]?.views.map((view) => view.type)).toEqual(['mystery_event']);
  });

  it('sums a turn and lists every delivery attempt with its later statuses', () => {
    const facts = group(ENTRIES)[1]?.facts;
    expect(facts).toMatchObject({ state: 'complete', modelCalls: 1, inputTokens: 1200, outputTokens: 80, costUsd: 0.004321 });
    expect(facts?.deliveries).toEqual([
      {
        channel: 'sms',
        address: '+15550100',
        attempts: [{ attempt: 1, outcome: 'retry' }, { attempt: 2, outcome: 'sent', providerMessageId: 'SM123' }],
        statuses: ['delivered'],
      },
    ]);
  });

  it('leaves hand-overs to the channel out of the attempts, and counts a skipped part as one', () => {
    const facts = group([
      entry('1-0', 'delivery', { channel: 'sms', key: 'k' }, 't'),
      entry('2-0', 'delivery', { skipped: 'no such channel', channel: 'fax' }, 't'),
    ])[0]?.facts;
    expect(facts?.deliveries).toEqual([{ channel: 'fax', address: '', attempts: [{ attempt: undefined, outcome: 'skipped (no such channel)' }], statuses: [] }]);
  });

  it('keeps interleaved turns apart and orders sections by their first entry', () => {
    const sections = group([
      entry('1-0', 'turn_started', {}, 'a'),
      entry('2-0', 'turn_started', {}, 'b'),
      entry('3-0', 'turn_settled', { turnState: 'failed' }, 'a'),
      entry('4-0', 'delivery_status', { providerMessageId: 'unknown', status: 'failed' }),
      entry('5-0', 'turn_state', { turnState: 'suspended' }, 'b'),
    ]);
    expect(sections.map((section) => [section.key, section.views.map((view) => view.id)])).toEqual([
      ['a', ['1-0', '3-0']],
      ['b', ['2-0', '5-0']],
      ['between-4-0', ['4-0']],
    ]);
    expect(sections.map((section) => section.facts?.state)).toEqual(['failed', 'suspended', undefined]);
  });

  it('groups nothing into nothing', () => {
    expect(group([])).toEqual([]);
  });
});
