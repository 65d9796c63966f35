/**
 * What the bench's stand-in for Slack sends: Events API deliveries of direct messages (`message`
 * events with `channel_type: 'im'`, built from the recorded payload of test/fixtures/slack), signed
 * with the app's signing secret at the moment they are posted, over kept-alive `node:http`
 * connections, with `X-Slack-Retry-Num` on redeliveries. A delivery that gets no answer within
 * Slack's three seconds counts as not acknowledged, as Slack counts it.
 */
import { randomUUID } from 'node:crypto';
import { Agent, request } from 'node:http';
import { dmMessage, eventCallback, freshSlackTs, richTextBlocks, signSlackRequest } from '../../test/fakes/slack-requests.ts';

/** One delivery: the raw JSON body (the same bytes on every retry) and the message's key (its text). */
export interface SlackDelivery {
  readonly key: string;
  readonly body: string;
}

/** How long Slack waits for an answer before it counts a delivery as failed, ms. */
const SLACK_TIMEOUT_MS = 3000;

/** The template every event is made from, read once (the builders read the fixture files on each call). */
const template = eventCallback(dmMessage({ user: 'U0USER001', text: 'template' }));
let deliveries = 0;

/** The DM channel (`D…`) and its one member (`U…`) of conversation `index`. */
export function dmOf(index: number): { readonly channel: string; readonly user: string } {
  const id = String(index).padStart(7, '0');
  return { channel: `DB${id}`, user: `UB${id}` };
}

/** A new direct message with text `key` in the DM of conversation `index` (a top-level message: a thread of its own). */
export function dmDelivery(key: string, index: number): SlackDelivery {
  deliveries += 1;
  const { channel, user } = dmOf(index);
  const ts = freshSlackTs();
  const event = { ...template.event, user, text: key, ts, event_ts: ts, channel, client_msg_id: randomUUID(), blocks: richTextBlocks(key) };
  const eventId = `EvB${process.pid.toString(36).toUpperCase()}X${deliveries.toString(36).toUpperCase()}`;
  return { key, body: JSON.stringify({ ...template, event, event_id: eventId, event_time: Math.floor(Date.now() / 1000) }) };
}

/** Posts deliveries to one system's `/slack/events`, as Slack does. */
export interface SlackPoster {
  /**
   * Posts `delivery` (`retryNum` > 0: a redelivery, with `X-Slack-Retry-Num` and a reason);
   * resolves to the HTTP status, or 0 when there was no answer (refused, reset, over 3 s).
   */
  post(delivery: SlackDelivery, retryNum?: number): Promise<number>;
  /** Posts to another base URL from now on (the system was restarted). */
  retarget(url: string): void;
  close(): void;
}

/** A poster for the system at `url`, signing with `signingSecret`. */
export function createSlackPoster(url: string, signingSecret: string): SlackPoster {
  let agent = new Agent({ keepAlive: true, maxSockets: 256 });
  let base = new URL(url);
  return {
    post(delivery, retryNum = 0) {
      const timestamp = Math.floor(Date.now() / 1000);
      const headers: Record<string, string | number> = {
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(delivery.body),
        'x-slack-request-timestamp': timestamp,
        'x-slack-signature': signSlackRequest(signingSecret, timestamp, delivery.body),
        ...(retryNum > 0 ? { 'x-slack-retry-num': retryNum, 'x-slack-retry-reason': 'http_error' } : {}),
      };
      return new Promise<number>((resolve) => {
        const outgoing = request({ agent, host: base.hostname, port: base.port, path: '/slack/events', method: 'POST', headers }, (response) => {
          response.resume();
          response.on('end', () => { resolve(response.statusCode ?? 0); });
          response.on('error', () => { resolve(0); });
        });
        outgoing.setTimeout(SLACK_TIMEOUT_MS, () => { outgoing.destroy(new Error('no answer in time')); });
        outgoing.on('error', () => { resolve(0); });
        outgoing.end(delivery.body);
      });
    },
    retarget(next) {
      agent.destroy();
      agent = new Agent({ keepAlive: true, maxSockets: 256 });
      base = new URL(next);
    },
    close() {
      agent.destroy();
    },
  };
}
