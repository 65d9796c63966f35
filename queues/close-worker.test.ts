import type { Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import { describe, expect, it, vi } from 'vitest';
import { closeWorker } from './close-worker.ts';

/** A worker that records how it was closed. */
function fakeWorker(): { worker: Worker; close: ReturnType<typeof vi.fn> } {
  const close = vi.fn(() => Promise.resolve());
  return { worker: { close } as unknown as Worker, close };
}

const clientIn = (status: string): Redis => ({ status }) as unknown as Redis;

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

  it('passes on a failed close', async () => {
    const worker = { close: () => Promise.reject(new Error('boom')) } as unknown as Worker;
    await expect(closeWorker(worker, clientIn('ready'))).rejects.toThrow('boom');
  });
});
