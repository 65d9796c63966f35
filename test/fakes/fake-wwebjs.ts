/**
 * A fake of the whatsapp-web.js client (`channels/whatsapp/web/web-client.ts`): the same events and
 * methods, no browser. It honours the auth strategy it is given as the library does: with a kept
 * session (`RemoteAuth`'s store holds one, or `LocalAuth`'s folder has one), `initialize()` emits
 * `authenticated` then `ready`; without, it emits `qr`, and `scan()` links it: the session is
 * written where RemoteAuth writes its zip and saved through the store (or written to the folder),
 * then `authenticated` and `ready` follow. Tests push messages with `receive()`, read what was
 * sent, and drop the session with `disconnect()` or `failAuth()`.
 */
import { EventEmitter } from 'node:events';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import wwebjs from 'whatsapp-web.js';
import {
  REMOTE_SESSION_NAME,
  type WebChat,
  type WebClientEvents,
  type WebClientFactory,
  type WebClientInfo,
  type WebClientOptions,
  type WebId,
  type WebMessage,
  type WebSendOptions,
  type WhatsAppWebClient,
} from '../../channels/whatsapp/web/web-client.ts';

/** One `sendMessage` call. */
export interface FakeSend {
  readonly chatId: string;
  /** The text, or for a medium its caption. */
  readonly text: string;
  readonly media?: { readonly mimetype: string; readonly filename: string | null | undefined; readonly bytes: Buffer; readonly isMessageMedia: boolean };
  readonly options: WebSendOptions;
  /** The id the fake gave the sent message. */
  readonly id: string;
}

/** What every client of one fake shares: the world of WhatsApp. */
export interface FakeWorld {
  /** The linked account's number, digits. Default `447700900999`. */
  readonly botNumber: string;
  readonly sent: FakeSend[];
  /** Numbers (digits) that are not on WhatsApp. */
  readonly unknownNumbers: Set<string>;
  /** `…@lid` id → `…@c.us` id. */
  readonly lids: Map<string, string>;
  /** What `getChats()` gives. */
  chats: WebChat[];
  /** When set, a kept session is refused with `auth_failure` and this detail. */
  refuseSessionWith: string | undefined;
  /** When above 0, the next `sendMessage` calls throw (and count down). */
  failSends: number;
  /** When `false`, a kept session no longer links (the phone dropped it): a QR code is shown anyway. Default `true`. */
  keptSessionLinks: boolean;
}

const SESSION_MAGIC = Buffer.from([0x50, 0x4b, 0x03, 0x04]);
/** Every byte value, so a store that is not binary-safe breaks the session. */
const ALL_BYTES = Buffer.from(Array.from({ length: 256 }, (_, index) => index));

/** The bytes of a fake session of `number`: zip magic, every byte value, then JSON. */
function fakeSessionBytes(number: string): Buffer {
  return Buffer.concat([SESSION_MAGIC, ALL_BYTES, Buffer.from(JSON.stringify({ number }))]);
}

function numberInSession(bytes: Buffer): string | undefined {
  const head = SESSION_MAGIC.length + ALL_BYTES.length;
  if (bytes.length <= head || !bytes.subarray(0, head).equals(Buffer.concat([SESSION_MAGIC, ALL_BYTES]))) return undefined;
  const parsed = JSON.parse(bytes.subarray(head).toString('utf8')) as { number?: unknown };
  return typeof parsed.number === 'string' ? parsed.number : undefined;
}

/** A fake client: one per session attempt, as the listener makes them. */
export class FakeWebClient extends EventEmitter implements WhatsAppWebClient {
  info: WebClientInfo | undefined;
  /** Where the client is in its life. */
  state: 'new' | 'waiting-for-qr' | 'ready' | 'destroyed' = 'new';
  /** The QR codes it showed. */
  readonly qrCodes: string[] = [];
  readonly options: WebClientOptions;
  private readonly world: FakeWorld;

  constructor(options: WebClientOptions, world: FakeWorld) {
    super();
    this.options = options;
    this.world = world;
  }

  override on<E extends keyof WebClientEvents>(event: E, listener: (...args: WebClientEvents[E]) => void): this {
    return super.on(event, listener as (...args: unknown[]) => void);
  }

  /** Emits `event` on the next turn of the event loop, unless the client was destroyed. */
  private later<E extends keyof WebClientEvents>(event: E, ...args: WebClientEvents[E]): void {
    setImmediate(() => {
      if (this.state !== 'destroyed') this.emit(event, ...args);
    });
  }

  private async keptSession(): Promise<Buffer | undefined> {
    const { auth } = this.options;
    if (auth.kind === 'local') return await readFile(join(auth.sessionDir, 'session', 'fake-session')).catch(() => undefined);
    if (!(await auth.store.sessionExists({ session: REMOTE_SESSION_NAME }))) return undefined;
    const zip = join(auth.dataPath, `${REMOTE_SESSION_NAME}.zip`);
    await auth.store.extract({ session: REMOTE_SESSION_NAME, path: zip });
    const bytes = await readFile(zip);
    await rm(zip, { force: true });
    return bytes;
  }

  private becomeReady(number: string): void {
    this.later('authenticated');
    setImmediate(() => {
      if (this.state === 'destroyed') return;
      this.state = 'ready';
      this.info = { wid: { _serialized: `${number}@c.us`, user: number } };
      this.emit('ready');
    });
  }

  async initialize(): Promise<void> {
    const kept = await this.keptSession();
    if (kept !== undefined && this.world.refuseSessionWith !== undefined) {
      this.later('auth_failure', this.world.refuseSessionWith);
      return;
    }
    const number = kept === undefined || !this.world.keptSessionLinks ? undefined : numberInSession(kept);
    if (number !== undefined) {
      this.becomeReady(number);
      return;
    }
    this.state = 'waiting-for-qr';
    const qr = `2@fakeQr${String(Date.now())},${String(this.qrCodes.length)}==,fakeKey==,fakeIdentity==`;
    this.qrCodes.push(qr);
    this.later('qr', qr);
  }

  /** The phone scans the QR code: the session is kept as the auth strategy does, then it is ready. */
  async scan(): Promise<void> {
    if (this.state !== 'waiting-for-qr') throw new Error(`The fake client is ${this.state}, not showing a QR code`);
    const bytes = fakeSessionBytes(this.world.botNumber);
    const { auth } = this.options;
    if (auth.kind === 'local') {
      await mkdir(join(auth.sessionDir, 'session'), { recursive: true });
      await writeFile(join(auth.sessionDir, 'session', 'fake-session'), bytes);
    } else {
      const zip = join(auth.dataPath, `${REMOTE_SESSION_NAME}.zip`);
      await mkdir(auth.dataPath, { recursive: true });
      await writeFile(zip, bytes);
      try {
        await auth.store.save({ session: REMOTE_SESSION_NAME });
      } finally {
        await rm(zip, { force: true });
      }
    }
    this.becomeReady(this.world.botNumber);
  }

  /** A message from someone else arrives. */
  receive(message: WebMessage): void {
    this.emit('message', message);
  }

  /** The session drops (`LOGOUT`: the phone removed the linked device). */
  disconnect(reason: string): void {
    this.emit('disconnected', reason);
  }

  /** The kept session is refused. */
  failAuth(detail: string): void {
    this.emit('auth_failure', detail);
  }

  destroy(): Promise<void> {
    this.state = 'destroyed';
    return Promise.resolve();
  }

  sendMessage(chatId: string, content: string | wwebjs.MessageMedia, options: WebSendOptions = {}): Promise<{ readonly id: WebId } | undefined> {
    if (this.state !== 'ready') return Promise.reject(new Error(`Cannot send: the fake client is ${this.state}`));
    if (this.world.failSends > 0) {
      this.world.failSends -= 1;
      return Promise.reject(new Error('Evaluation failed: the page crashed'));
    }
    const id = `true_${chatId}_3EB0FAKE${String(this.world.sent.length + 1).padStart(6, '0')}`;
    const media =
      typeof content === 'string'
        ? undefined
        : { mimetype: content.mimetype, filename: content.filename, bytes: Buffer.from(content.data, 'base64'), isMessageMedia: content instanceof wwebjs.MessageMedia };
    const text = typeof content === 'string' ? content : (options.caption ?? '');
    this.world.sent.push({ chatId, text, options, id, ...(media === undefined ? {} : { media }) });
    return Promise.resolve({ id: { _serialized: id } });
  }

  getNumberId(number: string): Promise<WebId | null> {
    return Promise.resolve(this.world.unknownNumbers.has(number) ? null : { _serialized: `${number}@c.us` });
  }

  getChats(): Promise<WebChat[]> {
    return Promise.resolve([...this.world.chats]);
  }

  getContactLidAndPhone(ids: string[]): Promise<{ lid: string; pn: string }[]> {
    return Promise.resolve(
      ids.map((id) => {
        const pn = id.endsWith('@lid') ? (this.world.lids.get(id) ?? '') : id;
        const lid = [...this.world.lids].find(([, phone]) => phone === pn)?.[0] ?? '';
        return { lid, pn };
      }),
    );
  }
}

/** A fake whatsapp-web.js: the factory to give the listener, and the clients it made. */
export interface FakeWwebjs {
  readonly factory: WebClientFactory;
  readonly clients: readonly FakeWebClient[];
  readonly world: FakeWorld;
  /** The newest client; throws when none was made. */
  latest(): FakeWebClient;
}

/** Creates a fake; `botNumber` is the linked account's number (digits). */
export function createFakeWwebjs(botNumber = '447700900999'): FakeWwebjs {
  const clients: FakeWebClient[] = [];
  const world: FakeWorld = { botNumber, sent: [], unknownNumbers: new Set(), lids: new Map(), chats: [], refuseSessionWith: undefined, failSends: 0, keptSessionLinks: true };
  return {
    clients,
    world,
    factory: (options) => {
      const client = new FakeWebClient(options, world);
      clients.push(client);
      return client;
    },
    latest() {
      const client = clients.at(-1);
      if (client === undefined) throw new Error('The fake whatsapp-web.js made no client yet');
      return client;
    },
  };
}
