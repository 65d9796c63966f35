/**
 * `switchboard doctor`'s Slack check against the fake Slack Web API, reached through
 * `SLACK_API_URL` with the real `@slack/web-api` client. Proves that `slackDoctor` reports `ok`
 * with the right bot token, naming the bot user and the team `auth.test` answered for (with or
 * without `SLACK_APP_TOKEN`); `fail` with a wrong token (Slack's `invalid_auth`, no token quoted)
 * and when Slack cannot be reached; `off` when Slack is not configured; and that it only reads
 * (one `auth.test`, nothing posted). Then that the CLI path (`runDoctor` with the registered
 * channel modules) prints the `slack` line and exits non-zero when it fails, and prints
 * `channel slack … OFF` when the variables are unset.
 *
 * How the check words the way events arrive (HTTP or Socket Mode) may change, so only the bot and
 * team part of the detail is asserted.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DoctorCheck } from '../../channels/channel.ts';
import { slackDoctor } from '../../channels/slack/doctor.ts';
import { runDoctor } from '../../service/cli/doctor.ts';
import { loadEnv } from '../../src/config/env.ts';
import type { SwitchboardEnv } from '../../src/config/env-types.ts';
import { startFakeAnthropic } from '../fakes/fake-anthropic.ts';
import type { FakeAnthropic } from '../fakes/fake-anthropic-types.ts';
import { startFakeSlack } from '../fakes/fake-slack.ts';
import type { FakeSlack } from '../fakes/fake-slack-types.ts';
import { useRedis } from '../support/redis.ts';

const TOKEN = 'xoxb-1111-2222-doctorRightToken';
const WRONG = 'xoxb-1111-2222-doctorWrongToken';
const SECRET = 'doctor-signing-secret-7Hq';
const APP_TOKEN = 'xapp-1-A0FAKE01-3333-doctorAppToken';
const TEAM = 'T0DOC0001';
const BOT = 'U0DOCBOT1';
/** `auth.test` answers with the recorded fixture's names and the fake's ids. */
const WHO = `bot switchboard (${BOT}) in team Switchboard Fake Team (${TEAM})`;
const appDir = process.cwd();

const redisUrl = useRedis();
let anthropic: FakeAnthropic;
let slack: FakeSlack;
/** A fake that was started and closed again: its URL refuses connections. */
let goneUrl: string;

beforeAll(async () => {
  anthropic = await startFakeAnthropic();
  slack = await startFakeSlack({ botToken: TOKEN, teamId: TEAM, botUserId: BOT });
  const gone = await startFakeSlack({ botToken: TOKEN });
  goneUrl = gone.url;
  await gone.close();
});

afterAll(async () => {
  await Promise.all([anthropic.close(), slack.close()]);
});

interface SlackSettings {
  readonly token?: string;
  readonly appToken?: string;
  readonly apiUrl?: string;
}

/** The environment as `switchboard doctor` reads it; `null` leaves Slack unconfigured. */
function env(settings: SlackSettings | null = {}): SwitchboardEnv {
  return loadEnv({
    REDIS_URL: redisUrl(), ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: anthropic.url, LOG_LEVEL: 'silent',
    ...(settings === null ? {} : {
      SLACK_BOT_TOKEN: settings.token ?? TOKEN,
      SLACK_SIGNING_SECRET: SECRET,
      SLACK_API_URL: settings.apiUrl ?? slack.url,
      ...(settings.appToken === undefined ? {} : { SLACK_APP_TOKEN: settings.appToken }),
    }),
  }, { appDir });
}

function only(checks: readonly DoctorCheck[]): DoctorCheck {
  expect(checks).toHaveLength(1);
  const [check] = checks;
  if (check === undefined) throw new Error('no check');
  return check;
}

function expectNoSecrets(text: string): void {
  for (const secret of [TOKEN, WRONG, SECRET, APP_TOKEN]) expect(text).not.toContain(secret);
}

describe('Slack doctor check against the fake Slack', () => {
  it('passes with the right bot token, naming the bot user and the team, and only reads', async () => {
    slack.reset();
    const check = only(await slackDoctor(env().slack));
    expect(check.name).toBe('slack');
    expect(check.status).toBe('ok');
    expect(check.detail).toContain(WHO);
    expectNoSecrets(check.detail);
    expect(slack.calls().map((call) => call.method)).toEqual(['auth.test']);
    expect(slack.calls()[0]?.token).toBe(TOKEN);
    expect(slack.messages()).toHaveLength(0);
  });

  it('passes with SLACK_APP_TOKEN set too, still naming the bot and the team', async () => {
    const configured = env({ appToken: APP_TOKEN });
    expect(configured.slack?.appToken).toBe(APP_TOKEN);
    const check = only(await slackDoctor(configured.slack));
    expect(check).toMatchObject({ name: 'slack', status: 'ok' });
    expect(check.detail).toContain(WHO);
    expectNoSecrets(check.detail);
  });

  it('fails with a wrong bot token, giving Slack\'s invalid_auth without quoting a token', async () => {
    slack.reset();
    const check = only(await slackDoctor(env({ token: WRONG }).slack));
    expect(check).toEqual({ name: 'slack', status: 'fail', detail: `auth.test at ${slack.url}: invalid_auth` });
    expectNoSecrets(check.detail);
    expect(slack.calls().map((call) => [call.method, call.error])).toEqual([['auth.test', 'invalid_auth']]);
  });

  it('fails when Slack cannot be reached, naming the URL it tried', async () => {
    const check = only(await slackDoctor(env({ apiUrl: goneUrl }).slack));
    expect(check.status).toBe('fail');
    expect(check.detail.startsWith(`auth.test at ${goneUrl}: `)).toBe(true);
    expectNoSecrets(check.detail);
  });

  it('is off when Slack is not configured', async () => {
    const unconfigured = env(null);
    expect(unconfigured.slack).toBeUndefined();
    const check = only(await slackDoctor(unconfigured.slack));
    expect(check).toMatchObject({ name: 'channel slack', status: 'off' });
    expect(check.detail).toContain('SLACK_BOT_TOKEN');
  });
});

describe('switchboard doctor with Slack configured', () => {
  async function doctor(settings: SlackSettings | null): Promise<{ code: number; text: string }> {
    let text = '';
    const code = await runDoctor(env(settings), { write: (chunk: string) => (text += chunk) });
    return { code, text };
  }

  it('prints the slack line and passes with the right bot token', async () => {
    const { code, text } = await doctor({});
    expect(text).toMatch(new RegExp(`^slack\\s+OK\\s+${WHO.replace(/[()]/g, '\\$&')}`, 'm'));
    expect(text).not.toMatch(/^channel slack/m);
    expect(text).toContain('all checks passed');
    expectNoSecrets(text);
    expect(code).toBe(0);
  });

  it('exits non-zero and prints the failing slack line with a wrong bot token', async () => {
    const { code, text } = await doctor({ token: WRONG });
    expect(text).toMatch(/^slack\s+FAIL\s+auth\.test at http:\/\/127\.0\.0\.1:\d+\/api\/: invalid_auth$/m);
    expect(text).toContain('1 check(s) failed');
    expectNoSecrets(text);
    expect(code).toBe(1);
  });

  it('lists Slack as off, and still passes, when its variables are unset', async () => {
    const { code, text } = await doctor(null);
    expect(text).toMatch(/^channel slack\s+OFF\s+not configured \(SLACK_BOT_TOKEN, SLACK_SIGNING_SECRET/m);
    expect(text).not.toMatch(/^slack\s/m);
    expect(text).toContain('all checks passed');
    expect(code).toBe(0);
  });
});
