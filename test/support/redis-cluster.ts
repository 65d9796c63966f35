/**
 * A real local Redis Cluster for tests: three `redis-server --cluster-enabled yes` processes on
 * free ports of 127.0.0.1, joined with `redis-cli --cluster create` (three masters, no replicas),
 * each keeping nothing on disk. Started before a file's tests and stopped (folder removed) after.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe } from 'vitest';
import { OutputTail } from '../../src/runtime/redis/output-tail.ts';
import { pingRedis } from '../../src/runtime/redis/ping-redis.ts';
import { scanKeys } from '../../src/runtime/redis/redis-client.ts';
import { uniquePrefix } from './redis.ts';
import { waitFor } from './wait-for.ts';

const HOST = '127.0.0.1';

/** Nodes of the test cluster; three is the fewest masters `redis-cli --cluster create` accepts. */
const NODE_COUNT = 3;

/** The binaries, found on `PATH` (Debian's `redis-server` package brings both). */
const SERVER_BINARY = 'redis-server';
const CLI_BINARY = 'redis-cli';

/** Redis Cluster talks between nodes on the client port + 10000: both must be free. */
const BUS_PORT_OFFSET = 10_000;

/** A running local cluster. */
export interface LocalRedisCluster {
  /** The seed nodes as `REDIS_URL` takes them: `redis://127.0.0.1:<p1>,redis://127.0.0.1:<p2>,…`. */
  readonly url: string;
  /** The nodes' client ports. */
  readonly ports: readonly number[];
  /** Stops every node (SIGTERM, then SIGKILL after 5 s) and removes the data folder. Safe to call twice. */
  stop(): Promise<void>;
}

/**
 * Why this machine cannot run the cluster tests, or `undefined` when it can: `redis-server` or
 * `redis-cli` missing from `PATH`, or a Redis older than 5 (no `redis-cli --cluster`).
 */
export function clusterUnavailableReason(): string | undefined {
  for (const binary of [SERVER_BINARY, CLI_BINARY]) {
    const probe = spawnSync(binary, ['--version'], { encoding: 'utf8' });
    if (probe.error !== undefined) return `${binary} is not on PATH (${probe.error.message}); install redis-server (Debian: apt-get install redis-server)`;
    const version = /v=(\d+)|redis-cli (\d+)/.exec(probe.stdout);
    const major = Number(version?.[1] ?? version?.[2] ?? '0');
    if (major < 5) return `${binary} is older than Redis 5 (${probe.stdout.trim()}): no redis-cli --cluster`;
  }
  return undefined;
}

/** Whether `port` can be bound on 127.0.0.1 right now. */
function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.unref();
    server.once('error', () => { resolve(false); });
    server.listen({ port, host: HOST, exclusive: true }, () => {
      server.close(() => { resolve(true); });
    });
  });
}

/** `count` distinct ports whose cluster bus ports (+10000) are free too. */
async function choosePorts(count: number): Promise<number[]> {
  const ports: number[] = [];
  for (let tries = 0; ports.length < count; tries += 1) {
    if (tries > 200) throw new Error('no free port pairs (p, p+10000) for the test cluster');
    const port = 20_000 + Math.floor(Math.random() * 30_000);
    if (ports.includes(port) || ports.includes(port + BUS_PORT_OFFSET) || ports.includes(port - BUS_PORT_OFFSET)) continue;
    if ((await portIsFree(port)) && (await portIsFree(port + BUS_PORT_OFFSET))) ports.push(port);
  }
  return ports;
}

interface NodeProcess {
  readonly port: number;
  readonly child: ChildProcess;
  readonly tail: OutputTail;
  readonly exited: Promise<void>;
}

function startNode(port: number, dir: string): NodeProcess {
  const child = spawn(SERVER_BINARY, [
    '--port', String(port),
    '--bind', HOST,
    '--dir', dir,
    '--cluster-enabled', 'yes',
    '--cluster-config-file', join(dir, `nodes-${port}.conf`),
    '--cluster-node-timeout', '5000',
    '--save', '',
    '--appendonly', 'no',
    '--maxmemory-policy', 'noeviction',
  ], { stdio: ['ignore', 'pipe', 'pipe'] });
  const tail = new OutputTail();
  child.stdout.on('data', (chunk: Buffer) => tail.push(chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => tail.push(chunk.toString('utf8')));
  const exited = new Promise<void>((resolve) => { child.once('exit', () => { resolve(); }); });
  child.on('error', () => undefined);
  return { port, child, tail, exited };
}

async function stopNode(node: NodeProcess): Promise<void> {
  if (node.child.exitCode !== null || node.child.signalCode !== null) return;
  node.child.kill('SIGTERM');
  const timer = setTimeout(() => node.child.kill('SIGKILL'), 5_000);
  await node.exited;
  clearTimeout(timer);
}

/** Runs `redis-cli` with `args`; rejects with its output when it fails. */
function redisCli(args: readonly string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(CLI_BINARY, [...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => { output += chunk.toString('utf8'); });
    child.stderr.on('data', (chunk: Buffer) => { output += chunk.toString('utf8'); });
    child.once('error', reject);
    child.once('exit', (code) => {
      if (code === 0) resolve(output);
      else reject(new Error(`redis-cli ${args.join(' ')} exited with ${String(code)}:\n${output}`));
    });
  });
}

/** Whether every node reports `cluster_state:ok`. */
async function clusterStateOk(ports: readonly number[]): Promise<boolean> {
  const states = await Promise.all(ports.map(async (port) => {
    const redis = new Redis({ host: HOST, port, lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    redis.on('error', () => undefined);
    try {
      await redis.connect();
      return (await redis.cluster('INFO')).includes('cluster_state:ok');
    } catch {
      return false;
    } finally {
      redis.disconnect();
    }
  }));
  return states.every(Boolean);
}

/**
 * Starts three cluster-enabled nodes in a fresh temporary folder, creates the cluster over them and
 * waits until every node reports `cluster_state:ok`. Stops everything again if any step fails.
 *
 * @throws Error when a node does not answer within 10 s, `redis-cli --cluster create` fails, or
 *   the cluster is not ok within 20 s (the message quotes the nodes' last output lines).
 */
export async function startRedisCluster(): Promise<LocalRedisCluster> {
  const dir = await mkdtemp(join(tmpdir(), 'switchboard-test-cluster-'));
  const nodes: NodeProcess[] = [];
  const killAll = (): void => { for (const node of nodes) node.child.kill('SIGKILL'); };
  process.on('exit', killAll);
  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      await Promise.all(nodes.map(stopNode));
      process.off('exit', killAll);
      await rm(dir, { recursive: true, force: true });
    })();
    return stopping;
  };
  try {
    const ports = await choosePorts(NODE_COUNT);
    nodes.push(...ports.map((port) => startNode(port, dir)));
    const output = (): string => nodes.map((node) => `node ${node.port}:\n  ${node.tail.lines().join('\n  ')}`).join('\n');
    await waitFor(async () => {
      if (nodes.some((node) => node.child.exitCode !== null)) throw new Error(`a cluster node exited:\n${output()}`);
      return (await Promise.all(ports.map((port) => pingRedis(port, HOST)))).every(Boolean);
    }, 'the cluster nodes answer PING', 10_000);
    await redisCli(['--cluster', 'create', ...ports.map((port) => `${HOST}:${port}`), '--cluster-replicas', '0', '--cluster-yes']);
    await waitFor(() => clusterStateOk(ports), 'every node reports cluster_state:ok', 20_000, 50);
    return { url: ports.map((port) => `redis://${HOST}:${port}`).join(','), ports, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/**
 * Gives a test file a local Redis Cluster, started before its tests and stopped after them. Call
 * it at the top level of a file (or a `describe`) that runs only when
 * {@link clusterUnavailableReason} is `undefined`.
 *
 * @returns A getter for the cluster; it throws before `beforeAll` has run.
 *
 * @example
 * const skip = clusterUnavailableReason();
 * describe.skipIf(skip !== undefined)('on a cluster', () => {
 *   const cluster = useRedisCluster();
 *   it('works', async () => { const redis = createRedisClient(cluster().url); … });
 * });
 */
export function useRedisCluster(): () => LocalRedisCluster {
  let cluster: LocalRedisCluster | undefined;
  beforeAll(async () => {
    cluster = await startRedisCluster();
  });
  afterAll(async () => {
    await cluster?.stop();
    cluster = undefined;
  });
  return () => {
    if (cluster === undefined) throw new Error('useRedisCluster(): the cluster is only available inside tests and hooks that run after beforeAll');
    return cluster;
  };
}

/**
 * A `describe` block whose tests run against a local cluster ({@link useRedisCluster}); skipped,
 * with the reason printed, when {@link clusterUnavailableReason} says this machine cannot run one.
 *
 * @example
 * describeOnCluster('session store', (cluster) => {
 *   it('accepts', async () => { const redis = createRedisClient(cluster().url); … });
 * });
 */
export function describeOnCluster(name: string, body: (cluster: () => LocalRedisCluster) => void): void {
  const reason = clusterUnavailableReason();
  if (reason !== undefined) console.warn(`Redis Cluster tests skipped (${name}): ${reason}`);
  describe.skipIf(reason !== undefined)(name, () => {
    body(useRedisCluster());
  });
}

/** A fresh {@link uniquePrefix} wrapped in a hash tag, as `deploymentPrefix` makes it on a cluster: `{t-<label>-<hex>}`. */
export function uniqueClusterPrefix(label = 'test'): string {
  return `{${uniquePrefix(label)}}`;
}

/**
 * Every key under `prefix:` on every master of the cluster, with the hash slot of each (asked of
 * the cluster: `CLUSTER KEYSLOT`).
 */
export async function keysWithSlots(redis: Redis, prefix: string): Promise<{ key: string; slot: number }[]> {
  const escaped = prefix.replace(/[*?[\]\\]/g, '\\$&');
  const found: { key: string; slot: number }[] = [];
  for await (const keys of scanKeys(redis, `${escaped}:*`)) {
    for (const key of keys) found.push({ key, slot: await redis.cluster('KEYSLOT', key) });
  }
  return found;
}
