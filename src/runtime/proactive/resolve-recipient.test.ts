import { describe, expect, it } from 'vitest';
import { PEOPLE } from './proactive-test-fixtures.ts';
import { DEFAULT_CHANNEL_PREFERENCE, resolveRecipient } from './resolve-recipient.ts';

const ALL = ['web', 'email', 'sms', 'slack', 'whatsapp'];

describe('resolveRecipient', () => {
  it('prefers sms, whatsapp, email, slack, web by default', () => {
    expect(DEFAULT_CHANNEL_PREFERENCE).toEqual(['sms', 'whatsapp', 'email', 'slack', 'web']);
    const grace = PEOPLE[0];
    expect(resolveRecipient({ personId: 'grace' }, { people: PEOPLE, enabledChannels: ALL })).toEqual({
      ok: true,
      destination: { channel: 'sms', address: '+15550100' },
      person: grace,
    });
  });

  it('skips channels that are not enabled, and turns a web address into its conversation id', () => {
    const pick = (enabledChannels: readonly string[]): unknown =>
      resolveRecipient({ personId: 'grace' }, { people: PEOPLE, enabledChannels });
    expect(pick(['web', 'email'])).toMatchObject({ ok: true, destination: { channel: 'email', address: 'grace@example.com' } });
    expect(pick(['web'])).toMatchObject({ ok: true, destination: { channel: 'web', address: 'grace-chat' } });
  });

  it('follows a given preference, and never uses a channel left out of it', () => {
    const people = PEOPLE;
    expect(resolveRecipient({ personId: 'grace' }, { people, enabledChannels: ALL, preference: ['web', 'sms'] })).toMatchObject({
      destination: { channel: 'web', address: 'grace-chat' },
    });
    expect(resolveRecipient({ personId: 'ada' }, { people, enabledChannels: ALL, preference: ['sms'] })).toEqual({
      ok: false,
      failure: 'unreachable',
      message: 'Ada Lovelace (ada) has no address on any channel tried (sms). Their addresses are on: email.',
    });
  });

  it('reports an unknown person and a person without a reachable address', () => {
    expect(resolveRecipient({ personId: 'alex' }, { people: PEOPLE, enabledChannels: ALL })).toEqual({
      ok: false,
      failure: 'unknown-person',
      message: 'No person has the id "alex". Known people: grace, ada, lin.',
    });
    expect(resolveRecipient({ personId: 'lin' }, { people: PEOPLE, enabledChannels: ['web', 'sms'] })).toEqual({
      ok: false,
      failure: 'unreachable',
      message: 'Lin Chen (lin) has no address on any channel tried (sms, web). Their addresses are on: (none).',
    });
  });

  it('uses an explicit address only on an enabled channel', () => {
    expect(resolveRecipient({ channel: 'whatsapp', address: '+15550123' }, { people: [], enabledChannels: ALL })).toEqual({
      ok: true,
      destination: { channel: 'whatsapp', address: '+15550123' },
    });
    expect(resolveRecipient({ channel: 'sms', address: '+15550123' }, { people: [], enabledChannels: ['web', 'email'] })).toEqual({
      ok: false,
      failure: 'channel-disabled',
      message: 'The channel "sms" of "sms:+15550123" is not enabled. Enabled channels: web, email.',
    });
  });
});
