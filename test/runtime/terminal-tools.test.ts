import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { StoredWebChatEvent } from '../../channels/web/stream/event-store.ts';
import { useRedis } from '../support/redis.ts';
import { part, reply, respond, scenarioScript, toolCall, type ScenarioCall } from '../support/scenario-model.ts';
import { useSwitchboard } from '../support/switchboard-harness.ts';

const appDir = fileURLToPath(new URL('../fixtures/loop-app/', import.meta.url));
const redisUrl = useRedis();
const sb = useSwitchboard({ appDir, redisUrl });

function delivered(events: readonly StoredWebChatEvent[]): { partType: string; text: string | undefined }[] {
  return events.flatMap(({ event }) => (event.type === 'part' ? [{ partType: event.part.metadata.partType, text: event.part.text }] : []));
}

describe('terminal tools', () => {
  it('the output of a terminal tool is the answer, and the turn ends at once', async () => {
    let calls = 0;
    sb().fake.respondWith(scenarioScript({ term: [() => { calls += 1; return reply(toolCall('finish_a', { text: 'exact' })); }] }));
    await sb().post('term', 'format it #term');
    const events = await sb().settled('term');
    expect(delivered(events)).toEqual([{ partType: 'response', text: 'A: exact' }]);
    expect(calls).toBe(1);
  });

  it('a terminal tool beside regular tools wins, and the regular tools still run', async () => {
    sb().fake.respondWith(scenarioScript({ termmix: [() => reply(toolCall('secret_calc', { x: 2 }), toolCall('finish_a', { text: 'won' }))] }));
    await sb().post('termmix', 'go #termmix');
    const events = await sb().settled('termmix');
    expect(delivered(events).map((p) => p.text)).toEqual(['A: won']);
    const log = await sb().log('termmix');
    expect(log.find((entry) => entry.type === 'specialist_execution')?.data).toMatchObject({
      tool: 'secret_calc',
      scope: 'specialist',
      routing: 'bypass',
      bypassReason: 'inline calculation, latency-sensitive',
    });
  });

  it('a second terminal tool in the same turn gets an error result and does not run', async () => {
    sb().fake.respondWith(scenarioScript({ termtwo: [() => reply(toolCall('finish_a', { text: 'one' }), toolCall('finish_b', { text: 'two' }))] }));
    await sb().post('termtwo', 'go #termtwo');
    const events = await sb().settled('termtwo');
    expect(delivered(events).map((p) => p.text)).toEqual(['A: one']);
    const log = await sb().log('termtwo');
    expect(log.filter((entry) => entry.type === 'tool_call').map((entry) => entry.data['tool'])).toEqual(['finish_a']);
  });

  it('a failing terminal tool lets the turn go on normally', async () => {
    let second: ScenarioCall | undefined;
    sb().fake.respondWith(
      scenarioScript({
        termfail: [
          () => reply(toolCall('broken_terminal', {})),
          (call) => {
            second = call;
            return reply(respond([part('response', 'Formatted by hand.')], 'complete'));
          },
        ],
      }),
    );
    await sb().post('termfail', 'go #termfail');
    const events = await sb().settled('termfail');
    expect(second?.toolResults[0]).toMatchObject({ is_error: true });
    expect(second?.toolResults[0]?.content).toContain('the formatter is broken');
    expect(delivered(events).map((p) => p.text)).toEqual(['Formatted by hand.']);
  });

  it('a terminal tool beside a handoff: the handoff wins', async () => {
    sb().fake.respondWith(
      scenarioScript({
        termpass: [
          () => reply(toolCall('finish_a', { text: 'ignored' }), respond([part('thinking', 'Passing on.')], 'passed', { passTo: 'helper' })),
          () => reply(respond([part('response', 'Helper answer.')], 'complete')),
        ],
      }),
    );
    await sb().post('termpass', 'go #termpass');
    const events = await sb().settled('termpass');
    expect(delivered(events).map((p) => p.text)).toEqual(['Passing on.', 'Helper answer.']);
  });

  it('the system prompt names the terminal tools', async () => {
    let system = '';
    sb().fake.respondWith(scenarioScript({ termprompt: [(call) => { system = call.system; return reply(respond([part('response', 'ok')], 'complete')); }] }));
    await sb().post('termprompt', 'go #termprompt');
    await sb().settled('termprompt');
    expect(system).toContain('- finish_a: Formats the final answer A.');
    expect(system).toContain('- broken_terminal:');
    expect(system).not.toContain('- lookup:');
  });
});
