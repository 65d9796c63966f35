/**
 * `switchboard doctor`'s SMS checks against the fake Twilio REST API, reached through
 * `TWILIO_API_URL` with the real twilio SDK. Proves that `smsDoctor` reports the account and the
 * sending number `ok` with the right credentials and a number the account owns (naming the account,
 * its status and name, and where the number's webhook must point); `fail` with a wrong auth token
 * (Twilio's 401 / 20003, the token never quoted), for a `TWILIO_SMS_FROM` the account does not own,
 * when `TWILIO_SMS_FROM` is unset, and for a suspended account; `ok` for a Messaging Service SID
 * without looking numbers up; `off` when Twilio is not configured; and that it only reads (no
 * message is sent). Then that the CLI path (`runDoctor` with the registered channel modules) prints
 * the `sms account` and `sms number` lines and exits non-zero when one of them fails, as the README's
 * `npx switchboard doctor` row says.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DoctorCheck } from '../../channels/channel.ts';
import { smsDoctor } from '../../channels/sms/doctor.ts';
import { runDoctor } from '../../service/cli/doctor.ts';
import { loadEnv } from '../../src/config/env.ts';
import type { SwitchboardEnv } from '../../src/config/env-types.ts';
import { startFakeAnthropic } from '../fakes/fake-anthropic.ts';
import type { FakeAnthropic } from '../fakes/fake-anthropic-types.ts';
import { startFakeTwilio } from '../fakes/fake-twilio.ts';
import type { FakeTwilio } from '../fakes/fake-twilio-types.ts';
import { useRedis } from '../support/redis.ts';

const ACCOUNT = `AC${'3'.repeat(32)}`;
const TOKEN = 'doctor-auth-token-5Wq';
const OWNED = '+15005550006';
const NOT_OWNED = '+15005550009';
const SERVICE = `MG${'0123456789abcdef'.repeat(2)}`;
const ACCOUNT_NAME = 'Switchboard test account';
const appDir = process.cwd();

const redisUrl = useRedis();
let anthropic: FakeAnthropic;
let twilio: FakeTwilio;
let suspended: FakeTwilio;

beforeAll(async () => {
  anthropic = await startFakeAnthropic();
  twilio = await startFakeTwilio({ accountSid: ACCOUNT, authToken: TOKEN, numbers: [OWNED], accountStatus: 'active' });
  suspended = await startFakeTwilio({ accountSid: ACCOUNT, authToken: TOKEN, numbers: [OWNED], accountStatus: 'suspended' });
});

afterAll(async () => {
  await Promise.all([anthropic.close(), twilio.close(), suspended.close()]);
});

interface SmsSettings {
  readonly api?: FakeTwilio;
  readonly token?: string;
  /** `TWILIO_SMS_FROM`; `null` leaves it unset. */
  readonly from?: string | null;
}

/** The environment as `switchboard doctor` reads it; `null` leaves Twilio unconfigured. */
function env(sms: SmsSettings | null = {}): SwitchboardEnv {
  const from = sms?.from === undefined ? OWNED : sms.from;
  return loadEnv({
    REDIS_URL: redisUrl(), ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: anthropic.url, LOG_LEVEL: 'silent',
    ...(sms === null ? {} : {
      TWILIO_ACCOUNT_SID: ACCOUNT,
      TWILIO_AUTH_TOKEN: sms.token ?? TOKEN,
      TWILIO_API_URL: (sms.api ?? twilio).url,
      ...(from === null ? {} : { TWILIO_SMS_FROM: from }),
    }),
  }, { appDir });
}

function check(checks: readonly DoctorCheck[], name: string): DoctorCheck {
  const found = checks.find((candidate) => candidate.name === name);
  if (found === undefined) throw new Error(`no "${name}" check in ${JSON.stringify(checks)}`);
  return found;
}

describe('SMS doctor checks against the fake Twilio', () => {
  it('passes both checks with the right credentials and an owned number, naming the account and the webhook path', async () => {
    twilio.reset();
    const checks = await smsDoctor(env().sms);
    expect(checks).toEqual([
      { name: 'sms account', status: 'ok', detail: `${ACCOUNT} at ${twilio.url}: active (${ACCOUNT_NAME})` },
      { name: 'sms number', status: 'ok', detail: `${OWNED} belongs to the account; point its messaging webhook at /webhooks/twilio/sms` },
    ]);
    // It only reads: the account, then the number looked up by its own value; nothing is sent.
    expect(twilio.requests().map((request) => `${request.method} ${request.path.replace(/\?.*$/, '')}`)).toEqual([
      `GET /2010-04-01/Accounts/${ACCOUNT}.json`,
      `GET /2010-04-01/Accounts/${ACCOUNT}/IncomingPhoneNumbers.json`,
    ]);
    expect(twilio.requests()[1]?.path).toContain(`PhoneNumber=${encodeURIComponent(OWNED)}`);
    expect(twilio.messages()).toHaveLength(0);
  });

  it('fails both checks with a wrong auth token, giving Twilio\'s 20003 without quoting either token', async () => {
    const wrong = 'wrong-auth-token-8Rt';
    const checks = await smsDoctor(env({ token: wrong }).sms);
    const account = check(checks, 'sms account');
    expect(account.status).toBe('fail');
    expect(account.detail).toBe(`${ACCOUNT} at ${twilio.url}: Authenticate (Twilio 20003)`);
    const number = check(checks, 'sms number');
    expect(number).toEqual({ name: 'sms number', status: 'fail', detail: `${OWNED}: Authenticate (Twilio 20003)` });
    for (const entry of checks) {
      for (const secret of [wrong, TOKEN]) expect(entry.detail).not.toContain(secret);
    }
  });

  it('fails the number check when TWILIO_SMS_FROM is a number the account does not own', async () => {
    const checks = await smsDoctor(env({ from: NOT_OWNED }).sms);
    expect(check(checks, 'sms account').status).toBe('ok');
    expect(check(checks, 'sms number')).toEqual({ name: 'sms number', status: 'fail', detail: `${NOT_OWNED} is not a number of account ${ACCOUNT}` });
  });

  it('fails the number check when TWILIO_SMS_FROM is unset, since answers could not be sent', async () => {
    const unset = env({ from: null });
    expect(unset.sms?.from).toBeUndefined();
    const checks = await smsDoctor(unset.sms);
    expect(check(checks, 'sms account').status).toBe('ok');
    expect(check(checks, 'sms number')).toEqual({ name: 'sms number', status: 'fail', detail: 'TWILIO_SMS_FROM is unset: answers cannot be sent' });
  });

  it('passes a Messaging Service SID without looking up numbers', async () => {
    twilio.reset();
    const checks = await smsDoctor(env({ from: SERVICE }).sms);
    expect(check(checks, 'sms account').status).toBe('ok');
    expect(check(checks, 'sms number')).toEqual({ name: 'sms number', status: 'ok', detail: `sending through Messaging Service ${SERVICE}` });
    expect(twilio.requests().some((request) => request.path.includes('IncomingPhoneNumbers'))).toBe(false);
  });

  it('fails the account check for a suspended account, naming its status', async () => {
    const checks = await smsDoctor(env({ api: suspended }).sms);
    expect(check(checks, 'sms account')).toEqual({ name: 'sms account', status: 'fail', detail: `${ACCOUNT} at ${suspended.url}: suspended (${ACCOUNT_NAME})` });
    expect(check(checks, 'sms number').status).toBe('ok');
  });

  it('is off when Twilio is not configured', async () => {
    const unconfigured = env(null);
    expect(unconfigured.sms).toBeUndefined();
    expect(await smsDoctor(unconfigured.sms)).toEqual([{ name: 'channel sms', status: 'off', detail: 'TWILIO_ACCOUNT_SID and TWILIO_AUTH_TOKEN unset' }]);
  });
});

describe('switchboard doctor with SMS configured', () => {
  async function doctor(sms: SmsSettings): Promise<{ code: number; text: string }> {
    let text = '';
    const code = await runDoctor(env(sms), { write: (chunk: string) => (text += chunk) });
    return { code, text };
  }

  it('prints the sms lines and passes with the right credentials and an owned number', async () => {
    const { code, text } = await doctor({});
    expect(text).toMatch(new RegExp(`^sms account\\s+OK\\s+${ACCOUNT} at http://127\\.0\\.0\\.1:\\d+: active \\(${ACCOUNT_NAME}\\)$`, 'm'));
    expect(text).toMatch(/^sms number\s+OK\s+\+15005550006 belongs to the account; point its messaging webhook at \/webhooks\/twilio\/sms$/m);
    expect(text).not.toMatch(/^channel sms/m);
    expect(text).toContain('all checks passed');
    expect(code).toBe(0);
  });

  it('exits non-zero and prints the failing sms lines with a wrong auth token', async () => {
    const wrong = 'wrong-auth-token-2Lm';
    const { code, text } = await doctor({ token: wrong });
    expect(text).toMatch(/^sms account\s+FAIL\s+.*Authenticate \(Twilio 20003\)$/m);
    expect(text).toMatch(/^sms number\s+FAIL\s+\+15005550006: Authenticate \(Twilio 20003\)$/m);
    expect(text).not.toContain(wrong);
    expect(text).not.toContain(TOKEN);
    expect(text).toContain('2 check(s) failed');
    expect(code).toBe(1);
  });

  it('exits non-zero when the sending number is not the account\'s', async () => {
    const { code, text } = await doctor({ from: NOT_OWNED });
    expect(text).toMatch(/^sms account\s+OK/m);
    expect(text).toMatch(new RegExp(`^sms number\\s+FAIL\\s+\\+15005550009 is not a number of account ${ACCOUNT}$`, 'm'));
    expect(text).toContain('1 check(s) failed');
    expect(code).toBe(1);
  });
});
