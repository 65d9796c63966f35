import { describe, expect, it } from 'vitest';
import type { Injection } from '../../src/runtime/injection.ts';
import { createWhatsAppIntake } from './intake.ts';
import { normaliseWhatsAppEvent } from './normalise.ts';
import type { WhatsAppEvent, WhatsAppMessageEvent } from './whatsapp-event.ts';

const GRACE = '+447700900123';
const message = (overrides: Partial<WhatsAppMessageEvent> = {}): WhatsAppMessageEvent => ({
  type: 'whatsapp', via: 'cloud', messageId: 'wamid.intake', from: GRACE, text: 'Any flights to Corfu?', attachments: [], notes: [], receivedAt: '2030-01-01T10:00:00.000Z', ...overrides,
});

/** An intake over recording fakes; `enqueue` decides what the queue answers, `noteFails` fails the window's write. */
function intakeWith(enqueue: (injection: Injection) => Promise<{ duplicate: boolean }>, noteFails?: Error) {
  const noted: { contact: string; at: string }[] = [];
  const enqueued: string[] = [];
  const logged: { level: 'info' | 'debug'; fields: unknown }[] = [];
  const intake = createWhatsAppIntake({
    normalise: (event) => normaliseWhatsAppEvent(event, { people: [], tenantId: 'default' }),
    enqueue: (injection) => {
      enqueued.push(injection.id);
      return enqueue(injection);
    },
    windows: {
      noteInbound: (contact, at) => {
        noted.push({ contact, at: at.toISOString() });
        return noteFails === undefined ? Promise.resolve() : Promise.reject(noteFails);
      },
    },
    logger: {
      info: (fields: unknown) => { logged.push({ level: 'info', fields }); },
      debug: (fields: unknown) => { logged.push({ level: 'debug', fields }); },
    } as never,
  });
  return { intake, noted, enqueued, logged };
}

describe('the WhatsApp intake', () => {
  it('notes the window and enqueues a message, logging a repeat at debug level', async () => {
    let seen = false;
    const { intake, noted, enqueued, logged } = intakeWith(() => {
      const duplicate = seen;
      seen = true;
      return Promise.resolve({ duplicate });
    });
    expect(await intake.take(message())).toEqual({ duplicate: false });
    expect(await intake.take(message())).toEqual({ duplicate: true });
    expect(enqueued).toEqual(['whatsapp:wamid.intake', 'whatsapp:wamid.intake']);
    expect(noted).toEqual([{ contact: GRACE, at: '2030-01-01T10:00:00.000Z' }, { contact: GRACE, at: '2030-01-01T10:00:00.000Z' }]);
    expect(logged.map((entry) => entry.level)).toEqual(['info', 'debug']);
    expect(logged[1]?.fields).toEqual({ channel: 'whatsapp', injection: 'whatsapp:wamid.intake', duplicate: true });
  });

  it('rejects when the queue cannot take the message, so the transport does not acknowledge it; the window is still noted', async () => {
    const down = new Error('Connection is closed.');
    const { intake, noted, logged } = intakeWith(() => Promise.reject(down));
    await expect(intake.take(message())).rejects.toBe(down);
    expect(noted).toHaveLength(1);
    expect(logged).toEqual([]);
  });

  it('writes nothing for a malformed event', async () => {
    const { intake, noted, enqueued } = intakeWith(() => Promise.resolve({ duplicate: false }));
    const bad = { ...message(), from: 'not a number' } as WhatsAppEvent;
    await expect(intake.take(bad)).rejects.toMatchObject({ code: 'channel.invalid' });
    expect(noted).toEqual([]);
    expect(enqueued).toEqual([]);
  });

  it('does not open a window for a group message, but does for a tap on an approval button', async () => {
    const { intake, noted, enqueued } = intakeWith(() => Promise.resolve({ duplicate: false }));
    await intake.take(message({ via: 'web', messageId: 'group-1', group: { id: '120363041234567890@g.us' } }));
    expect(noted).toEqual([]);
    await intake.take({ type: 'whatsapp-approval', via: 'cloud', messageId: 'wamid.tap', from: GRACE, approvalId: 'Zx4bQ2tGd1sQ9cYk3mWvTa', decision: 'denied', receivedAt: '2030-01-01T11:00:00.000Z' });
    expect(noted).toEqual([{ contact: GRACE, at: '2030-01-01T11:00:00.000Z' }]);
    expect(enqueued).toEqual(['whatsapp:group-1', 'whatsapp:wamid.tap']);
  });

  it('notes the window before it starts the enqueue, in the same tick, so both leave in one socket write in that order', async () => {
    const order: string[] = [];
    const { intake, noted } = intakeWith(() => {
      order.push(`enqueue after ${String(noted.length)} note`);
      return Promise.resolve({ duplicate: false });
    });
    await intake.take(message());
    expect(order).toEqual(['enqueue after 1 note']);
  });

  it('rejects when noting the window fails, so Meta delivers the message again; the enqueue beside it makes the repeat a duplicate', async () => {
    let seen = false;
    const { intake, enqueued } = intakeWith(() => {
      const duplicate = seen;
      seen = true;
      return Promise.resolve({ duplicate });
    }, new Error('READONLY'));
    await expect(intake.take(message())).rejects.toThrow('READONLY');
    await expect(intake.take(message())).rejects.toThrow('READONLY');
    expect(enqueued).toEqual(['whatsapp:wamid.intake', 'whatsapp:wamid.intake']);
  });
});
