import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { useRedis } from '../support/redis.ts';
import { part, reply, respond, scenarioScript, toolCall, type ScenarioCall } from '../support/scenario-model.ts';
import { useSwitchboard } from '../support/switchboard-harness.ts';

const appDir = fileURLToPath(new URL('../fixtures/loop-app/', import.meta.url));
const redisUrl = useRedis();
const sb = useSwitchboard({ appDir, redisUrl, approvalTtlMs: 1500 });

describe('an approval nobody answers', () => {
  it('expires by its delayed job, the model gets ToolDenied, and a late answer changes nothing', async () => {
    const seen: ScenarioCall[] = [];
    sb().fake.respondWith(
      scenarioScript({
        late: [
          () => reply(respond([part('ack', 'Asking for approval.')], 'awaiting'), toolCall('pay_invoice', { invoice: 'INV-9', amount: 500 })),
          (call) => {
            seen.push(call);
            return reply(respond([part('response', `told: ${call.toolResults.at(-1)?.content ?? ''}`)], 'complete'));
          },
        ],
      }),
    );
    await sb().post('apr-late', 'pay INV-9 #late');
    const events = await sb().settled('apr-late', 1, 30_000);
    expect(seen[0]?.toolResults.at(-1)).toMatchObject({ is_error: true });
    expect(seen[0]?.toolResults.at(-1)?.content).toMatch(/ToolDenied: the approval for "pay_invoice" expired/);
    expect(events.some(({ event }) => event.type === 'approval' && event.status === 'expired')).toBe(true);
    const request = events.flatMap(({ event }) => (event.type === 'part' && event.part.metadata.partType === 'approval-request' ? [event.part.data as { approvalId: string }] : []))[0];
    const late = await sb().decide(request?.approvalId ?? '', 'granted', { conversationId: 'apr-late' });
    expect([409, 410]).toContain(late.status);
    expect(JSON.stringify(late.body)).toMatch(/expired/i);
    const log = await sb().log('apr-late');
    expect(log.some((entry) => entry.type === 'tool_call' && entry.data['tool'] === 'pay_invoice' && entry.data['outcome'] === 'ok')).toBe(false);
  }, 60_000);
});
