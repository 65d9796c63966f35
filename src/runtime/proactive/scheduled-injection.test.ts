import { describe, expect, it, vi } from 'vitest';
import type { ScheduleConfig } from '../app/app-types.ts';
import type { Injection } from '../injection.ts';
import { PEOPLE } from './proactive-test-fixtures.ts';
import { createScheduleTicks } from './schedule-ticks.ts';
import { scheduledActorOf, scheduledInjection } from './scheduled-injection.ts';

const FIRED_AT = new Date('2026-03-02T09:00:00.000Z');

const morning: ScheduleConfig = {
  id: 'morning',
  cron: '0 9 * * 1-5',
  actor: 'concierge',
  prompt: 'Give Grace her morning briefing.',
  to: { personId: 'grace' },
  timezone: 'UTC',
  enabled: true,
};

describe('scheduledInjection', () => {
  it('builds a message for the schedule actor, answered at the destination', () => {
    const destination = { channel: 'sms', address: '+15550100' };
    const injection = scheduledInjection(morning, FIRED_AT, destination, 'tenant-1');
    expect(injection).toEqual({
      id: 'schedule:morning:1772442000000',
      kind: 'message',
      channel: 'sms',
      tenantId: 'tenant-1',
      conversationKey: '+15550100',
      sender: { id: 'schedule:morning', verified: true, displayName: 'schedule morning' },
      text: 'Give Grace her morning briefing.',
      content: { source: 'schedule', trusted: true },
      data: { origin: 'schedule', scheduleId: 'morning', actor: 'concierge' },
      replyTo: destination,
      receivedAt: '2026-03-02T09:00:00.000Z',
    });
    expect(scheduledActorOf(injection)).toBe('concierge');
  });

  it('runs on behalf of the recipient when it is a person, so tools see their personId', () => {
    const injection = scheduledInjection(morning, FIRED_AT, { channel: 'sms', address: '+15550100' }, 't', { id: 'grace' });
    expect(injection.sender).toEqual({ id: 'schedule:morning', verified: true, displayName: 'schedule morning', personId: 'grace' });
  });

  it('uses the conversation id as the key of a web conversation', () => {
    const injection = scheduledInjection(morning, FIRED_AT, { channel: 'web', address: 'grace-chat' }, 't');
    expect(injection.conversationKey).toBe('grace-chat');
  });

  it('finds no schedule actor in other injections', () => {
    expect(scheduledActorOf({})).toBeUndefined();
    expect(scheduledActorOf({ data: { origin: 'web', actor: 'x' } })).toBeUndefined();
  });
});

describe('createScheduleTicks', () => {
  it('enqueues the injection of a tick at the resolved destination, the same on a retry', async () => {
    const enqueued: Injection[] = [];
    const tick = createScheduleTicks({
      people: PEOPLE,
      enabledChannels: ['web', 'email'],
      tenantId: 't',
      enqueue: (injection) => {
        enqueued.push(injection);
        return Promise.resolve();
      },
    });
    await tick(morning, FIRED_AT);
    await tick(morning, FIRED_AT);
    expect(enqueued).toHaveLength(2);
    expect(enqueued[0]).toEqual(enqueued[1]);
    expect(enqueued[0]?.replyTo).toEqual({ channel: 'email', address: 'grace@example.com' });
    expect(enqueued[0]?.sender.personId).toBe('grace');
  });

  it('names no person for a schedule sent to an explicit address', async () => {
    const enqueued: Injection[] = [];
    const tick = createScheduleTicks({ people: PEOPLE, enabledChannels: ['sms'], tenantId: 't', enqueue: (injection) => Promise.resolve(enqueued.push(injection)) });
    await tick({ ...morning, to: { channel: 'sms', address: '+15550142' } }, FIRED_AT);
    expect(enqueued[0]?.sender).toEqual({ id: 'schedule:morning', verified: true, displayName: 'schedule morning' });
  });

  it('fails with schedule.invalid when the recipient cannot be reached', async () => {
    const enqueue = vi.fn(() => Promise.resolve());
    const tick = createScheduleTicks({ people: PEOPLE, enabledChannels: ['web'], tenantId: 't', enqueue });
    await expect(tick({ ...morning, to: { personId: 'ada' } }, FIRED_AT)).rejects.toMatchObject({
      code: 'schedule.invalid',
      message: 'Schedule "morning" cannot fire: Ada Lovelace (ada) has no address on any channel tried (web). Their addresses are on: email.',
    });
    expect(enqueue).not.toHaveBeenCalled();
  });
});
