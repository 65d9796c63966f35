import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { useRedis } from '../support/redis.ts';
import { useSwitchboard } from '../support/switchboard-harness.ts';

const appDir = fileURLToPath(new URL('../fixtures/loop-app/', import.meta.url));
const redisUrl = useRedis();
// No model endpoint at all: both variables empty, which counts as unset.
const sb = useSwitchboard({ appDir, redisUrl, env: { ANTHROPIC_API_KEY: '', ANTHROPIC_BASE_URL: '' } });

describe('without a model endpoint', () => {
  it('the chat says what is missing, and a message gets an error naming the variables', async () => {
    const config = (await (await fetch(`${sb().url}/api/chat/config`)).json()) as { modelConfigured: boolean; missing: string[] };
    expect(config).toEqual({ modelConfigured: false, missing: ['ANTHROPIC_API_KEY', 'ANTHROPIC_BASE_URL'] });
    await sb().post('no-model', 'hello?');
    const events = await sb().settled('no-model');
    const error = events.find(({ event }) => event.type === 'part' && event.part.metadata.partType === 'error');
    expect(error?.event.type === 'part' && error.event.part.text).toMatch(/ANTHROPIC_API_KEY or ANTHROPIC_BASE_URL/);
    expect(events.at(-1)?.event).toMatchObject({ type: 'turn', turnState: 'error' });
    expect(sb().fake.messageRequests).toHaveLength(0);
  });
});
