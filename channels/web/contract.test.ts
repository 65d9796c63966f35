import { afterEach, beforeEach } from 'vitest';
import { runChannelContract } from '../kit/contract/channel-contract.ts';
import { createContractContext, peopleOnlyApp, type ContractContext } from '../kit/contract/contract-context.ts';
import type { ChannelAdaptor } from '../channel.ts';
import { useKeyPrefix, useRedis } from '../../test/support/redis.ts';
import { webChannel } from './index.ts';

const redisUrl = useRedis();
const prefix = useKeyPrefix(redisUrl);
let opened: ContractContext | undefined;
let adaptor: ChannelAdaptor | undefined;

beforeEach(async () => {
  opened = createContractContext({ redisUrl: redisUrl(), prefix: prefix(), app: peopleOnlyApp([]) });
  adaptor = await webChannel.create(opened.context);
});

afterEach(async () => {
  await adaptor?.close();
  await opened?.close();
});

const destination = { channel: 'web', address: 'conv-contract-dest' };

runChannelContract('web', {
  adaptor: () => {
    if (adaptor === undefined) throw new Error('no adaptor yet');
    return adaptor;
  },
  enqueue: (injection) => {
    if (opened === undefined) throw new Error('no context yet');
    return opened.context.enqueue(injection);
  },
  inbound: {
    event: () => ({
      conversationId: 'conv-contract',
      text: 'Find me a flight to Corfu',
      clientMessageId: 'm-1',
      sender: { id: 'web:b_contract', verified: true },
      tenantId: 'default',
      receivedAt: '2030-01-01T10:00:00.000Z',
    }),
    expect: { id: 'web:conv-contract:m-1', conversationKey: 'conv-contract', text: 'Find me a flight to Corfu' },
  },
  malformed: { conversationId: 'has spaces!', text: 'x' },
  destination,
  approver: { channel: 'web', address: `web:${destination.address}` },
  textOf: (message) => JSON.stringify(message),
  send: async (delivery) => {
    await adaptor?.sender.send(delivery);
  },
  delivered: async () => {
    if (opened === undefined) return 0;
    return opened.context.redis.xlen(`${prefix()}:web:${destination.address}`);
  },
});
