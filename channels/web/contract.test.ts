import { runChannelContract } from '../kit/contract/channel-contract.ts';
import { useContractAdaptor } from '../kit/contract/contract-context.ts';
import { useKeyPrefix, useRedis } from '../../test/support/redis.ts';
import { webChannel } from './index.ts';

const redisUrl = useRedis();
const prefix = useKeyPrefix(redisUrl);
const web = useContractAdaptor({ redisUrl, prefix, create: (context) => webChannel.create(context) });
const destination = { channel: 'web', address: 'conv-contract-dest' };

runChannelContract('web', {
  adaptor: () => web.adaptor(),
  enqueue: (injection) => web.context().enqueue(injection),
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
    await web.adaptor().sender.send(delivery);
  },
  delivered: () => web.context().redis.xlen(`${prefix()}:web:${destination.address}`),
});
