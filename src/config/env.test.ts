import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SwitchboardError } from '../protocol/errors.ts';
import { DEFAULT_SLACK_API_URL, DEFAULT_TWILIO_API_URL } from './parse-channels.ts';
import { DEFAULT_ANTHROPIC_BASE_URL, DEFAULT_LOG_LEVEL, DEFAULT_PORT, loadEnv, type LoadEnvDefaults } from './env.ts';
import type { EnvProblem, RawEnv } from './env-variables.ts';

const appDir = mkdtempSync(join(tmpdir(), 'switchboard-env-test-'));
afterAll(() => {
  rmSync(appDir, { recursive: true, force: true });
});
const defaults: LoadEnvDefaults = { appDir };

const SID = `AC${'0123456789abcdef'.repeat(2)}`;
const MG = `MG${'fedcba9876543210'.repeat(2)}`;

/** Runs `loadEnv` expecting failure; returns the error. */
function failing(env: RawEnv): SwitchboardError {
  try {
    loadEnv(env, defaults);
  } catch (error) {
    if (error instanceof SwitchboardError) return error;
    throw error;
  }
  throw new Error('loadEnv did not throw');
}

function problemsOf(error: SwitchboardError): readonly EnvProblem[] {
  return error.details['problems'] as readonly EnvProblem[];
}

describe('loadEnv defaults', () => {
  it('gives the documented defaults for an empty environment', () => {
    const { lookup, ...env } = loadEnv({}, defaults);
    expect(typeof lookup).toBe('function');
    expect([DEFAULT_PORT, DEFAULT_ANTHROPIC_BASE_URL, DEFAULT_LOG_LEVEL]).toEqual([3000, 'https://api.anthropic.com', 'info']);
    expect([DEFAULT_TWILIO_API_URL, DEFAULT_SLACK_API_URL]).toEqual(['https://api.twilio.com', 'https://slack.com/api/']);
    expect(env).toEqual({
      port: 3000,
      publicUrl: 'http://localhost:3000',
      redis: { mode: 'embedded', dataDir: join(appDir, '.data', 'redis') },
      appDir,
      anthropic: { apiKey: undefined, baseUrl: 'https://api.anthropic.com' },
      email: undefined,
      sms: undefined,
      slack: undefined,
      whatsapp: undefined,
      adminToken: undefined,
      trustProxy: [],
      sessionSecret: undefined,
      logLevel: 'info',
      turnConcurrency: 128,
      channels: { web: true, email: false, sms: false, slack: false, whatsapp: false },
    });
  });

  it('treats empty and blank values as unset', () => {
    const env = loadEnv({ PORT: '', REDIS_URL: '  ', LOG_LEVEL: '' }, defaults);
    expect(env.port).toBe(3000);
    expect(env.redis.mode).toBe('embedded');
    expect(env.logLevel).toBe('info');
  });

  it('derives PUBLIC_URL from PORT and honours redisDataDir', () => {
    const env = loadEnv({ PORT: '8080' }, { appDir, redisDataDir: '/var/lib/sb-redis' });
    expect(env.publicUrl).toBe('http://localhost:8080');
    expect(env.redis).toEqual({ mode: 'embedded', dataDir: '/var/lib/sb-redis' });
  });

  it('reads each variable of the environment exactly once, into a copy that lookup answers from', () => {
    const reads: string[] = [];
    const raw: Record<string, string> = { HOME: '/root', ANTHROPIC_AUTH_TOKEN: 'x', PORT: '4000', PARTNER_TOKEN: '  p'.padEnd(20, 'q'), BLANK: '  ' };
    const env = new Proxy<RawEnv>(raw, {
      get(target, key) {
        if (typeof key === 'string') reads.push(key);
        return typeof key === 'string' ? target[key] : undefined;
      },
    });
    const loaded = loadEnv(env, defaults);
    expect(loaded.port).toBe(4000);
    expect([...reads].sort()).toEqual(Object.keys(raw).sort());
    raw['PARTNER_TOKEN'] = 'changed later';
    raw['LATE'] = 'set after start';
    expect(loaded.lookup('PARTNER_TOKEN')).toBe('p'.padEnd(18, 'q'));
    expect([loaded.lookup('BLANK'), loaded.lookup('LATE'), loaded.lookup('toString')]).toEqual([undefined, undefined, undefined]);
    expect(JSON.stringify(loaded)).not.toContain('/root');
  });
});

describe('loadEnv values', () => {
  it('reads every general variable', () => {
    const env = loadEnv(
      {
        PORT: '4000',
        PUBLIC_URL: 'https://bot.example.com/sb//',
        REDIS_URL: 'rediss://:pw@redis.example.com:6380/2',
        SWITCHBOARD_APP: appDir,
        ANTHROPIC_API_KEY: 'sk-ant-test',
        ANTHROPIC_BASE_URL: 'http://127.0.0.1:9999/',
        ADMIN_TOKEN: 'a'.repeat(32),
        SESSION_SECRET: 's'.repeat(32),
        LOG_LEVEL: 'DEBUG',
        SWITCHBOARD_TURN_CONCURRENCY: '1000',
      },
      defaults,
    );
    expect(env.port).toBe(4000);
    expect(env.publicUrl).toBe('https://bot.example.com/sb');
    expect(env.redis).toEqual({ mode: 'external', url: 'rediss://:pw@redis.example.com:6380/2' });
    expect(env.appDir).toBe(appDir);
    expect(env.anthropic).toEqual({ apiKey: 'sk-ant-test', baseUrl: 'http://127.0.0.1:9999' });
    expect(env.adminToken).toBe('a'.repeat(32));
    expect(env.sessionSecret).toBe('s'.repeat(32));
    expect(env.logLevel).toBe('debug');
    expect(env.turnConcurrency).toBe(1000);
  });

  it('resolves a relative SWITCHBOARD_APP against cwd', () => {
    const env = loadEnv({ SWITCHBOARD_APP: '.' }, { appDir: '/nowhere', cwd: appDir });
    expect(env.appDir).toBe(appDir);
  });

  it('turns email on with IMAP_URL and SMTP_URL, EMAIL_FROM defaulting to the IMAP user', () => {
    const env = loadEnv(
      { IMAP_URL: 'imaps://bot%40example.com:p%40ss@mail.example.com/Support%2FBot', SMTP_URL: 'smtp://mail.example.com' },
      defaults,
    );
    expect(env.channels).toEqual({ web: true, email: true, sms: false, slack: false, whatsapp: false });
    expect(env.email).toEqual({
      imap: { host: 'mail.example.com', port: 993, secure: true, user: 'bot@example.com', password: 'p@ss', mailbox: 'Support/Bot' },
      smtp: { host: 'mail.example.com', port: 587, secure: false, user: undefined, password: undefined },
      from: 'bot@example.com',
      fromAddress: 'bot@example.com',
    });
  });

  it('reads explicit mail ports, INBOX default and a named EMAIL_FROM', () => {
    const env = loadEnv(
      {
        IMAP_URL: 'imap://bot:pw@127.0.0.1:1143',
        SMTP_URL: 'smtps://bot:pw@[::1]:2465',
        EMAIL_FROM: 'Concierge <concierge@example.com>',
      },
      defaults,
    );
    expect(env.email?.imap).toMatchObject({ host: '127.0.0.1', port: 1143, secure: false, mailbox: 'INBOX' });
    expect(env.email?.smtp).toMatchObject({ host: '::1', port: 2465, secure: true, user: 'bot', password: 'pw' });
    expect(env.email?.from).toBe('Concierge <concierge@example.com>');
    expect(env.email?.fromAddress).toBe('concierge@example.com');
  });

  it('turns SMS on with Twilio credentials', () => {
    const env = loadEnv(
      { TWILIO_ACCOUNT_SID: SID, TWILIO_AUTH_TOKEN: 'tok', TWILIO_SMS_FROM: MG, TWILIO_API_URL: 'http://127.0.0.1:7000/' },
      defaults,
    );
    expect(env.sms).toEqual({ accountSid: SID, authToken: 'tok', from: MG, apiUrl: 'http://127.0.0.1:7000' });
    expect(env.channels.sms).toBe(true);
    const plain = loadEnv({ TWILIO_ACCOUNT_SID: SID, TWILIO_AUTH_TOKEN: 'tok', TWILIO_SMS_FROM: '+15550100' }, defaults);
    expect(plain.sms).toEqual({ accountSid: SID, authToken: 'tok', from: '+15550100', apiUrl: 'https://api.twilio.com' });
  });

  it('turns Slack on with a bot token and signing secret', () => {
    const env = loadEnv(
      { SLACK_BOT_TOKEN: 'xoxb-1', SLACK_SIGNING_SECRET: 'sig', SLACK_APP_TOKEN: 'xapp-1', SLACK_API_URL: 'http://127.0.0.1:7001/api' },
      defaults,
    );
    expect(env.slack).toEqual({ botToken: 'xoxb-1', signingSecret: 'sig', appToken: 'xapp-1', apiUrl: 'http://127.0.0.1:7001/api/' });
    expect(loadEnv({ SLACK_BOT_TOKEN: 'xoxb-1', SLACK_SIGNING_SECRET: 'sig' }, defaults).slack?.apiUrl).toBe(
      'https://slack.com/api/',
    );
  });

  it('turns WhatsApp on in cloud mode with the Cloud API credentials, the Graph API pinned by default', () => {
    const cloud = { WHATSAPP_MODE: 'cloud', WHATSAPP_TOKEN: 'EAAG-token', WHATSAPP_PHONE_NUMBER_ID: '106540352242922', WHATSAPP_APP_SECRET: 'app-secret', WHATSAPP_VERIFY_TOKEN: 'verify-me' };
    expect(loadEnv(cloud, defaults).whatsapp).toEqual({ mode: 'cloud', token: 'EAAG-token', phoneNumberId: '106540352242922', appSecret: 'app-secret', verifyToken: 'verify-me', apiUrl: 'https://graph.facebook.com/v26.0' });
    expect(loadEnv({ ...cloud, WHATSAPP_API_URL: 'http://127.0.0.1:7002/v26.0/' }, defaults).whatsapp).toMatchObject({ apiUrl: 'http://127.0.0.1:7002/v26.0' });
    expect(loadEnv(cloud, defaults).channels.whatsapp).toBe(true);
  });

  it('turns WhatsApp on in web mode, the session in Redis unless a directory is given', () => {
    expect(loadEnv({ WHATSAPP_MODE: 'web' }, defaults).whatsapp).toEqual({ mode: 'web', sessionDir: undefined, chromiumPath: 'chromium' });
    expect(loadEnv({ WHATSAPP_MODE: 'web', WHATSAPP_SESSION_DIR: '/var/lib/switchboard/wa', CHROMIUM_PATH: '/usr/bin/chromium' }, defaults).whatsapp).toEqual({ mode: 'web', sessionDir: '/var/lib/switchboard/wa', chromiumPath: '/usr/bin/chromium' });
  });

  it('names each WhatsApp variable that is missing, malformed or read by no mode', () => {
    const cloud = failing({ WHATSAPP_MODE: 'cloud', WHATSAPP_PHONE_NUMBER_ID: '+15550100', WHATSAPP_SESSION_DIR: '/tmp/wa' }).message;
    for (const problem of [/WHATSAPP_TOKEN is required/, /WHATSAPP_APP_SECRET is required/, /WHATSAPP_VERIFY_TOKEN is required/, /WHATSAPP_SESSION_DIR is set but/, /WHATSAPP_PHONE_NUMBER_ID must be the number's id/]) expect(cloud).toMatch(problem);
    expect(failing({ WHATSAPP_MODE: 'business' }).message).toMatch(/WHATSAPP_MODE must be "web" .* or "cloud"/);
    expect(failing({ WHATSAPP_MODE: 'web', WHATSAPP_TOKEN: 'EAAG', WHATSAPP_SESSION_DIR: 'relative/dir' }).message).toMatch(/WHATSAPP_TOKEN is set but[\s\S]*WHATSAPP_SESSION_DIR must be an absolute path/);
    expect(failing({ WHATSAPP_TOKEN: 'EAAG' }).message).toMatch(/WHATSAPP_TOKEN is set but the WhatsApp channel is off/);
  });
});

describe('loadEnv problems', () => {
  it('throws one config.invalid error listing every problem by variable', () => {
    const error = failing({
      PORT: '70000',
      PUBLIC_URL: 'ftp://example.com',
      REDIS_URL: 'http://localhost:6379',
      LOG_LEVEL: 'loud',
      TWILIO_ACCOUNT_SID: 'nope',
    });
    expect(error.code).toBe('config.invalid');
    const variables = problemsOf(error).map((p) => p.variable);
    expect(variables).toEqual(['PORT', 'PUBLIC_URL', 'REDIS_URL', 'TWILIO_AUTH_TOKEN', 'TWILIO_ACCOUNT_SID', 'LOG_LEVEL']);
    expect(error.message).toMatch(/^Invalid environment \(6 problems\):\n/);
    for (const variable of variables) expect(error.message).toContain(`  - ${variable} `);
    expect(error.message).toContain('PORT must be an integer from 1 to 65535 (got "70000")');
  });

  it.each([
    ['PORT', { PORT: '30.5' }],
    ['PORT', { PORT: '0' }],
    ['PUBLIC_URL', { PUBLIC_URL: 'localhost:3000' }],
    ['PUBLIC_URL', { PUBLIC_URL: 'https://example.com/?x=1' }],
    ['ANTHROPIC_BASE_URL', { ANTHROPIC_BASE_URL: 'not a url' }],
    ['SWITCHBOARD_APP', { SWITCHBOARD_APP: '/definitely/not/here' }],
    ['IMAP_URL', { IMAP_URL: 'imap://mail.example.com/INBOX', SMTP_URL: 'smtp://mail.example.com' }],
    ['IMAP_URL', { IMAP_URL: 'pop3://u:p@mail.example.com', SMTP_URL: 'smtp://mail.example.com' }],
    ['SMTP_URL', { IMAP_URL: 'imap://u:p@mail.example.com', SMTP_URL: 'smtp://u@mail.example.com' }],
    ['SMTP_URL', { IMAP_URL: 'imap://u:p@mail.example.com' }],
    ['IMAP_URL', { SMTP_URL: 'smtp://mail.example.com' }],
    ['EMAIL_FROM', { IMAP_URL: 'imap://bot:p@mail.example.com', SMTP_URL: 'smtp://mail.example.com' }],
    ['EMAIL_FROM', { EMAIL_FROM: 'bot@example.com' }],
    ['TWILIO_ACCOUNT_SID', { TWILIO_AUTH_TOKEN: 'tok' }],
    ['TWILIO_SMS_FROM', { TWILIO_ACCOUNT_SID: SID, TWILIO_AUTH_TOKEN: 'tok', TWILIO_SMS_FROM: '555-0100' }],
    ['TWILIO_SMS_FROM', { TWILIO_SMS_FROM: '+15550100' }],
    ['TWILIO_API_URL', { TWILIO_API_URL: 'api.twilio.com' }],
    ['SLACK_SIGNING_SECRET', { SLACK_BOT_TOKEN: 'xoxb-1' }],
    ['SLACK_BOT_TOKEN', { SLACK_BOT_TOKEN: 'xoxp-1', SLACK_SIGNING_SECRET: 'sig' }],
    ['SLACK_APP_TOKEN', { SLACK_APP_TOKEN: 'xapp-1' }],
    ['SLACK_APP_TOKEN', { SLACK_BOT_TOKEN: 'xoxb-1', SLACK_SIGNING_SECRET: 'sig', SLACK_APP_TOKEN: 'xoxb-2' }],
    ['ADMIN_TOKEN', { ADMIN_TOKEN: 'short' }],
    ['SESSION_SECRET', { SESSION_SECRET: 'x'.repeat(31) }],
    ['SWITCHBOARD_TURN_CONCURRENCY', { SWITCHBOARD_TURN_CONCURRENCY: '0' }],
    ['SWITCHBOARD_TURN_CONCURRENCY', { SWITCHBOARD_TURN_CONCURRENCY: '2.5' }],
    ['SWITCHBOARD_TURN_CONCURRENCY', { SWITCHBOARD_TURN_CONCURRENCY: '10001' }],
  ] as const)('reports %s for %j', (variable, env) => {
    expect(problemsOf(failing(env)).map((p) => p.variable)).toEqual([variable]);
  });

  it('never puts secret values in the message or details', () => {
    const secrets = ['hunter2-imap', 'hunter2-smtp', 'hunter2-redis', 'xoxp-hunter2', 'hunter2-sig', 'hunter2!', 'hunter2-session'];
    const error = failing({
      IMAP_URL: 'imap://bot:hunter2-imap@/INBOX',
      SMTP_URL: 'ftp://bot:hunter2-smtp@mail.example.com',
      REDIS_URL: 'redis://:hunter2-redis@',
      SLACK_BOT_TOKEN: 'xoxp-hunter2',
      SLACK_SIGNING_SECRET: 'hunter2-sig',
      ADMIN_TOKEN: 'hunter2!',
      SESSION_SECRET: 'hunter2-session',
      TWILIO_AUTH_TOKEN: 'hunter2-twilio',
    });
    const text = `${error.message}\n${JSON.stringify(error.toJSON())}`;
    expect(problemsOf(error).length).toBeGreaterThanOrEqual(7);
    for (const secret of [...secrets, 'hunter2-twilio']) expect(text).not.toContain(secret);
  });
});
