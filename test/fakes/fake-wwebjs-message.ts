/**
 * Messages for the whatsapp-web.js fake, shaped like the library's `Message` (its documented
 * example and the fields its `_patch` sets), read from recorded JSON in
 * `test/fixtures/whatsapp-web/` and varied per test.
 */
import { readFileSync } from 'node:fs';
import type { WebChat, WebLocation, WebMedia, WebMessage } from '../../channels/whatsapp/web/web-client.ts';

/** A message as recorded: the `Message` fields, its chat, its medium and the message it quotes. */
export interface WebMessageFixture {
  readonly id: { readonly fromMe: boolean; readonly remote: string; readonly id: string; readonly _serialized: string };
  readonly from: string;
  readonly to: string;
  readonly author?: string;
  readonly body: string;
  readonly type: string;
  readonly timestamp: number;
  readonly fromMe: boolean;
  readonly hasMedia: boolean;
  readonly hasQuotedMsg: boolean;
  readonly mentionedIds: readonly string[];
  readonly isStatus: boolean;
  readonly broadcast: boolean;
  readonly location?: WebLocation;
  readonly rawData: object;
  readonly chat: { readonly id: { readonly _serialized: string }; readonly isGroup: boolean; readonly name: string; readonly unreadCount: number };
  /** What `downloadMedia()` gives; `null`: WhatsApp no longer has it. */
  readonly media?: WebMedia | null;
  /** The message this one quotes. */
  readonly quoted?: WebMessageFixture;
}

/** The recorded fixtures by name. */
export type FixtureName = 'text-message' | 'group-mention' | 'image-message' | 'voice-note';

/** Reads `test/fixtures/whatsapp-web/<name>.json`. */
export function messageFixture(name: FixtureName): WebMessageFixture {
  return JSON.parse(readFileSync(new URL(`../fixtures/whatsapp-web/${name}.json`, import.meta.url), 'utf8')) as WebMessageFixture;
}

let serial = 0;

/** A fresh message id within `fixture`'s chat (each test message is a new message). */
function freshId(fixture: WebMessageFixture, fromMe = false): WebMessageFixture['id'] {
  serial += 1;
  const id = `3EB0${Date.now().toString(16).toUpperCase()}${String(serial).padStart(4, '0')}`;
  const participant = fixture.author === undefined ? '' : `_${fixture.author}`;
  return { fromMe, remote: fixture.from, id, _serialized: `${String(fromMe)}_${fixture.from}_${id}${participant}` };
}

/** A chat of the fake, with the messages `fetchMessages` gives. */
export function fakeChat(chat: WebMessageFixture['chat'], messages: () => readonly WebMessage[] = () => []): WebChat {
  return {
    ...chat,
    fetchMessages: ({ limit }) => Promise.resolve(messages().slice(-limit)),
  };
}

/**
 * A message built from `name`'s fixture with `changes`, with a fresh id unless `changes` has one.
 *
 * @example
 * fake.latest().receive(webMessage('group-mention', { mentionedIds: [] }));
 */
export function webMessage(name: FixtureName | WebMessageFixture, changes: Partial<WebMessageFixture> = {}): WebMessage {
  const base = typeof name === 'string' ? messageFixture(name) : name;
  const fixture: WebMessageFixture = { ...base, id: freshId(base, changes.fromMe ?? base.fromMe), ...changes };
  const { media, quoted, chat, ...fields } = fixture;
  return {
    ...fields,
    downloadMedia: () => Promise.resolve(media ?? undefined),
    getChat: () => Promise.resolve(fakeChat(chat)),
    getQuotedMessage: () => Promise.resolve(quoted === undefined ? undefined : webMessage(quoted, { id: quoted.id })),
  };
}
