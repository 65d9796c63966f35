/**
 * The production wiring of web mode with the real whatsapp-web.js `Client` and Debian's Chromium:
 * the module the registry lists starts a headless browser for the session under its lease. With no
 * way to WhatsApp from here, the browser cannot load WhatsApp Web, and the link state must say so
 * (an alert on the operator page) instead of hanging or crashing the worker.
 */
import { describe, expect, it } from 'vitest';
import { createLease } from '../../channels/kit/lease/lease.ts';
import { createLinkStateStore, type LinkState } from '../../channels/whatsapp/web/link-state.ts';
import { whatsappChannel } from '../../channels/whatsapp/index.ts';
import { CHANNEL_MODULES } from '../../channels/registry.ts';
import { useContractAdaptor } from '../../channels/kit/contract/contract-context.ts';
import { useKeyPrefix, useRedis } from '../support/redis.ts';
import { waitFor } from '../support/wait-for.ts';

const redisUrl = useRedis();
const prefix = useKeyPrefix(redisUrl);
const whatsapp = useContractAdaptor({
  redisUrl,
  prefix,
  env: () => ({ WHATSAPP_MODE: 'web', CHROMIUM_PATH: '/usr/bin/chromium' }),
  create: (context) => whatsappChannel.create(context),
});

describe('whatsapp web mode with the real whatsapp-web.js Client', () => {
  it('is the module the registry lists, and starts Debian\'s Chromium for the session; an unreachable WhatsApp Web becomes a visible alert', async () => {
    expect(CHANNEL_MODULES).toContain(whatsappChannel);
    const { redis } = whatsapp.context();
    const listener = whatsapp.adaptor().listener;
    if (listener === undefined) throw new Error('web mode has a listener');
    const lease = createLease({ redis, key: `${prefix()}:lease:whatsapp:${listener.singletonKey ?? ''}`, ttlMs: 10_000 });
    const running = await listener.start(await lease.acquire());
    const links = createLinkStateStore({ redis, prefix: prefix() });
    let history: LinkState[] = [];
    try {
      await waitFor(async () => {
        history = await links.history();
        return history.some((state) => state.alert !== undefined);
      }, 'an alert about the session', 60_000);
    } finally {
      await running.stop();
      await lease.release();
    }
    expect(history.at(-1)?.status).toBe('starting');
    const alert = history.find((state) => state.alert !== undefined);
    expect(alert?.status).toMatch(/disconnected|auth-failed/);
    // The browser really ran and went for WhatsApp Web (net::ERR_… at https://web.whatsapp.com/).
    expect(alert?.detail).toMatch(/web\.whatsapp\.com/);
    expect(alert?.alert).toMatch(/a new session starts in/);
  }, 90_000);
});
