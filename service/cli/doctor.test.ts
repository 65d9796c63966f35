import { describe, expect, it } from 'vitest';
import { startFakeAnthropic } from '../../test/fakes/fake-anthropic.ts';
import { useRedis } from '../../test/support/redis.ts';
import { loadEnv } from '../../src/config/env.ts';
import { runDoctor } from './doctor.ts';

const redisUrl = useRedis();
const appDir = new URL('../../', import.meta.url).pathname;

async function doctor(raw: Record<string, string>): Promise<{ code: number; text: string }> {
  let text = '';
  const code = await runDoctor(loadEnv({ REDIS_URL: redisUrl(), ...raw }, { appDir }), { write: (chunk: string) => (text += chunk) });
  return { code, text };
}

describe('switchboard doctor', () => {
  it('passes with a reachable Redis and model endpoint, and prints one line per check', async () => {
    const fake = await startFakeAnthropic();
    try {
      const { code, text } = await doctor({ ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: fake.url });
      expect(code).toBe(0);
      expect(text).toMatch(/^redis\s+OK\s+REDIS_URL \([^)]+:\d+\) answers, Redis \d/m);
      expect(text).toMatch(/^model\s+OK/m);
      expect(text).toMatch(/^channel web\s+OK/m);
      expect(text).toMatch(/^senders web\s+OK\s+open: anyone may write$/m);
      expect(text).not.toMatch(/^senders email/m);
      expect(text).toMatch(/^channel email\s+OFF\s+not configured \(IMAP_URL, SMTP_URL/m);
      expect(text).toContain('all checks passed');
    } finally {
      await fake.close();
    }
  });

  it("prints each enabled channel's sender policy: WhatsApp on a linked device defaults to the allowlist", async () => {
    const { text } = await doctor({ WHATSAPP_MODE: 'web', CHROMIUM_PATH: '/nonexistent/chromium' });
    expect(text).toMatch(/^senders whatsapp\s+OK\s+allowlist \(the channel's default\): known people, approved senders, 0 allow entries; others get no answer$/m);
  });

  it('fails, naming the variable, when no model endpoint is set', async () => {
    const { code, text } = await doctor({});
    expect(code).toBe(1);
    expect(text).toMatch(/^model\s+FAIL\s+set ANTHROPIC_API_KEY/m);
  });

  it('fails when the model endpoint does not answer', async () => {
    const { code, text } = await doctor({ ANTHROPIC_API_KEY: 'k', ANTHROPIC_BASE_URL: 'http://127.0.0.1:9' });
    expect(code).toBe(1);
    expect(text).toMatch(/^model\s+FAIL\s+http:\/\/127\.0\.0\.1:9 unreachable/m);
  });
});
