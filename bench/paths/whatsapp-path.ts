/**
 * The WhatsApp Cloud API path: a Graph webhook signed with the app secret (`X-Hub-Signature-256`)
 * to `POST /webhooks/whatsapp`, to the `/messages` call on the fake Graph API. Each sender is told
 * to the fake as having written (Meta opens a contact's 24-hour window when it receives their
 * message), so answers go as free-form text. The channel's 80 sends a second stay well above the
 * bench's rate.
 */
import { whatsappChannel } from '../../channels/whatsapp/index.ts';
import { startFakeGraph } from '../../test/fakes/fake-graph.ts';
import { postWhatsAppWebhook, textWebhook } from '../../test/fakes/whatsapp-webhook.ts';
import { keyIn, type ChannelPath } from './channel-path.ts';
import { portOf, watchRequests } from './http-watch.ts';

const TOKEN = 'EAAG-bench-paths-token';
const APP_SECRET = 'bench-paths-app-secret';

/** The text of a Graph `/messages` body, when it is a text message. */
function textOf(body: string): string {
  const parsed = JSON.parse(body) as { text?: { body?: unknown } };
  return typeof parsed.text?.body === 'string' ? parsed.text.body : '';
}

/** The WhatsApp Cloud API path. */
export const whatsappPath: ChannelPath = {
  name: 'WhatsApp (Cloud API)',
  label: 'wa',
  note: 'WhatsApp: provider calls are the requests the fake Graph API received',
  async start(context) {
    const graph = await startFakeGraph({ token: TOKEN });
    let calls = 0;
    let listener: ((key: string) => void) | undefined;
    const stopWatching = watchRequests(portOf(graph.origin), (request) => {
      calls += 1;
      if (request.method !== 'POST' || !request.path.endsWith('/messages') || !request.body.startsWith('{')) return;
      const key = keyIn(textOf(request.body));
      if (key !== undefined) listener?.(key);
    });
    const service = await context.startService(
      { WHATSAPP_MODE: 'cloud', WHATSAPP_TOKEN: TOKEN, WHATSAPP_PHONE_NUMBER_ID: graph.phoneNumberId, WHATSAPP_APP_SECRET: APP_SECRET, WHATSAPP_VERIFY_TOKEN: 'bench-paths-verify', WHATSAPP_API_URL: graph.apiUrl },
      [whatsappChannel],
    );
    const url = `${service.url ?? ''}/webhooks/whatsapp`;
    return {
      async send(key, index) {
        const from = `1555030${String(index).padStart(4, '0')}`;
        graph.contactWrote(from);
        const answer = await postWhatsAppWebhook(url, textWebhook(key, { from, phoneNumberId: graph.phoneNumberId }), { appSecret: APP_SECRET });
        if (answer.status !== 200) throw new Error(`the WhatsApp webhook of ${key} was answered ${String(answer.status)}: ${answer.body}`);
      },
      listen(next) {
        listener = next;
      },
      providerCalls: () => calls,
      async close() {
        await service.close();
        stopWatching();
        await graph.close();
      },
    };
  },
};
