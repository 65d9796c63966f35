import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import type { ChannelAdaptor, ChannelContext, ChannelModule } from '../channels/channel.ts';
import { loadEnv } from '../src/config/env.ts';
import { wireChannels, withSendLimits } from './channel-wiring.ts';

function module(id: string, create: () => Promise<ChannelAdaptor>): ChannelModule {
  return { id, envVariables: [`${id.toUpperCase()}_TOKEN`], enabled: () => true, create, doctor: () => Promise.resolve([]) };
}

function adaptor(id: string, closed: string[]): ChannelAdaptor {
  return {
    id,
    transport: 'buffered',
    outbound: 'direct',
    routes: [],
    normalise: () => undefined,
    render: () => [],
    sender: { send: () => Promise.resolve({}) },
    approvals: { textReplies: false, destinationFor: () => undefined },
    close: () => { closed.push(id); return Promise.resolve(); },
  };
}

describe('wiring channels', () => {
  it('a channel that cannot start closes the ones made before it and says which, and what to check', async () => {
    const closed: string[] = [];
    const context = { env: loadEnv({ LOG_LEVEL: 'silent' }, { appDir: process.cwd() }), logger: pino({ level: 'silent' }) } as unknown as ChannelContext;
    const wiring = wireChannels({
      modules: [module('first', () => Promise.resolve(adaptor('first', closed))), module('broken', () => Promise.reject(new Error('bad token')))],
      context,
      createOutbound: () => { throw new Error('not reached'); },
      runSingleton: () => ({ stop: () => Promise.resolve() }),
    });
    await expect(wiring).rejects.toThrow('The broken channel could not start: bad token (check BROKEN_TOKEN).');
    expect(closed).toEqual(['first']);
  });
});

describe('send limits from switchboard.yaml', () => {
  it('replace a sender\'s own limits where set, and keep the rest', async () => {
    const sender = { send: () => Promise.resolve({ providerMessageId: 'x' }), rateLimit: { max: 50, durationMs: 1000 }, destinationRateLimit: { max: 3, durationMs: 3000 } };
    expect(withSendLimits(sender, undefined, 'slack')).toBe(sender);
    const limited = withSendLimits(sender, { perConversation: { max: 5, perSeconds: 2.5 }, concurrency: 16 }, 'slack');
    expect(limited).toMatchObject({ rateLimit: { max: 50, durationMs: 1000 }, destinationRateLimit: { max: 5, durationMs: 2500 }, concurrency: 16 });
    expect(await limited.send({ channel: 'slack', destination: { channel: 'slack', address: 'C1' }, idempotencyKey: 'k', payload: {} })).toEqual({ providerMessageId: 'x' });
  });

  it('replace the limits of the methods named, keep the others, and refuse a method the channel does not limit', () => {
    const methodRateLimits = { 'chat.postMessage': { max: 300, durationMs: 60_000 }, 'chat.update': { max: 50, durationMs: 60_000 } };
    const sender = { send: () => Promise.resolve({}), methodRateLimits, methodOf: () => 'chat.update' };
    const raised = withSendLimits(sender, { perMethod: { 'chat.postMessage': { max: 1200, perSeconds: 60 } } }, 'slack');
    expect(raised.methodRateLimits).toEqual({ 'chat.postMessage': { max: 1200, durationMs: 60_000 }, 'chat.update': { max: 50, durationMs: 60_000 } });
    expect(raised.methodOf?.({ channel: 'slack', destination: { channel: 'slack', address: 'C1' }, idempotencyKey: 'k', payload: {} })).toBe('chat.update');
    expect(() => withSendLimits(sender, { perMethod: { 'chat.delete': { max: 1, perSeconds: 1 } } }, 'slack')).toThrow(
      'switchboard.yaml channels.slack.sendLimits.perMethod names "chat.delete", which the slack channel does not limit: its methods are chat.postMessage, chat.update.',
    );
    expect(() => withSendLimits({ send: sender.send }, { perMethod: { 'messages': { max: 1, perSeconds: 1 } } }, 'sms')).toThrow('it has no per-method limits');
  });
});
