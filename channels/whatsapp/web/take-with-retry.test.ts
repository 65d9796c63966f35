import { describe, expect, it } from 'vitest';
import { SwitchboardError } from '../../../src/protocol/errors.ts';
import type { WhatsAppEvent, WhatsAppIntake } from '../whatsapp-event.ts';
import { takeWithRetry } from './take-with-retry.ts';

const event: WhatsAppEvent = { type: 'whatsapp', via: 'web', messageId: 'false_447700900123@c.us_3EB0RETRY', from: '+447700900123', text: 'Hi', attachments: [], notes: [], receivedAt: '2030-01-01T10:00:00.000Z' };
const retry = { attempts: 3, baseDelayMs: 1, maxDelayMs: 2 };

/** An intake that rejects with `failure` the first `failures` times, and a logger that records levels. */
function failing(failures: number, failure: Error): { intake: WhatsAppIntake & { attempts: number }; logged: string[]; logger: { warn: () => void; error: () => void } } {
  const logged: string[] = [];
  const intake = {
    attempts: 0,
    take() {
      intake.attempts += 1;
      return intake.attempts <= failures ? Promise.reject(failure) : Promise.resolve({ duplicate: false });
    },
  };
  return { intake, logged, logger: { warn: () => { logged.push('warn'); }, error: () => { logged.push('error'); } } };
}

describe('takeWithRetry', () => {
  it('takes the event once the intake accepts', async () => {
    const { intake, logged, logger } = failing(2, new Error('Redis down'));
    expect(await takeWithRetry(intake, event, { retry, signal: new AbortController().signal, logger })).toBe(true);
    expect(intake.attempts).toBe(3);
    expect(logged).toEqual(['warn', 'warn']);
  });

  it('gives up after the last try, logging an error', async () => {
    const { intake, logged, logger } = failing(10, new Error('Redis down'));
    expect(await takeWithRetry(intake, event, { retry, signal: new AbortController().signal, logger })).toBe(false);
    expect(intake.attempts).toBe(3);
    expect(logged).toEqual(['warn', 'warn', 'error']);
  });

  it('does not try again an event the intake cannot read', async () => {
    const { intake, logged, logger } = failing(10, new SwitchboardError('channel.invalid', 'Not a WhatsApp event.'));
    expect(await takeWithRetry(intake, event, { retry, signal: new AbortController().signal, logger })).toBe(false);
    expect(intake.attempts).toBe(1);
    expect(logged).toEqual(['error']);
  });

  it('stops when the signal aborts', async () => {
    const aborted = new AbortController();
    aborted.abort();
    const { intake, logger } = failing(0, new Error('unused'));
    expect(await takeWithRetry(intake, event, { retry, signal: aborted.signal, logger })).toBe(false);
    expect(intake.attempts).toBe(0);

    const during = new AbortController();
    const slow = failing(10, new Error('Redis down'));
    const taking = takeWithRetry(slow.intake, event, { retry: { attempts: 10, baseDelayMs: 10_000, maxDelayMs: 10_000 }, signal: during.signal, logger: slow.logger });
    await Promise.resolve();
    during.abort();
    expect(await taking).toBe(false);
    expect(slow.intake.attempts).toBe(1);
  });
});
