import { describe, expect, it } from 'vitest';
import type { StoredEventLogEntry } from '../../src/runtime/session/event-log.ts';
import { readRecording, UNRECORDED_TEXT } from './read-recording.ts';

let sequence = 0;
function entry(type: string, data: Record<string, unknown>, turnId = 'turn_a'): StoredEventLogEntry {
  sequence += 1;
  return { id: `${String(sequence)}-0`, at: sequence, type: type as StoredEventLogEntry['type'], turnId, actor: 'concierge', data };
}

const RESPOND = { type: 'tool_use', id: 'toolu_2', name: 'respond', input: { parts: [{ text: 'Hello.', metadata: { partType: 'response' } }], turnState: 'complete' } };

describe('readRecording', () => {
  it('reads a turn: injections (texts from the captured request, unwrapped), responses, part texts, the state', async () => {
    const entries = [
      entry('turn_started', { step: 0 }),
      entry('injection', { id: 'm1', kind: 'message', channel: 'sms', content: { source: 'email-body', trusted: false } }),
      entry('model_request', { step: 0, captured: true }),
      entry('model_response', { step: 0, content: [RESPOND] }),
      entry('part', { partId: 'turn_a.0.0.0', partType: 'response' }),
      entry('turn_settled', { turnState: 'complete' }),
    ];
    const capture = { read: () => Promise.resolve({ request: { messages: [{ role: 'user', content: [{ type: 'text', text: '<untrusted_content source="email-body">\nHi there\n</untrusted_content>' }] }] }, response: null }) };
    const { fixture, missing } = await readRecording('ses_x', entries, capture);
    expect(missing).toEqual([]);
    expect(fixture.channel).toBe('sms');
    expect(fixture.turns[0]).toMatchObject({
      injections: [{ kind: 'message', text: 'Hi there', content: { source: 'email-body', trusted: false } }],
      responses: [{ blocks: [RESPOND] }],
      outcome: { turnState: 'complete', parts: [{ partType: 'response', text: 'Hello.' }], violations: [] },
    });
  });

  it('names every response it lacks, and keeps going with a placeholder for texts it lacks', async () => {
    const entries = [
      entry('injection', { id: 'm1', kind: 'message', channel: 'web', content: { source: 'typed', trusted: true } }, 'turn_b'),
      entry('model_request', { step: 0 }, 'turn_b'),
      entry('model_response', { step: 0, blocks: ['respond'] }, 'turn_b'),
    ];
    const { fixture, missing } = await readRecording('ses_y', entries);
    expect(missing).toEqual([expect.stringMatching(/turn 1 \(turn_b\), model call 1: .*capture was off/) as unknown]);
    expect(fixture.turns[0]?.injections[0]?.text).toBe(UNRECORDED_TEXT);
    expect(fixture.notes?.[0]).toMatch(/1 message text was not recorded/);
  });
});
