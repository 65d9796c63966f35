import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { redeemSignInToken } from '../../channels/web/identity/sign-in-links.ts';
import { useKeyPrefix, useRedis } from '../../test/support/redis.ts';
import { useRedisClients } from '../../test/support/redis-clients.ts';
import { runInviteCommand } from './invite-command.ts';
import { main } from './main.ts';
import { readPeople } from './read-people.ts';

const redisUrl = useRedis();
const prefix = useKeyPrefix(redisUrl);
const connect = useRedisClients(redisUrl);
const PEOPLE = [{ id: 'ada', name: 'Ada Lovelace' }];
const NOW = new Date('2030-01-01T10:00:00.000Z');

afterEach(() => {
  vi.restoreAllMocks();
});

async function run(...args: string[]): Promise<{ code: number; text: string }> {
  let text = '';
  const links = { redis: await connect(), prefix: prefix(), publicUrl: 'https://chat.example.com', clock: () => NOW };
  const code = await runInviteCommand(args, { people: PEOPLE, links }, { write: (chunk: string) => (text += chunk) });
  return { code, text };
}

function tokenOf(text: string): string {
  return /\/signin\/([A-Za-z0-9_-]{22})$/m.exec(text)?.[1] ?? '';
}

describe('switchboard invite', () => {
  it('prints a one-time link for a person, valid for 15 minutes', async () => {
    const { code, text } = await run('ada');
    expect(code).toBe(0);
    expect(text).toContain('Sign-in link for Ada Lovelace (ada); it works once, until 2030-01-01T10:15:00.000Z:');
    expect(text).toMatch(/^https:\/\/chat\.example\.com\/signin\/[A-Za-z0-9_-]{22}$/m);
    const redis = await connect();
    expect(await redeemSignInToken({ redis, prefix: prefix(), clock: () => NOW }, tokenOf(text))).toEqual({ personId: 'ada', basis: 'invite by operator' });
    expect(await redeemSignInToken({ redis, prefix: prefix(), clock: () => NOW }, tokenOf(text))).toBeUndefined();
  });

  it('takes --minutes for the lifetime', async () => {
    const { text } = await run('ada', '--minutes', '60');
    expect(text).toContain('until 2030-01-01T11:00:00.000Z');
    const redis = await connect();
    expect(await redis.pttl((await redis.keys(`${prefix()}:web:signin:*`))[0] ?? '')).toBeGreaterThan(59 * 60_000);
  });

  it('refuses an unknown person (1) and bad usage (2)', async () => {
    expect(await run('grace')).toEqual({ code: 1, text: 'No person with id "grace" in switchboard.yaml. People: ada\n' });
    for (const args of [[], ['ada', 'grace'], ['ada', '--minutes', '0'], ['ada', '--minutes', '1441'], ['--bogus']]) {
      const { code, text } = await run(...args);
      expect(code).toBe(2);
      expect(text).toContain('usage:');
    }
    expect(await (await connect()).keys(`${prefix()}:web:signin:*`)).toEqual([]);
  });

  it('runs from the command line against REDIS_URL with the example app', async () => {
    let out = '';
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      out += String(chunk);
      return true;
    });
    const code = await main(['invite', 'ada'], { REDIS_URL: redisUrl(), PUBLIC_URL: 'https://chat.example.com' });
    vi.restoreAllMocks();
    expect(code).toBe(0);
    const redis = await connect();
    const grant = await redeemSignInToken({ redis, prefix: 'sb' }, tokenOf(out));
    expect(grant).toEqual({ personId: 'ada', basis: 'invite by operator' });
  });
});

describe('readPeople', () => {
  it("reads the example app's people without loading actors or tools", async () => {
    const people = await readPeople(fileURLToPath(new URL('../../', import.meta.url)));
    expect(people.map((person) => [person.id, person.name])).toEqual([['ada', 'Ada Lovelace']]);
  });
});
