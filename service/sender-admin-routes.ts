/**
 * The operator's hand on who may write, over HTTP, guarded like every operator page (bearer
 * `ADMIN_TOKEN`, or loopback clients only when it is unset):
 *
 * - `GET /admin/api/senders`: `{ policies, pending, known }`: each channel's policy, the pairing
 *   codes waiting (with their held messages), the approved and blocked senders;
 * - `POST /admin/api/senders/approve` `{ "code": "K7QX-3MAC" }`: lets the code's sender in and
 *   passes their held messages on; 200 `{ status: 'approved', channel, address, released }`, 404
 *   for a code that is not waiting, 409 for a blocked sender, 429 after too many wrong codes; or
 *   `{ "channel", "address" }`: lets a sender in without a code (200, or 409 when blocked);
 * - `POST /admin/api/senders/revoke` and `/block` `{ "channel": "sms", "address": "+4477…" }`.
 *
 * Wrong codes are counted for the operator pages as one approver (`admin page`): ten an hour.
 * The `/admin` page shows the same lists ({@link renderSendersSection}).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { escapeHtml } from '../channels/kit/render/html-escape.ts';
import { CHANNEL_NAMES, type ChannelName } from '../src/runtime/app/app-types.ts';
import { authorize, type OperatorAccess } from '../src/runtime/http/operator-access.ts';
import { readJsonObject, sendJson, type Route } from '../src/runtime/http/router.ts';
import { describeSenderPolicy } from '../src/runtime/senders/sender-policy.ts';
import type { SenderWiring } from './sender-wiring.ts';

/** The approver of codes approved from the operator pages. */
export const ADMIN_APPROVER = 'admin page';

/** Options of {@link createSenderAdminRoutes}. */
export interface SenderAdminRoutesOptions extends OperatorAccess {
  readonly senders: Pick<SenderWiring, 'policies' | 'store' | 'approve' | 'allow'>;
}

function badRequest(res: ServerResponse, message: string, field: string): void {
  sendJson(res, 400, { error: { code: 'http.bad_request', message, details: { field } } });
}

/** The `{ channel, address }` of a body, or `undefined` once answered 400. */
function readSender(body: Record<string, unknown>, res: ServerResponse): { channel: ChannelName; address: string } | undefined {
  const { channel, address } = body;
  if (typeof channel !== 'string' || !(CHANNEL_NAMES as readonly string[]).includes(channel)) {
    badRequest(res, `channel must be one of ${CHANNEL_NAMES.join(', ')}.`, 'channel');
    return undefined;
  }
  if (typeof address !== 'string' || address.trim() === '') {
    badRequest(res, 'address must be the sender\'s address on that channel.', 'address');
    return undefined;
  }
  return { channel: channel as ChannelName, address: channel === 'email' ? address.trim().toLowerCase() : address.trim() };
}

const APPROVE_STATUS = { approved: 200, unknown: 404, blocked: 409, throttled: 429 } as const;

/** Creates the routes. */
export function createSenderAdminRoutes(options: SenderAdminRoutesOptions): Route[] {
  const { senders } = options;
  const post = (pattern: string, handle: (req: IncomingMessage, res: ServerResponse) => Promise<void>): Route => ({
    method: 'POST',
    pattern,
    async handler({ req, res }) {
      if (!authorize(req, res, options)) return;
      res.setHeader('cache-control', 'no-store');
      await handle(req, res);
    },
  });
  return [
    {
      method: 'GET',
      pattern: '/admin/api/senders',
      async handler({ req, res }) {
        if (!authorize(req, res, options)) return;
        res.setHeader('cache-control', 'no-store');
        sendJson(res, 200, { policies: Object.values(senders.policies), ...(await senders.store.list()) });
      },
    },
    post('/admin/api/senders/approve', async (req, res) => {
      const body = await readJsonObject(req, 4096);
      const { code } = body;
      if (code === undefined) {
        // `{ channel, address }`: a sender let in by address, without a code.
        const sender = readSender(body, res);
        if (sender === undefined) return;
        const result = await senders.allow(sender.channel, sender.address, ADMIN_APPROVER);
        sendJson(res, APPROVE_STATUS[result.status], { ...result, channel: sender.channel, address: sender.address });
        return;
      }
      if (typeof code !== 'string' || code.trim() === '') {
        badRequest(res, 'code must be the pairing code the sender was given, such as K7QX-3MAC.', 'code');
        return;
      }
      const result = await senders.approve(code, ADMIN_APPROVER);
      sendJson(res, APPROVE_STATUS[result.status], result);
    }),
    post('/admin/api/senders/revoke', async (req, res) => {
      const sender = readSender(await readJsonObject(req, 4096), res);
      if (sender !== undefined) sendJson(res, 200, { revoked: await senders.store.revoke(sender.channel, sender.address) });
    }),
    post('/admin/api/senders/block', async (req, res) => {
      const sender = readSender(await readJsonObject(req, 4096), res);
      if (sender !== undefined) sendJson(res, 200, { blocked: true, dropped: await senders.store.block(sender.channel, sender.address, ADMIN_APPROVER) });
    }),
  ];
}

function row(cells: readonly string[]): string {
  return `<tr>${cells.map((text) => `<td>${escapeHtml(text)}</td>`).join('')}</tr>`;
}

function tableOf(headings: readonly string[], rows: readonly string[]): string {
  const body = rows.length === 0 ? `<tr><td colspan="${String(headings.length)}">None.</td></tr>` : rows.join('\n');
  return `<table><thead><tr>${headings.map((heading) => `<th>${escapeHtml(heading)}</th>`).join('')}</tr></thead><tbody>${body}</tbody></table>`;
}

/** The `/admin` page's section: policies, codes waiting (approve with the API or the CLI), approved and blocked senders. */
export async function renderSendersSection(senders: Pick<SenderWiring, 'policies' | 'store'>): Promise<string> {
  const { pending, known } = await senders.store.list();
  const policies = Object.values(senders.policies).map((policy) => row([policy.channel, describeSenderPolicy(policy)]));
  const codes = pending.map((entry) => row([entry.code, entry.channel, entry.address, entry.displayName ?? '', String(entry.held), entry.expiresAt]));
  const decided = known.map((entry) => row([entry.state, entry.channel, entry.address, entry.by, entry.at]));
  return `<h1>Senders</h1>
<p>Approve a code with <code>npx switchboard senders approve &lt;code&gt;</code>, or <code>POST /admin/api/senders/approve</code> with <code>{"code": "…"}</code>.</p>
<h2>Policies</h2>
${tableOf(['Channel', 'Who may write'], policies)}
<h2>Pairing codes waiting (${String(pending.length)})</h2>
${tableOf(['Code', 'Channel', 'Address', 'Name', 'Held messages', 'Expires'], codes)}
<h2>Approved and blocked senders (${String(known.length)})</h2>
${tableOf(['State', 'Channel', 'Address', 'By', 'At'], decided)}`;
}
