/**
 * The example app works from a folder of its own: its actors, tools and `switchboard.yaml` copied
 * into a temporary folder outside this repository, with `switchboard` installed there as a link to
 * this installation (what an app's `npm install` of it makes). Its tools import only the public
 * API (`switchboard`), so the service starts on the copy and a turn runs its tool.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { copyExampleApp } from '../support/example-app-copy.ts';
import { useRedis } from '../support/redis.ts';
import { reply, respond, part, scenarioScript, toolCall } from '../support/scenario-model.ts';
import { useSwitchboard } from '../support/switchboard-harness.ts';

const appDir = copyExampleApp('sb-own-app-');

const redisUrl = useRedis();
const sb = useSwitchboard({ appDir, redisUrl });

describe('the example app in a folder of its own', () => {
  it('imports nothing of this repository but the public API', () => {
    const sources = readdirSync(join(appDir, 'tools')).filter((name) => name.endsWith('.ts'));
    expect(sources.length).toBeGreaterThan(0);
    for (const name of sources) {
      const text = readFileSync(join(appDir, 'tools', name), 'utf8');
      const specifiers = [...text.matchAll(/from '([^']+)'/g)].map((match) => match[1] ?? '');
      expect(specifiers.filter((specifier) => specifier.startsWith('..'))).toEqual([]);
    }
  });

  it('starts, and a turn runs its search_flights tool from the copy', async () => {
    let result = '';
    sb().fake.respondWith(scenarioScript({
      own: [
        () => reply(toolCall('search_flights', { origin: 'LHR', destination: 'CDG', date: '2026-12-18', passengers: 1 })),
        (call) => {
          result = call.toolResults[0]?.content ?? '';
          return reply(respond([part('response', 'Found some.')], 'complete'));
        },
      ],
    }));
    expect((await sb().post('own-app', 'London to Paris on 18 December #own')).status).toBe(202);
    await sb().settled('own-app', 1, 20_000);
    expect(result).toContain('AU 1021');
  });
});
