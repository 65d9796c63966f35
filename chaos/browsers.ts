/** One browser per conversation: the `sb_session` cookie and CSRF token the chat page would hold. */
import { createWebClient } from '../test/web/web-client.ts';

/** The headers a conversation's requests carry. */
export type BrowserHeaders = Readonly<Record<string, string>>;

/** Opens a web session for each conversation (8 at a time), before any fault strikes. */
export async function openBrowsers(url: string, conversations: readonly string[]): Promise<Map<string, BrowserHeaders>> {
  const browsers = new Map<string, BrowserHeaders>();
  const queue = [...conversations];
  const openNext = async (): Promise<void> => {
    for (let conversation = queue.shift(); conversation !== undefined; conversation = queue.shift()) {
      const browser = createWebClient(url);
      const session = await browser.session();
      browsers.set(conversation, { cookie: browser.cookie ?? '', 'x-csrf-token': session.csrfToken });
    }
  };
  await Promise.all(Array.from({ length: 8 }, openNext));
  return browsers;
}
