/**
 * A cluster client made by `createRedisClient` sends the commands of one tick to each node in one
 * socket write (see `write-coalescing.ts`), on node connections opened after it was made too.
 */
import type { Cluster, Redis } from 'ioredis';
import { afterEach, expect, it } from 'vitest';
import { createRedisClient } from '../../src/runtime/redis/redis-client.ts';
import { describeOnCluster, uniqueClusterPrefix } from '../support/redis-cluster.ts';
import { countSocketWrites } from '../support/socket-writes.ts';

describeOnCluster('coalesced writes on a cluster', (cluster) => {
  const opened: Redis[] = [];
  afterEach(() => {
    for (const client of opened.splice(0)) client.disconnect();
  });

  it('writes once per node for a tick of commands spread over three slots', async () => {
    const redis = createRedisClient(cluster().url);
    opened.push(redis);
    const tags = [uniqueClusterPrefix('a'), uniqueClusterPrefix('b'), uniqueClusterPrefix('c')];
    // One command per slot first, so every node the test uses is connected before counting.
    await Promise.all(tags.map((tag) => redis.set(`${tag}:warm`, '1')));
    const perNode = (redis as unknown as Cluster).nodes('master').map((node) => countSocketWrites(node));
    const replies: string[] = await Promise.all(tags.flatMap((tag) => Array.from({ length: 10 }, (_, n) => redis.set(`${tag}:k${n}`, String(n)))));
    expect(replies).toEqual(Array.from({ length: 30 }, () => 'OK'));
    // Every node wrote to at most once, and only in one vectored write; the three slots' nodes did write.
    for (const counts of perNode) expect([{ single: 0, vectored: 0 }, { single: 0, vectored: 1 }]).toContainEqual(counts);
    expect(perNode.reduce((sum, counts) => sum + counts.vectored, 0)).toBeGreaterThanOrEqual(1);
    expect(await redis.get(`${tags[2] ?? ''}:k9`)).toBe('9');
  });
});
