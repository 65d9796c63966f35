import { EventEmitter } from 'node:events';
import type { Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import { describe, expect, it, vi } from 'vitest';
import { closeWorker } from './close-worker.ts';

/** A worker that records how it was closed. */
function fakeWorker(): { worker: Worker; close: ReturnType<typeof vi.fn> } {
  const close = vi.fn(() => Promise.resolve());
  return { worker: { close } as unknown as Worker, close };
}

const clientIn = (status: string): Redis => Object.assign(new EventEmitter(), { status }) as unknown as Redis;

describe('closeWorker', () => {
  it.each(['reconnecting', 'close', 'end'])('forces the close when its connection is %s (Redis away)', async (status) => {
    const { worker, close } = fakeWorker();
    await closeWorker(worker, clientIn(status));
    expect(close).toHaveBeenCalledExactlyOnceWith(true);
  });

  it.each(['ready', 'connecting', 'connect', 'wait'])('closes gracefully when its connection is %s', async (status) => {
    const { worker, close } = fakeWorker();
    await closeWorker(worker, clientIn(status));
    expect(close).toHaveBeenCalledExactlyOnceWith(false);
  });

  it('closes gracefully without a connection, and does nothing without a worker', async () => {
    const { worker, close } = fakeWorker();
    await closeWorker(worker, undefined);
    expect(close).toHaveBeenCalledExactlyOnceWith(false);
    await expect(closeWorker(undefined, clientIn('reconnecting'))).resolves.toBeUndefined();
  });

  it('cuts the connections when Redis goes away during a graceful close, which then ends', async () => {
    // A graceful close that waits on Redis until its connections are cut, as BullMQ's does.
    let release: () => void = () => undefined;
    const close = vi.fn(() => new Promise<void>((resolve) => { release = resolve; }));
    const disconnect = vi.fn(() => {
      release();
      return Promise.resolve();
    });
    const worker = { close, disconnect } as unknown as Worker;
    const client = Object.assign(new EventEmitter(), { status: 'ready', disconnect: vi.fn() });
    const closing = closeWorker(worker, client as unknown as Redis);
    expect(close).toHaveBeenCalledExactlyOnceWith(false);
    client.status = 'reconnecting';
    client.emit('close');
    await closing;
    expect(disconnect).toHaveBeenCalledOnce();
    expect(client.disconnect).toHaveBeenCalledOnce();
    expect(client.listenerCount('close')).toBe(0);
  });

  it('leaves the connections alone when the graceful close ends first', async () => {
    const { worker } = fakeWorker();
    const client = Object.assign(new EventEmitter(), { status: 'ready', disconnect: vi.fn() });
    await closeWorker(worker, client as unknown as Redis);
    client.emit('close');
    expect(client.disconnect).not.toHaveBeenCalled();
    expect(client.listenerCount('close')).toBe(0);
  });

  it('passes on a failed close', async () => {
    const worker = { close: () => Promise.reject(new Error('boom')) } as unknown as Worker;
    await expect(closeWorker(worker, clientIn('ready'))).rejects.toThrow('boom');
  });
});
