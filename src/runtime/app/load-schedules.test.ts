import { afterAll, describe, expect, it } from 'vitest';
import { createToolRegistry } from '../../protocol/tools/tool-registry.ts';
import { appProblems, removeApps, VALID_APP, writeApp } from './app-test-fixtures.ts';
import { loadApp } from './load-app.ts';

afterAll(removeApps);

function loadWithSchedules(schedules: unknown): ReturnType<typeof loadApp> {
  const switchboard = { ...(VALID_APP['switchboard.yaml'] as Record<string, unknown>), schedules };
  return loadApp({ dir: writeApp({ ...VALID_APP, 'switchboard.yaml': switchboard }), defaultModel: 'm', registry: createToolRegistry() });
}

const morning = { id: 'morning', cron: '0 9 * * 1-5', actor: 'helper', prompt: 'Say good morning.', to: 'sam' };

describe('schedules in switchboard.yaml', () => {
  it('resolves people and addresses and fills defaults', async () => {
    const app = await loadWithSchedules([
      morning,
      { id: 'tick.fast', cron: '*/10 * * * * *', actor: 'writer', prompt: 'Ping.', to: 'sms:+15550100', timezone: 'Europe/London', enabled: false },
      { id: 'mail', cron: '0 8 1 * *', actor: 'helper', prompt: 'Monthly.', to: 'email:Ops@Example.com' },
      { id: 'web-1', cron: '30 17 * * FRI', actor: 'helper', prompt: 'Weekend!', to: 'web:conv_42' },
    ]);
    expect(app.schedules).toEqual([
      { ...morning, to: { personId: 'sam' }, timezone: 'UTC', enabled: true },
      { id: 'tick.fast', cron: '*/10 * * * * *', actor: 'writer', prompt: 'Ping.', to: { channel: 'sms', address: '+15550100' }, timezone: 'Europe/London', enabled: false },
      { id: 'mail', cron: '0 8 1 * *', actor: 'helper', prompt: 'Monthly.', to: { channel: 'email', address: 'ops@example.com' }, timezone: 'UTC', enabled: true },
      { id: 'web-1', cron: '30 17 * * FRI', actor: 'helper', prompt: 'Weekend!', to: { channel: 'web', address: 'conv_42' }, timezone: 'UTC', enabled: true },
    ]);
  });

  it('is an empty list when switchboard.yaml has none', async () => {
    const app = await loadApp({ dir: writeApp(VALID_APP), defaultModel: 'm', registry: createToolRegistry() });
    expect(app.schedules).toEqual([]);
  });

  it('reports a bad cron, an unknown actor, an unknown person and a duplicate id', async () => {
    const problems = await appProblems(
      loadWithSchedules([
        { ...morning, cron: '61 * * * *' },
        { ...morning, actor: 'ghost' },
        { ...morning, id: 'evening', to: 'alex' },
        { ...morning, id: 'night', cron: '* * * *' },
      ]),
    );
    expect(problems).toEqual([
      { file: 'switchboard.yaml', field: 'schedules[0].cron', message: '"61 * * * *" is not a valid cron pattern: Constraint error, got value 61 expected range 0-59' },
      { file: 'switchboard.yaml', field: 'schedules[1].id', message: '"morning" is already the id of schedules[0]' },
      { file: 'switchboard.yaml', field: 'schedules[1].actor', message: '"ghost" is not an actor of this app. Actors: helper, writer' },
      { file: 'switchboard.yaml', field: 'schedules[2].to', message: '"alex" is not the id of a person in people' },
      {
        file: 'switchboard.yaml',
        field: 'schedules[3].cron',
        message: '"* * * *" has 4 fields; a cron pattern has 5 (minute hour day-of-month month day-of-week) or 6 (second minute hour day-of-month month day-of-week)',
      },
    ]);
  });

  it('reports a bad time zone and malformed addresses', async () => {
    const problems = await appProblems(
      loadWithSchedules([
        { ...morning, timezone: 'Mars/Olympus' },
        { ...morning, id: 'b', to: 'sms:07700 900123' },
        { ...morning, id: 'c', to: 'fax:123' },
        { ...morning, id: 'd', to: 'web:not a conversation' },
        { ...morning, id: 'e', to: 'Sam' },
      ]),
    );
    expect(problems).toEqual([
      { file: 'switchboard.yaml', field: 'schedules[0].timezone', message: '"Mars/Olympus" is not an IANA time zone such as Europe/London or UTC' },
      { file: 'switchboard.yaml', field: 'schedules[1].to', message: '"07700 900123" is not an E.164 phone number such as +447700900123' },
      { file: 'switchboard.yaml', field: 'schedules[2].to', message: '"fax:123" must be a person id or "<channel>:<address>" with channel one of sms, whatsapp, email, slack, web' },
      { file: 'switchboard.yaml', field: 'schedules[3].to', message: '"not a conversation" is not a web conversation id of 1 to 64 letters, digits, "_" or "-"' },
      { file: 'switchboard.yaml', field: 'schedules[4].to', message: '"Sam" must be a person id or "<channel>:<address>" with channel one of sms, whatsapp, email, slack, web' },
    ]);
  });

  it('names each field that breaks the schema', async () => {
    const problems = await appProblems(
      loadWithSchedules([{ id: 'Bad Id', cron: '', actor: 'helper', prompt: '  ', enabled: 'yes', every: 5 }]),
    );
    expect(problems).toEqual(
      expect.arrayContaining([
        { file: 'switchboard.yaml', field: 'schedules[0].to', message: 'is required' },
        { file: 'switchboard.yaml', field: 'schedules[0].id', message: 'must be a schedule id of lower-case letters, digits, ".", "_" or "-"' },
        { file: 'switchboard.yaml', field: 'schedules[0].cron', message: 'must be a cron pattern such as "0 9 * * 1-5"' },
        { file: 'switchboard.yaml', field: 'schedules[0].prompt', message: 'must be the prompt, a non-empty text' },
        { file: 'switchboard.yaml', field: 'schedules[0].enabled', message: 'must be boolean' },
        { file: 'switchboard.yaml', field: 'schedules[0].every', message: expect.stringContaining('is not a known key; allowed: id, cron, actor, prompt, to, timezone, enabled') as string },
      ]),
    );
  });
});
