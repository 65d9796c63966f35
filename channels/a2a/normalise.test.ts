import { describe, expect, it } from 'vitest';
import { normalisePeerMessage, type PeerTransport } from './normalise.ts';
import { peerTextMessage } from './peer-turns.ts';

const where = { taskId: 'task-1', contextId: 'ctx-1' };

function injectionVia(transport: PeerTransport) {
  return normalisePeerMessage(
    { peer: { id: 'partner-desk', name: 'Partner desk' }, message: peerTextMessage('Book MW 304 for 42.', where, 'm-1'), ...where, transport, receivedAt: '2026-03-01T12:00:00.000Z' },
    'default',
  );
}

describe('normalisePeerMessage', () => {
  it("takes a peer's message for outside content, never trusted, though the peer's token is verified", () => {
    const injection = injectionVia('jsonrpc');
    expect(injection.content).toEqual({ source: 'peer', trusted: false });
    expect(injection.sender).toMatchObject({ verified: true, agent: true });
    expect(injectionVia('mcp').content).toEqual({ source: 'peer', trusted: false });
  });

  it('calls what came through the webhook reply (POST /api/turns) a webhook payload', () => {
    expect(injectionVia('webhook').content).toEqual({ source: 'webhook', trusted: false });
  });
});
