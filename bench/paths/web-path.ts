/**
 * The web chat path: `POST /api/chat/:id/messages` from a browser stand-in (its session cookie and
 * CSRF token, test/web/web-client.ts) to the response part on the conversation's web event stream,
 * seen through the event store subscription the chat page's SSE stream is fed from. No provider.
 */
import { webChannel } from '../../channels/web/index.ts';
import { createWebEventStore } from '../../channels/web/stream/event-store.ts';
import { createWebClient } from '../../test/web/web-client.ts';
import { createJsonPoster } from '../http-post.ts';
import { keyIn, type ChannelPath } from './channel-path.ts';

/** Conversations (one browser each) the messages rotate over. */
const CONVERSATIONS = 20;

/** The web chat path. */
export const webPath: ChannelPath = {
  name: 'Web chat',
  label: 'web',
  note: 'web chat: no provider; the answer is the response part appended to the conversation stream',
  async start(context) {
    const service = await context.startService({}, [webChannel]);
    const url = service.url ?? '';
    const store = createWebEventStore({ redis: context.redis, subscriber: context.subscriber, keyPrefix: context.prefix });
    let listener: ((key: string) => void) | undefined;
    const ids = Array.from({ length: CONVERSATIONS }, (_, index) => `paths-web-${index}`);
    const unsubscribe = await Promise.all(
      ids.map((id) =>
        store.subscribe(id, ({ event }) => {
          if (event.type !== 'part' || event.part.metadata.partType !== 'response') return;
          const key = keyIn(event.part.text ?? '');
          if (key !== undefined) listener?.(key);
        }),
      ),
    );
    const browsers = await Promise.all(
      ids.map(async () => {
        const browser = createWebClient(url);
        const session = await browser.session();
        return { cookie: browser.cookie ?? '', 'x-csrf-token': session.csrfToken };
      }),
    );
    const http = createJsonPoster(url);
    return {
      async send(key, index) {
        const slot = index % CONVERSATIONS;
        const response = await http.post(`/api/chat/${ids[slot] ?? ''}/messages`, { text: key, id: key }, browsers[slot] ?? {});
        if (response.status !== 202) throw new Error(`web chat POST of ${key} answered ${String(response.status)}: ${response.body}`);
      },
      listen(next) {
        listener = next;
      },
      providerCalls: () => undefined,
      async close() {
        http.close();
        for (const stop of unsubscribe) await stop();
        await store.close();
        await service.close();
      },
    };
  },
};
