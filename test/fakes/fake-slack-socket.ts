/**
 * The Socket Mode side of the fake Slack. `apps.connections.open` (with the app-level token) hands
 * out a one-time `ws://127.0.0.1:<port>/link/?ticket=…` URL on the fake's own port, where a `ws`
 * WebSocketServer speaks Slack's protocol: `hello` on connect, envelopes the test pushes
 * (`{ envelope_id, type, payload, accepts_response_payload, … }`), the client's acks
 * (`{ envelope_id, payload }`) recorded, and `disconnect` when asked to refresh.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';
import type { FakeSlack, FakeSlackAck } from './fake-slack-types.ts';

/** What the rest of the fake uses; the methods it shares with `FakeSlack` are documented there. */
export interface FakeSocketMode extends Pick<FakeSlack, 'pushEnvelope' | 'acks' | 'sockets' | 'refreshSockets'> {
  /** Answers `apps.connections.open` for the token the call carried. */
  open(token: string | undefined): { readonly ok: true; readonly url: string } | { readonly ok: false; readonly error: string };
  /** Forgets acks and counts (open connections stay open). */
  reset(): void;
  /** Drops every connection. */
  close(): Promise<void>;
}

/** Options of {@link attachFakeSocketMode}. */
export interface FakeSocketModeOptions {
  /** The only app-level token accepted; `undefined`: Socket Mode is off (`invalid_auth`). */
  readonly appToken: string | undefined;
  readonly appId: string;
  /** `http://127.0.0.1:<port>`, known once the server listens. */
  readonly origin: () => string;
}

const text = (data: RawData): string => (Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data as ArrayBuffer)).toString('utf8');

/** An ack (`{ envelope_id, payload }`) from a client message; `undefined` for anything else. */
function readAck(message: string): FakeSlackAck | undefined {
  try {
    const parsed = JSON.parse(message) as { envelope_id?: unknown; payload?: unknown };
    return typeof parsed.envelope_id === 'string' ? { envelopeId: parsed.envelope_id, payload: parsed.payload, at: Date.now() } : undefined;
  } catch {
    return undefined;
  }
}

/** Adds Socket Mode to the fake's HTTP `server`. */
export function attachFakeSocketMode(server: Server, options: FakeSocketModeOptions): FakeSocketMode {
  const wss = new WebSocketServer({ noServer: true });
  const tickets = new Set<string>();
  const open: WebSocket[] = [];
  const acks: FakeSlackAck[] = [];
  const counts = { peak: 0, opened: 0 };

  const accept = (ws: WebSocket): void => {
    open.push(ws);
    counts.opened += 1;
    counts.peak = Math.max(counts.peak, open.length);
    ws.on('close', () => { open.splice(open.indexOf(ws), 1); });
    ws.on('message', (data) => {
      const ack = readAck(text(data));
      if (ack !== undefined) acks.push(ack);
    });
    const debugInfo = { host: 'applink-fake-1', build_number: 1, approximate_connection_time: 18_060 };
    ws.send(JSON.stringify({ type: 'hello', num_connections: open.length, debug_info: debugInfo, connection_info: { app_id: options.appId } }));
  };

  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const url = new URL(req.url ?? '/', 'http://fake-slack.invalid');
    const ticket = url.searchParams.get('ticket') ?? '';
    if (url.pathname !== '/link/' || !tickets.delete(ticket)) {
      socket.end('HTTP/1.1 401 Unauthorized\r\nConnection: close\r\n\r\n');
      return;
    }
    wss.handleUpgrade(req, socket, head, accept);
  });

  return {
    open(token) {
      if (token === undefined) return { ok: false, error: 'not_authed' };
      if (token.startsWith('xoxb-')) return { ok: false, error: 'not_allowed_token_type' };
      if (options.appToken === undefined || token !== options.appToken) return { ok: false, error: 'invalid_auth' };
      const ticket = randomUUID();
      tickets.add(ticket);
      return { ok: true, url: `${options.origin().replace(/^http/, 'ws')}/link/?ticket=${ticket}&app_id=${options.appId}` };
    },
    pushEnvelope(envelope) {
      const ws = open.at(-1);
      if (ws === undefined) throw new Error('fake-slack: no Socket Mode connection is open');
      const envelopeId = envelope.envelopeId ?? `${randomBytes(4).toString('hex')}-${randomUUID()}`;
      const retry = envelope.type === 'events_api' ? { retry_attempt: envelope.retryAttempt ?? 0, retry_reason: envelope.retryReason ?? '' } : {};
      ws.send(JSON.stringify({ envelope_id: envelopeId, payload: envelope.payload, type: envelope.type, accepts_response_payload: envelope.acceptsResponsePayload ?? false, ...retry }));
      return envelopeId;
    },
    acks: () => [...acks],
    sockets: () => ({ open: open.length, ...counts }),
    refreshSockets() {
      const debugInfo = { host: 'applink-fake-1' };
      for (const ws of open) ws.send(JSON.stringify({ type: 'disconnect', reason: 'refresh_requested', debug_info: debugInfo }));
    },
    reset() {
      acks.length = 0;
      counts.peak = open.length;
      counts.opened = open.length;
    },
    async close() {
      for (const ws of [...open]) ws.terminate();
      await new Promise<void>((resolve) => { wss.close(() => { resolve(); }); });
    },
  };
}
