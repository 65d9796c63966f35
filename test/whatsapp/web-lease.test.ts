/**
 * Two worker processes, one WhatsApp session: each runs the web listener under the real singleton
 * runner against the same Redis, with the fake client. Only the lease holder starts a session; it
 * shows a QR code, the test scans it and the session is kept in Redis; the holder is killed
 * (SIGKILL, no clean-up) and the other process takes the lease and reaches `ready` without a QR code.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { readLeaseHolder } from '../../channels/kit/lease/lease-keys.ts';
import { createLinkStateStore, type LinkState } from '../../channels/whatsapp/web/link-state.ts';
import { REMOTE_SESSION_NAME } from '../../channels/whatsapp/web/web-client.ts';
import { webKeys } from '../../channels/whatsapp/web/web-keys.ts';
import { useRedisClients } from '../support/redis-clients.ts';
import { useKeyPrefix, useRedis } from '../support/redis.ts';
import { waitFor } from '../support/wait-for.ts';

const redisUrl = useRedis();
const prefix = useKeyPrefix(redisUrl);
const connect = useRedisClients(redisUrl);
const SCRIPT = fileURLToPath(new URL('./web-session-process.ts', import.meta.url));

/** A child process and the lines it printed. */
interface SessionChild {
  readonly pid: number;
  readonly lines: string[];
  readonly process: ChildProcess;
  readonly exited: Promise<unknown>;
}

const children: SessionChild[] = [];
afterEach(async () => {
  await Promise.all(
    children.splice(0).map(async (child) => {
      if (child.process.exitCode === null && child.process.signalCode === null) child.process.kill('SIGTERM');
      await child.exited;
    }),
  );
});

async function startChild(): Promise<SessionChild> {
  const child = spawn(process.execPath, [SCRIPT, JSON.stringify({ redisUrl: redisUrl(), prefix: prefix(), leaseTtlMs: 1000 })], { stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: string[] = [];
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => { lines.push(...chunk.toString().split('\n').filter((line) => line !== '')); });
  child.stderr.on('data', (chunk: Buffer) => { stderr += chunk.toString(); });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const started: SessionChild = { pid: child.pid ?? -1, lines, process: child, exited };
  children.push(started);
  await waitFor(() => lines.some((line) => line.startsWith('started')) || child.exitCode !== null, 'the child started', 20_000);
  if (child.exitCode !== null) throw new Error(`the session process exited: ${stderr}`);
  return started;
}

describe('two worker processes, one WhatsApp session', () => {
  it('runs the session once; after the holder is killed the other resumes it from Redis without a QR code', async () => {
    const redis = await connect();
    const links = createLinkStateStore({ redis, prefix: prefix() });
    const leaseKey = `${prefix()}:lease:whatsapp:web-session`;
    const [one, two] = [await startChild(), await startChild()];

    await waitFor(async () => (await links.read())?.status === 'waiting-for-qr', 'a QR code shown', 20_000);
    const holderPid = Number((await readLeaseHolder(redis, leaseKey))?.ownerId.split(':').at(-1));
    const [holder, other] = holderPid === one.pid ? [one, two] : [two, one];
    expect(holder.pid).toBe(holderPid);
    expect(holder.lines).toContain('qr');
    expect(other.lines.filter((line) => line.startsWith('client'))).toEqual([]); // only one session runs

    await redis.set(`${prefix()}:test:scan`, '1');
    await waitFor(async () => (await links.read())?.status === 'ready', 'the first holder ready', 20_000);
    const first = await links.read();
    expect(first?.number).toBe('+447700900999');
    expect(await redis.exists(webKeys(prefix()).session(REMOTE_SESSION_NAME))).toBe(1);
    expect(other.lines.filter((line) => line.startsWith('client'))).toEqual([]);

    holder.process.kill('SIGKILL');
    await holder.exited;
    let resumed: LinkState | undefined;
    await waitFor(async () => {
      resumed = await links.read();
      return resumed?.status === 'ready' && resumed.token > (first?.token ?? Infinity);
    }, 'the other process ready under a newer token', 20_000);

    expect(resumed?.number).toBe('+447700900999');
    const successorStates = (await links.history()).filter((state) => state.token === resumed?.token).map((state) => state.status).reverse();
    expect(successorStates).toEqual(['starting', 'authenticated', 'ready']);
    expect(other.lines).not.toContain('qr');
    expect(other.lines).toContain('ready 447700900999');
    expect(Number((await readLeaseHolder(redis, leaseKey))?.ownerId.split(':').at(-1))).toBe(other.pid);
  });
});
