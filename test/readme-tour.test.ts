import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  buildEnvelope,
  createPartTypeRegistry,
  createSurfaceTemplateRegistry,
  createTurnStateRegistry,
  filterForTransport,
  respondErrorToolResult,
  validateRespondCall,
} from '../src/protocol/index.ts';

/** The protocol tour lives in docs/app.md; the README is the map that links to it. */
const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
const tour = readFileSync(new URL('../docs/app.md', import.meta.url), 'utf8');

/** The first fenced block after a `<!-- tour:name -->` marker. */
function block(name: string): string {
  const start = tour.indexOf(`<!-- tour:${name} -->`);
  if (start === -1) throw new Error(`docs/app.md has no tour:${name} marker`);
  const after = tour.slice(start);
  const match = /```json\n([\s\S]*?)```/.exec(after);
  if (match?.[1] === undefined) throw new Error(`no json block after tour:${name}`);
  return match[1];
}

const partTypes = createPartTypeRegistry();
const turnStates = createTurnStateRegistry();
const call = JSON.parse(/```json\n([\s\S]*?)```/.exec(tour.slice(tour.indexOf('## The protocol in one tour')))?.[1] ?? '{}') as unknown;

describe('the protocol tour (docs/app.md) is what the code does', () => {
  it('is where the README says it is', () => {
    expect(tour).toContain('## The protocol in one tour');
    expect(readme).toContain('(docs/app.md#the-protocol-in-one-tour)');
  });

  it('shows the validation error the code produces for the bad call', () => {
    const result = validateRespondCall(
      { parts: [{ text: 'Two flights.', metadata: { partType: 'answer' } }], turnState: 'done', passTo: 'drafter' },
      { partTypes, turnStates },
    );
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(JSON.parse(block('error'))).toEqual(respondErrorToolResult('toolu_01', result.issues));
  });

  it('shows the envelope and what each transport receives', async () => {
    const checked = validateRespondCall(call, { partTypes, turnStates });
    expect(checked.ok).toBe(true);
    if (!checked.ok) return;
    const ack = { text: 'Looking for flights to Corfu on 15 August.', metadata: { partType: 'ack' } };
    const { envelope } = await buildEnvelope({
      sessionId: 'ses_demo',
      turnId: 'turn_demo',
      finalizedBy: 'complete',
      parts: [ack, ...checked.call.parts],
      surfaces: createSurfaceTemplateRegistry(),
      clock: () => new Date('2026-11-22T10:00:00Z'),
      partTypes,
    });
    expect(JSON.parse(block('envelope'))).toEqual(JSON.parse(JSON.stringify(envelope)));
    const sse = filterForTransport(envelope.parts, { id: 'sse', deliveryClass: 'streaming' }, partTypes);
    const email = filterForTransport(envelope.parts, { id: 'email', deliveryClass: 'buffered' }, partTypes);
    expect(sse.parts.map((part) => part.metadata.partType)).toEqual(['ack', 'response', 'domain-data']);
    expect(email.parts.map((part) => part.metadata.partType)).toEqual(['response', 'domain-data']);
    expect(email.dropped.map((dropped) => [dropped.part.metadata.partType, dropped.reason])).toEqual([['ack', 'delivery-rule']]);
    const table = tour.slice(tour.indexOf('<!-- tour:transports -->'));
    expect(table).toContain('| `sse` (the web chat) | streaming | `ack`, `response`, `domain-data` | nothing |');
    expect(table).toContain('| `email` | buffered | `response`, `domain-data` | `ack`');
  });
});
