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

  it('ends its connection when Redis goes away during a graceful close, so the close ends', async () => {
    // A graceful close that waits on its connection until the connection ends, as BullMQ's does.
    // Its last attempt is refused (Redis is away), and the client ends.
    const client = Object.assign(new EventEmitter(), { status: 'ready', disconnect: vi.fn(), connect: vi.fn() });
    client.connect.mockImplementation(() => {
      client.emit('end');
      return Promise.reject(new Error('refused'));
    });
    const close = vi.fn(() => new Promise<void>((resolve) => { client.once('end', resolve); }));
    const closing = closeWorker({ close } as unknown as Worker, client as unknown as Redis);
    await vi.waitFor(() => { expect(close).toHaveBeenCalledExactlyOnceWith(false); });
    client.status = 'reconnecting';
    client.emit('reconnecting');
    await closing;
    expect(client.disconnect).toHaveBeenCalledOnce();
    expect(client.disconnect.mock.invocationCallOrder[0]).toBeLessThan(client.connect.mock.invocationCallOrder[0] ?? 0);
    expect(client.listenerCount('reconnecting')).toBe(0);
  });

  it('drops the worker\'s blocking connection when it loses Redis during a graceful close, so the close ends', async () => {
    // The worker's own connection stays ready; BullMQ's close waits for its blocking one to end.
    const client = Object.assign(new EventEmitter(), { status: 'ready', disconnect: vi.fn(), connect: vi.fn() });
    const blocking = Object.assign(new EventEmitter(), { status: 'ready', disconnect: vi.fn(), connect: vi.fn() });
    blocking.connect.mockImplementation(() => {
      blocking.emit('end');
      return Promise.reject(new Error('refused'));
    });
    const close = vi.fn(() => new Promise<void>((resolve) => { blocking.once('end', resolve); }));
    const worker = { close, backend: { blockingConnection: { client: Promise.resolve(blocking) } } } as unknown as Worker;
    const closing = closeWorker(worker, client as unknown as Redis);
    await vi.waitFor(() => { expect(close).toHaveBeenCalledExactlyOnceWith(false); });
    expect(blocking.disconnect).not.toHaveBeenCalled();
    blocking.status = 'reconnecting';
    blocking.emit('reconnecting');
    await closing;
    expect(blocking.disconnect).toHaveBeenCalledOnce();
    expect(client.disconnect).not.toHaveBeenCalled();
    expect(blocking.listenerCount('reconnecting')).toBe(0);
    expect(client.listenerCount('reconnecting')).toBe(0);
  });

  it('leaves the connection alone when the graceful close ends first', async () => {
    const { worker } = fakeWorker();
    const client = Object.assign(new EventEmitter(), { status: 'ready', disconnect: vi.fn(), connect: vi.fn() });
    await closeWorker(worker, client as unknown as Redis);
    client.emit('reconnecting');
    expect(client.disconnect).not.toHaveBeenCalled();
    expect(client.listenerCount('reconnecting')).toBe(0);
  });

  it('passes on a failed close', async () => {
    const worker = { close: () => Promise.reject(new Error('boom')) } as unknown as Worker;
    await expect(closeWorker(worker, clientIn('ready'))).rejects.toThrow('boom');
  });
});
