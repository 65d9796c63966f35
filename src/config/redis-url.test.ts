import { describe, expect, it } from 'vitest';
import { SwitchboardError } from '../protocol/errors.ts';
import { loadEnv } from './env.ts';

const defaults = { appDir: process.cwd() };

function problem(url: string): string {
  try {
    loadEnv({ REDIS_URL: url }, defaults);
  } catch (error) {
    if (error instanceof SwitchboardError) return error.message;
    throw error;
  }
  throw new Error('loadEnv did not throw');
}

describe('REDIS_URL', () => {
  it('takes comma-separated seed nodes of a Redis Cluster, as given', () => {
    const url = 'redis://:pw@10.0.0.1:7000,redis://10.0.0.2:7000, redis://10.0.0.3:7000';
    expect(loadEnv({ REDIS_URL: url }, defaults).redis).toEqual({ mode: 'external', url });
  });

  it('refuses a node that is no redis URL, a bad port or a database other than 0 on a cluster', () => {
    expect(problem('redis://10.0.0.1:7000,10.0.0.2:7000')).toMatch(/REDIS_URL must list redis:\/\/ or rediss:\/\/ URLs/);
    expect(problem('redis://10.0.0.1:7000,redis://10.0.0.2:0')).toMatch(/port outside 1\.\.65535/);
    expect(problem('redis://10.0.0.1:7000/3,redis://10.0.0.2:7000')).toMatch(/database 0 only/);
    expect(problem('redis://10.0.0.1:7000,')).toMatch(/REDIS_URL must list/);
  });

  it('still takes a database on one server', () => {
    expect(loadEnv({ REDIS_URL: 'redis://localhost:6379/3' }, defaults).redis).toEqual({ mode: 'external', url: 'redis://localhost:6379/3' });
  });
});
