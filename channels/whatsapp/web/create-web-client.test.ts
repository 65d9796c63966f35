import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import wwebjs from 'whatsapp-web.js';
import { resolveChromiumPath } from './chromium-path.ts';
import { CHROMIUM_ARGS, createWebClient } from './create-web-client.ts';
import type { WebChat, WebMessage, WebSessionStore, WhatsAppWebClient } from './web-client.ts';

// Type-level proof that the library's own classes satisfy the thin interface: this file would not compile otherwise.
const realClientFits = (client: wwebjs.Client): WhatsAppWebClient => client;
const realMessageFits = (message: wwebjs.Message): WebMessage => message;
const realChatFits = (chat: wwebjs.Chat): WebChat => chat;
const realStoreFits = (store: WebSessionStore): wwebjs.Store => store;

const store: WebSessionStore = {
  sessionExists: () => Promise.resolve(false),
  save: () => Promise.resolve(),
  extract: () => Promise.resolve(),
  delete: () => Promise.resolve(),
};

let folder = '';
beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'switchboard-wwebjs-test-'));
});
afterAll(async () => {
  await rm(folder, { recursive: true, force: true });
});

/** What the constructed client was configured with (puppeteer's types are not installed: puppeteer-core stands in). */
interface Configured {
  readonly options: { readonly puppeteer?: { readonly executablePath?: string; readonly headless?: boolean; readonly args?: readonly string[] } };
  readonly authStrategy: unknown;
}
function configured(client: WhatsAppWebClient): Configured {
  return client as unknown as Configured;
}

describe('createWebClient', () => {
  it('constructs the real Client, driving the system Chromium headless, with the session kept in Redis (RemoteAuth)', () => {
    const client = createWebClient({ chromiumPath: 'chromium', auth: { kind: 'remote', store, dataPath: folder, backupSyncIntervalMs: 300_000 } });
    expect(client).toBeInstanceOf(wwebjs.Client);
    const { options, authStrategy } = configured(client);
    expect(options.puppeteer?.executablePath).toBe(resolveChromiumPath('chromium'));
    expect(options.puppeteer?.executablePath).toMatch(/^\/.*chromium$/);
    expect(options.puppeteer?.headless).toBe(true);
    expect(options.puppeteer?.args).toEqual([...CHROMIUM_ARGS]);
    expect(authStrategy).toBeInstanceOf(wwebjs.RemoteAuth);
    expect(authStrategy).toMatchObject({ store, dataPath: resolve(folder), backupSyncIntervalMs: 300_000 });
    expect(client instanceof wwebjs.Client && realClientFits(client) === client).toBe(true);
    expect([realMessageFits, realChatFits, realStoreFits]).toHaveLength(3);
  });

  it('keeps the session in WHATSAPP_SESSION_DIR with LocalAuth when it is set', () => {
    const client = createWebClient({ chromiumPath: '/usr/bin/chromium', auth: { kind: 'local', sessionDir: folder } });
    const { options, authStrategy } = configured(client);
    expect(options.puppeteer?.executablePath).toBe('/usr/bin/chromium');
    expect(authStrategy).toBeInstanceOf(wwebjs.LocalAuth);
    expect(authStrategy).toMatchObject({ dataPath: resolve(folder) });
  });

  it('refuses RemoteAuth saving less often than once a minute, as the library does', () => {
    expect(() => createWebClient({ chromiumPath: '/usr/bin/chromium', auth: { kind: 'remote', store, dataPath: folder, backupSyncIntervalMs: 1000 } })).toThrow(/backupSyncIntervalMs/);
  });
});

describe('resolveChromiumPath', () => {
  it('looks a name up on PATH', async () => {
    const browser = join(folder, 'my-chromium');
    await writeFile(browser, '#!/bin/sh\n');
    await chmod(browser, 0o755);
    expect(resolveChromiumPath('my-chromium', `/nonexistent:${folder}`)).toBe(browser);
  });

  it('says clearly when the browser is not there', () => {
    expect(() => resolveChromiumPath('no-such-browser', folder)).toThrow(/No browser named no-such-browser on PATH.*CHROMIUM_PATH/);
    expect(() => resolveChromiumPath('/opt/none/chromium')).toThrow(/^CHROMIUM_PATH \/opt\/none\/chromium is not an executable file/);
    expect(() => resolveChromiumPath('/opt/none/chromium')).toThrow(expect.objectContaining({ code: 'config.invalid' }) as Error);
    expect(() => createWebClient({ chromiumPath: '/opt/none/chromium', auth: { kind: 'local', sessionDir: folder } })).toThrow(/CHROMIUM_PATH/);
  });

  it('does not take a file that cannot be run', async () => {
    const notExecutable = join(folder, 'plain-file');
    await writeFile(notExecutable, 'x');
    expect(() => resolveChromiumPath(notExecutable)).toThrow(/not an executable file/);
  });
});
