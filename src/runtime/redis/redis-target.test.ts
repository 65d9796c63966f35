import { describe, expect, it } from 'vitest';
import { deploymentPrefix, hasHashTag, isClusterUrl, parseRedisTarget, redisUrlParts } from './redis-target.ts';

describe('parseRedisTarget', () => {
  it('reads one server with its credentials, database and TLS', () => {
    expect(parseRedisTarget('rediss://app:p%40ss@redis.example.com:6380/2')).toEqual({
      cluster: false,
      nodes: [{ host: 'redis.example.com', port: 6380 }],
      settings: { username: 'app', password: 'p@ss', db: 2, tls: {} },
    });
    expect(parseRedisTarget('redis://localhost')).toEqual({ cluster: false, nodes: [{ host: 'localhost', port: 6379 }], settings: {} });
  });

  it('reads the seed nodes of a cluster, with the first URL settings for all and no database', () => {
    expect(parseRedisTarget('redis://:pw@10.0.0.1:7000/0, redis://10.0.0.2:7001,redis://[::1]')).toEqual({
      cluster: true,
      nodes: [{ host: '10.0.0.1', port: 7000 }, { host: '10.0.0.2', port: 7001 }, { host: '::1', port: 6379 }],
      settings: { password: 'pw' },
    });
  });

  it('splits on commas and ignores blanks', () => {
    expect(redisUrlParts(' redis://a:1 ,redis://b:2,')).toEqual(['redis://a:1', 'redis://b:2']);
    expect(isClusterUrl('redis://a:1')).toBe(false);
    expect(isClusterUrl('redis://a:1,redis://b:2')).toBe(true);
  });
});

describe('deploymentPrefix', () => {
  it('wraps the prefix in a hash tag on a cluster only', () => {
    expect(deploymentPrefix('redis://a:1')).toBe('sb');
    expect(deploymentPrefix('redis://a:1', 'acme')).toBe('acme');
    expect(deploymentPrefix('redis://a:1,redis://b:2')).toBe('{sb}');
    expect(deploymentPrefix('redis://a:1,redis://b:2', 'acme')).toBe('{acme}');
  });

  it('keeps a prefix that already has a non-empty hash tag', () => {
    expect(deploymentPrefix('redis://a:1,redis://b:2', 'sb:{tenant-1}')).toBe('sb:{tenant-1}');
    expect(deploymentPrefix('redis://a:1,redis://b:2', 'sb{}')).toBe('{sb{}}');
    expect(hasHashTag('{x}:y')).toBe(true);
    expect(hasHashTag('{}x')).toBe(false);
    expect(hasHashTag('x}{')).toBe(false);
  });
});
