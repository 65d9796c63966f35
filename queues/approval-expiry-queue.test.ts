import { Queue } from 'bullmq';
import { describe, expect, it, vi } from 'vitest';
import { useKeyPrefix, useRedis } from '../test/support/redis.ts';
import { APPROVAL_EXPIRY_QUEUE_NAME, approvalExpiryJobId, createApprovalExpiry } from './approval-expiry-queue.ts';
import { redisOptionsOf, sleep, useTestResources } from './queue-test-kit.ts';

const redisUrl = useRedis();
const prefix = useKeyPrefix(redisUrl);
const resources = useTestResources(redisUrl);

describe('approval expiry queue', () => {
  it('uses apr-exp-<id> for base64url ids and a hash otherwise', () => {
    expect(approvalExpiryJobId('Ab-_09xyzAb-_09xyzAb-_')).toBe('apr-exp-Ab-_09xyzAb-_09xyzAb-_');
    expect(approvalExpiryJobId('a:b')).toMatch(/^apr-exp-[0-9a-f]{64}$/);
  });

  it('runs onExpire once, not before the due time', async () => {
    const calls: { id: string; at: number }[] = [];
    const expiry = resources.track(
      createApprovalExpiry({
        connection: redisOptionsOf(redisUrl()),
        prefix: prefix(),
        onExpire: (id) => {
          calls.push({ id, at: Date.now() });
          return Promise.resolve();
        },
      }),
    );
    expiry.startWorker();
    const scheduledAt = Date.now();
    await expiry.schedule('AAAAAAAAAAAAAAAAAAAAAA', new Date(scheduledAt + 200));
    await expiry.schedule('AAAAAAAAAAAAAAAAAAAAAA', new Date(scheduledAt + 200));
    await vi.waitFor(
      () => {
        expect(calls).toHaveLength(1);
      },
      { timeout: 10_000, interval: 20 },
    );
    await sleep(400);
    expect(calls).toHaveLength(1);
    expect(calls[0]?.id).toBe('AAAAAAAAAAAAAAAAAAAAAA');
    expect((calls[0]?.at ?? 0) - scheduledAt).toBeGreaterThanOrEqual(195);
  });

  it('never runs a cancelled expiry', async () => {
    const onExpire = vi.fn(() => Promise.resolve());
    const expiry = resources.track(createApprovalExpiry({ connection: resources.redis('worker'), prefix: prefix(), onExpire }));
    expiry.startWorker();
    await expiry.schedule('BBBBBBBBBBBBBBBBBBBBBB', new Date(Date.now() + 200));
    const inspector = resources.track(new Queue(APPROVAL_EXPIRY_QUEUE_NAME, { connection: resources.redis('producer'), prefix: prefix() }));
    expect(await inspector.getJobState(approvalExpiryJobId('BBBBBBBBBBBBBBBBBBBBBB'))).toBe('delayed');
    await expiry.cancel('BBBBBBBBBBBBBBBBBBBBBB');
    await expiry.cancel('BBBBBBBBBBBBBBBBBBBBBB');
    expect(await inspector.getJobState(approvalExpiryJobId('BBBBBBBBBBBBBBBBBBBBBB'))).toBe('unknown');
    await sleep(700);
    expect(onExpire).not.toHaveBeenCalled();
  });

  it('refuses to schedule after close', async () => {
    const expiry = createApprovalExpiry({ connection: redisOptionsOf(redisUrl()), prefix: prefix(), onExpire: () => Promise.resolve() });
    await expiry.close();
    await expect(expiry.schedule('CCCCCCCCCCCCCCCCCCCCCC', new Date())).rejects.toMatchObject({ code: 'queue.closed' });
  });
});
