import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { closeOnSignal, type Closable, type SignalSource } from './close-on-signal.ts';

function recorder(log: string[], name: string, fail = false): Closable {
  return {
    async close() {
      await Promise.resolve();
      log.push(name);
      if (fail) throw new Error(`${name} failed`);
    },
  };
}

describe('closeOnSignal', () => {
  it('closes the targets in order on SIGTERM, once, and reports the first error', async () => {
    const source = new EventEmitter();
    const log: string[] = [];
    const results: [string | undefined, string][] = [];
    const shutdown = closeOnSignal({
      source,
      targets: [recorder(log, 'inbound'), recorder(log, 'turns', true), recorder(log, 'outbound')],
      onClosed: (error, signal) => results.push([error?.message, signal]),
    });
    expect(shutdown.closed).toBeUndefined();

    source.emit('SIGTERM');
    source.emit('SIGTERM');
    source.emit('SIGINT');
    await shutdown.closed;

    expect(log).toEqual(['inbound', 'turns', 'outbound']);
    expect(results).toEqual([['turns failed', 'SIGTERM']]);
    expect(source.listenerCount('SIGTERM')).toBe(0);
    expect(source.listenerCount('SIGINT')).toBe(0);
  });

  it('listens to the given signals only, and can be disposed', () => {
    const emitter = new EventEmitter();
    const source: SignalSource = emitter;
    const log: string[] = [];
    const shutdown = closeOnSignal({ source, targets: [recorder(log, 'a')], signals: ['SIGUSR2'] });
    expect(emitter.listenerCount('SIGTERM')).toBe(0);
    expect(emitter.listenerCount('SIGUSR2')).toBe(1);
    shutdown.dispose();
    expect(emitter.listenerCount('SIGUSR2')).toBe(0);
    emitter.emit('SIGUSR2');
    expect(shutdown.closed).toBeUndefined();
    expect(log).toEqual([]);
  });
});
