/**
 * Who may mail the bot, end to end on the example app as shipped (email in its default mode,
 * pairing) against real servers: Dovecot holding the bot's mailbox, an SMTP recorder, DKIM keys
 * for `example.com`, a fake model that counts its calls.
 *
 * - A stranger with a DKIM-signed mail gets a pairing code by mail, in the thread, and nothing
 *   else: no model call. Unsigned mail from a stranger gets nothing at all (a code sent to a forged
 *   From would land on someone who never wrote).
 * - Approving the code with `switchboard senders approve` answers the held mail in its thread.
 * - A known person (ada, of the example's people) is answered at once.
 */
import { describe, expect, it } from 'vitest';
import { runSendersCommand, sendersCommandDeps } from '../../service/cli/senders-command.ts';
import { createEventLog } from '../../src/runtime/session/event-log.ts';
import { useRedis } from '../support/redis.ts';
import { part, reply, respond } from '../support/scenario-model.ts';
import { waitFor } from '../support/wait-for.ts';
import { useEmailSwitchboard } from './email-harness.ts';

const CODE = /pairing code is ([A-Z0-9]{4}-[A-Z0-9]{4})/;
const redisUrl = useRedis();
const sb = useEmailSwitchboard({
  appDir: process.cwd(),
  redisUrl,
  script: () => reply(respond([part('response', 'Happy to help with your trip.')], 'complete')),
});

const modelCalls = (): number => sb().fake.messageRequests.length;

/** The outcomes the sender policy logged, in every session of the test's prefix. */
async function loggedOutcomes(): Promise<string[]> {
  const log = createEventLog({ redis: sb().redis(), prefix: sb().prefix });
  const keys = await sb().redis().keys(`${sb().prefix}:*`);
  const sessions = keys.map((key) => /:s:(ses_[a-z2-7]+):log$/.exec(key)?.[1]).filter((id): id is string => id !== undefined);
  const entries = (await Promise.all(sessions.map((id) => log.read(id)))).flat();
  return entries.filter((entry) => entry.type === 'sender_policy').map((entry) => String(entry.data['outcome']));
}

describe('email in pairing mode (the example app as shipped)', () => {
  it('mails a stranger a pairing code in their thread, calls no model, and answers the held mail once approved', async () => {
    const grace = 'grace@example.com';
    const { messageId } = await sb().send({ from: `Grace Hopper <${grace}>`, subject: 'Trip to Lisbon', text: 'Can you find me a flight to Lisbon?' });
    const codeMail = await sb().waitForMail(grace, (mail) => CODE.test(mail.parsed.text ?? ''), 'the pairing code mail');
    expect(codeMail.parsed.inReplyTo).toBe(messageId);
    expect(modelCalls()).toBe(0);
    const code = CODE.exec(codeMail.parsed.text ?? '')?.[1] ?? '';

    let printed = '';
    const deps = sendersCommandDeps({ redis: sb().redis(), prefix: sb().prefix, approver: 'cli ops' });
    try {
      expect(await runSendersCommand(['approve', code], deps, { write: (chunk: string) => (printed += chunk) })).toBe(0);
    } finally {
      await deps.close();
    }
    expect(printed).toContain(`Approved email ${grace}`);
    const answer = await sb().waitForMail(grace, (mail) => (mail.parsed.text ?? '').includes('Happy to help'), 'the answer to the held mail');
    expect(answer.parsed.inReplyTo).toBe(messageId);
    expect(modelCalls()).toBe(1);
  });

  it('sends nothing to an unsigned stranger, and answers a known person at once', async () => {
    const before = modelCalls();
    await sb().send({ from: 'Mallory <mallory@example.com>', subject: 'Hi', text: 'Let me in', sign: 'none' });
    await sb().send({ from: 'Ada Lovelace <ada@example.com>', subject: 'Paris', text: 'Flights to Paris?' });
    await sb().waitForMail('ada@example.com', (mail) => (mail.parsed.text ?? '').includes('Happy to help'), 'the answer to ada');
    // Ada's mail came after Mallory's in the same mailbox: Mallory's was taken in (and refused) first.
    expect(sb().mailsTo('mallory@example.com')).toEqual([]);
    expect(modelCalls()).toBe(before + 1);
  });
});

describe('the sender policy log', () => {
  it('lists each outcome', async () => {
    await waitFor(async () => (await loggedOutcomes()).includes('refused'), 'the refusal logged');
    expect((await loggedOutcomes()).sort()).toEqual(['allowed', 'pairing-code-sent', 'refused']);
  });
});
