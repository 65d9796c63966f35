import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { appMention, dmMessage, eventCallback, urlVerification } from '../../test/fakes/slack-requests.ts';
import type { Injection } from '../../src/runtime/injection.ts';
import { createSlackIntake, type SlackIntakeOptions } from './intake.ts';
import { normaliseSlackEvent } from './normalise.ts';

/** An intake whose enqueue and thread store are recorded; `failEnqueue` makes every enqueue reject. */
function intakeWith(options: Partial<SlackIntakeOptions> & { readonly failEnqueue?: boolean } = {}) {
  const enqueued: Injection[] = [];
  const joined: string[] = [];
  const intake = createSlackIntake({
    botUserId: () => Promise.resolve('U0BOT001'),
    store: { inThread: () => Promise.resolve(false), joinThread: (team, channel, ts) => { joined.push(`${team}:${channel}:${ts}`); return Promise.resolve(); } },
    normalise: (event) => normaliseSlackEvent(event, { people: [], tenantId: 'default' }),
    enqueue: (injection) => {
      if (options.failEnqueue === true) return Promise.reject(new Error('queue down'));
      enqueued.push(injection);
      return Promise.resolve({ duplicate: false });
    },
    logger: pino({ level: 'silent' }),
    clock: () => new Date('2030-01-01T10:00:00Z'),
    ...options,
  });
  return { intake, enqueued, joined };
}

const file = { id: 'F0FILE0001', name: 'plan.pdf', mimetype: 'application/pdf', size: 3, url_private_download: 'https://files.slack.com/files-pri/T0FAKE01-F0FILE0001/download/plan.pdf' };
const dm = eventCallback({ ...dmMessage({ user: 'U0ADA0001', text: 'See attached', channel: 'D0ADA0001', ts: '1700000000.000100' }), subtype: 'file_share', files: [file] }, { eventId: 'Ev0INTAKE01' });
const mention = eventCallback(appMention({ user: 'U0ADA0001', text: 'hello', channel: 'C0GENERAL1', ts: '1700000000.000200' }), { eventId: 'Ev0INTAKE02' });

describe('the Slack intake', () => {
  it('takes the same payload from a signed body and from an envelope, saying which way it came', async () => {
    const { intake, enqueued } = intakeWith();
    expect(await intake({ body: JSON.stringify(dm), contentType: 'application/json' }, {})).toEqual({ kind: 'taken', injectionId: 'slack:T0FAKE01:Ev0INTAKE01', duplicate: false });
    await intake({ envelope: dm }, {});
    expect(enqueued.map((injection) => injection.sender.basis)).toEqual(['Slack-signed request', 'Slack Socket Mode (app token)']);
  });

  it('remembers the thread of a channel message, so its replies are taken, and none of a DM (all of it is the bot\'s)', async () => {
    const { intake, joined } = intakeWith();
    await intake({ envelope: dm }, {});
    expect(joined).toEqual([]);
    await intake({ envelope: mention }, {});
    expect(joined).toEqual(['T0FAKE01:C0GENERAL1:1700000000.000200']);
  });

  it('adds the lines of the kept files to the text, and names files as not kept without a keeper', async () => {
    const kept = intakeWith({ keepFiles: (files) => Promise.resolve(files.map((shared) => `[attached: ${shared.name}, ${shared.mimeType}, 0.0 MB, artifact A]`)) });
    await kept.intake({ envelope: dm }, {});
    expect(kept.enqueued[0]?.text).toBe('See attached\n\n[attached: plan.pdf, application/pdf, 0.0 MB, artifact A]');
    const unkept = intakeWith();
    await unkept.intake({ envelope: dm }, {});
    expect(unkept.enqueued[0]?.text).toBe('See attached\n\n(The file plan.pdf shared in Slack was not kept.)');
  });

  it('rejects when the enqueue fails, before remembering the thread', async () => {
    const { intake, joined } = intakeWith({ failEnqueue: true });
    await expect(intake({ envelope: mention }, {})).rejects.toThrow('queue down');
    expect(joined).toEqual([]);
  });

  it('answers the challenge and says what it could not read', async () => {
    const { intake, enqueued } = intakeWith();
    expect(await intake({ envelope: urlVerification('c0de') }, {})).toEqual({ kind: 'challenge', challenge: 'c0de' });
    expect(await intake({ body: 'not json', contentType: 'application/json' }, {})).toEqual({ kind: 'unreadable' });
    expect(enqueued).toEqual([]);
  });

  it('ignores an event the normaliser cannot read, without keeping its files, instead of rejecting (which Slack retries)', async () => {
    // Counterexample found by intake.properties.test.ts: a signed click from team " " rejected with channel.invalid.
    const keptFiles: string[] = [];
    const { intake, enqueued } = intakeWith({ keepFiles: (files) => { keptFiles.push(...files.map((shared) => shared.name)); return Promise.resolve([]); } });
    const click = {
      type: 'block_actions',
      user: { id: 'U00' },
      team: { id: ' ' },
      channel: { id: 'C00' },
      message: { ts: '0.000000' },
      actions: [{ action_id: 'approval.approve', value: JSON.stringify({ approvalId: 'a--_aa_a-___0-A00A-_-_' }), action_ts: '0.000000' }],
    };
    expect(await intake({ envelope: click }, {})).toMatchObject({ kind: 'ignored', reason: expect.stringContaining('cannot be read') as unknown });
    const lowerCase = eventCallback({ ...dmMessage({ user: 'U0ADA0001', text: 'hi', channel: 'd0ada0001', ts: '1700000000.000100' }), subtype: 'file_share', files: [file] }, { eventId: 'Ev0INTAKE02' });
    expect(await intake({ envelope: lowerCase }, {})).toMatchObject({ kind: 'ignored' });
    expect(enqueued).toEqual([]);
    expect(keptFiles).toEqual([]);
  });
});

