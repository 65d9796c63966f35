/**
 * `switchboard doctor` in WhatsApp web mode (`webDoctor`): the browser is found and `--version`
 * runs (Debian's chromium at /usr/bin/chromium, by absolute path or by name on PATH), a missing
 * one fails saying what to do; where the session is kept; with a running Redis, the link state the
 * service wrote (prefix `sb`, the service's default: kept in a Redis database of its own here, so
 * no other test's keys are touched), ok while linking or ready, failing after a drop with the
 * operator's alert, and failing when Redis cannot be reached. Then the CLI lines through
 * `runDoctor` with the registered channel modules.
 */
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { DoctorCheck } from '../../channels/channel.ts';
import { createLease } from '../../channels/kit/lease/lease.ts';
import { createLinkStateStore, type LinkStateUpdate } from '../../channels/whatsapp/web/link-state.ts';
import { webKeys } from '../../channels/whatsapp/web/web-keys.ts';
import { webDoctor } from '../../channels/whatsapp/web/web-doctor.ts';
import { runDoctor } from '../../service/cli/doctor.ts';
import { loadEnv } from '../../src/config/env.ts';
import type { RedisEnv, WhatsAppWebEnv } from '../../src/config/env-types.ts';
import { startFakeAnthropic } from '../fakes/fake-anthropic.ts';
import type { FakeAnthropic } from '../fakes/fake-anthropic-types.ts';
import { useRedis } from '../support/redis.ts';

const CHROMIUM = '/usr/bin/chromium';
/** The prefix the doctor reads: `startService`'s default. */
const SERVICE_PREFIX = 'sb';
/** A database of its own, so the `sb` keys written here meet no other test's. */
const DOCTOR_DB = 13;

const redisUrl = useRedis();
let anthropic: FakeAnthropic;
let redis: Redis;

/** The test Redis's URL pointing at {@link DOCTOR_DB}. */
function doctorUrl(): string {
  const url = new URL(redisUrl());
  url.pathname = `/${String(DOCTOR_DB)}`;
  return url.toString();
}

const web = (changes: Partial<WhatsAppWebEnv> = {}): WhatsAppWebEnv => ({ mode: 'web', sessionDir: undefined, chromiumPath: CHROMIUM, ...changes });
const external = (): RedisEnv => ({ mode: 'external', url: doctorUrl() });
const embedded: RedisEnv = { mode: 'embedded', dataDir: '/tmp/switchboard-doctor-unused' };

function check(checks: readonly DoctorCheck[], name: string): DoctorCheck {
  const found = checks.find((candidate) => candidate.name === name);
  if (found === undefined) throw new Error(`no "${name}" check in ${JSON.stringify(checks)}`);
  return found;
}

async function clearLinkState(): Promise<void> {
  const keys = webKeys(SERVICE_PREFIX);
  await redis.del(keys.linkState, keys.linkHistory, `${SERVICE_PREFIX}:lease:whatsapp:web-session`);
}

/** Writes `update` as the service's session holder would, under the session lease. */
async function writeLinkState(update: LinkStateUpdate): Promise<void> {
  const lease = createLease({ redis, key: `${SERVICE_PREFIX}:lease:whatsapp:web-session`, ttlMs: 5000 });
  const fence = await lease.acquire();
  try {
    await createLinkStateStore({ redis, prefix: SERVICE_PREFIX }).write(fence, update);
  } finally {
    await lease.release();
  }
}

beforeAll(async () => {
  anthropic = await startFakeAnthropic();
  redis = new Redis(doctorUrl());
  await clearLinkState();
});

afterEach(clearLinkState);

afterAll(async () => {
  await redis.quit();
  await anthropic.close();
});

describe('the browser check', () => {
  it('finds Debian\'s chromium at CHROMIUM_PATH and names its version', async () => {
    const browser = check(await webDoctor(web(), embedded), 'whatsapp web browser');
    expect(browser.status).toBe('ok');
    expect(browser.detail).toMatch(/^Chromium \d+\.\d+\.\d+\.\d+.* at \/usr\/bin\/chromium$/);
  });

  it('finds it by name on PATH, the default of CHROMIUM_PATH', async () => {
    const browser = check(await webDoctor(web({ chromiumPath: 'chromium' }), embedded), 'whatsapp web browser');
    expect(browser.status).toBe('ok');
    expect(browser.detail).toMatch(/^Chromium .* at \/.*\/chromium$/);
  });

  it('fails with what to do when CHROMIUM_PATH is missing, or no browser of that name is on PATH', async () => {
    const missing = check(await webDoctor(web({ chromiumPath: '/opt/nowhere/chromium' }), embedded), 'whatsapp web browser');
    expect(missing).toEqual({
      name: 'whatsapp web browser',
      status: 'fail',
      detail: 'CHROMIUM_PATH /opt/nowhere/chromium is not an executable file. Install Debian\'s chromium or point CHROMIUM_PATH at the browser.',
    });
    const unnamed = check(await webDoctor(web({ chromiumPath: 'no-such-browser-7q' }), embedded), 'whatsapp web browser');
    expect(unnamed.status).toBe('fail');
    expect(unnamed.detail).toContain('No browser named no-such-browser-7q on PATH');
    expect(unnamed.detail).toContain('CHROMIUM_PATH');
  });
});

describe('the session check', () => {
  it('without REDIS_URL says where the session is kept, and points at the operator page', async () => {
    expect(check(await webDoctor(web(), embedded), 'whatsapp web session')).toEqual({
      name: 'whatsapp web session',
      status: 'ok',
      detail: 'kept in Redis (RemoteAuth); link state on /admin/whatsapp while the service runs',
    });
    const local = check(await webDoctor(web({ sessionDir: '/var/lib/switchboard/whatsapp' }), embedded), 'whatsapp web session');
    expect(local.detail).toMatch(/^kept in \/var\/lib\/switchboard\/whatsapp \(LocalAuth\);/);
  });

  it('with a running Redis and no session yet, says how to start one', async () => {
    expect(check(await webDoctor(web(), external()), 'whatsapp web session')).toEqual({
      name: 'whatsapp web session',
      status: 'ok',
      detail: 'kept in Redis (RemoteAuth); no session has started yet: start a worker and scan the QR code on /admin/whatsapp',
    });
  });

  it('reads the link state the service wrote: ok when ready or waiting to be linked', async () => {
    await writeLinkState({ status: 'ready', number: '+447700900999' });
    const ready = check(await webDoctor(web(), external()), 'whatsapp web session');
    expect(ready.status).toBe('ok');
    expect(ready.detail).toMatch(/^kept in Redis \(RemoteAuth\); ready as \+447700900999 since \d{4}-\d{2}-\d{2}T[0-9:.]+Z$/);

    await writeLinkState({ status: 'starting' });
    expect(check(await webDoctor(web(), external()), 'whatsapp web session').status).toBe('ok');
  });

  it('fails after the phone logged the device out, giving the operator\'s alert', async () => {
    const alert = 'The phone logged this linked device out (WhatsApp › Linked devices). The kept session was cleared; a new session starts in 0.5 s: scan its QR code to link again.';
    await writeLinkState({ status: 'logged-out', detail: 'LOGOUT', number: '+447700900999', alert });
    const session = check(await webDoctor(web(), external()), 'whatsapp web session');
    expect(session.status).toBe('fail');
    expect(session.detail).toContain('logged-out as +447700900999 since ');
    expect(session.detail).toContain(alert);
  });

  it('fails, saying so, when Redis cannot be reached', async () => {
    const session = check(await webDoctor(web(), { mode: 'external', url: 'redis://127.0.0.1:1' }), 'whatsapp web session');
    expect(session.status).toBe('fail');
    expect(session.detail).toMatch(/^kept in Redis \(RemoteAuth\); the link state could not be read: /);
  });
});

describe('switchboard doctor with WHATSAPP_MODE=web', () => {
  async function doctor(chromiumPath: string): Promise<{ code: number; text: string }> {
    const env = loadEnv(
      { REDIS_URL: doctorUrl(), ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: anthropic.url, LOG_LEVEL: 'silent', WHATSAPP_MODE: 'web', CHROMIUM_PATH: chromiumPath },
      { appDir: process.cwd() },
    );
    let text = '';
    const code = await runDoctor(env, { write: (chunk: string) => (text += chunk) });
    return { code, text };
  }

  it('prints the browser and session lines and passes', async () => {
    const { code, text } = await doctor(CHROMIUM);
    expect(text).toMatch(/^whatsapp web browser\s+OK\s+Chromium .* at \/usr\/bin\/chromium$/m);
    expect(text).toMatch(/^whatsapp web session\s+OK\s+kept in Redis \(RemoteAuth\); no session has started yet/m);
    expect(text).toContain('all checks passed');
    expect(code).toBe(0);
  });

  it('exits non-zero when the browser is missing', async () => {
    const { code, text } = await doctor('/opt/nowhere/chromium');
    expect(text).toMatch(/^whatsapp web browser\s+FAIL\s+CHROMIUM_PATH \/opt\/nowhere\/chromium is not an executable file/m);
    expect(text).toContain('1 check(s) failed');
    expect(code).toBe(1);
  });
});
