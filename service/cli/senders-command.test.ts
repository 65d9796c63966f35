import { describe, expect, it } from 'vitest';
import type { PairingApproval } from '../../src/runtime/senders/release-held.ts';
import { senderPolicies } from '../../src/runtime/senders/sender-policy.ts';
import { runSendersCommand, SENDERS_USAGE, type SendersCommandDeps } from './senders-command.ts';

function deps(approval: PairingApproval = { status: 'unknown', triesLeft: 9 }): SendersCommandDeps & { calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    approver: 'cli ops',
    policies: senderPolicies(undefined),
    approve: (code, approver) => { calls.push(`approve ${code} ${approver}`); return Promise.resolve(approval); },
    allow: (channel, address, approver) => { calls.push(`allow ${channel} ${address} ${approver}`); return Promise.resolve({ status: 'approved', released: 0 }); },
    store: {
      list: () => Promise.resolve({
        pending: [{ code: 'K7QX-3MAC', channel: 'sms', address: '+15550100', issuedAt: '2026-12-01T09:00:00.000Z', expiresAt: '2026-12-01T10:00:00.000Z', held: 2 }],
        known: [{ state: 'blocked', channel: 'email', address: 'eve@example.org', by: 'admin page', at: '2026-12-01T08:00:00.000Z' }],
      }),
      revoke: (channel, address) => { calls.push(`revoke ${channel} ${address}`); return Promise.resolve(false); },
      block: (channel, address, by) => { calls.push(`block ${channel} ${address} ${by}`); return Promise.resolve(3); },
    },
  };
}

async function run(args: string[], given = deps()): Promise<{ code: number; text: string; calls: string[] }> {
  let text = '';
  const code = await runSendersCommand(args, given, { write: (chunk: string) => (text += chunk) });
  return { code, text, calls: given.calls };
}

describe('switchboard senders', () => {
  it('lists the policies, the codes waiting and the decided senders', async () => {
    const { code, text } = await run(['list']);
    expect(code).toBe(0);
    expect(text).toMatch(/^ {2}sms\s+pairing \(the channel's default\): known people, approved senders, 0 allow entries; others get a pairing code$/m);
    expect(text).toMatch(/^K7QX-3MAC\s+sms\s+\+15550100\s+2\s+2026-12-01T10:00:00.000Z$/m);
    expect(text).toMatch(/^blocked\s+email\s+eve@example\.org\s+admin page/m);
  });

  it('blocks and revokes by channel and address (email lower-cased), refusing an unknown channel', async () => {
    expect(await run(['block', 'email', 'Eve@Example.org'])).toMatchObject({ code: 0, text: 'Blocked email eve@example.org: nothing from them reaches the bot; 3 held message(s) dropped.\n', calls: ['block email eve@example.org cli ops'] });
    expect(await run(['revoke', 'sms', '+15550100'])).toMatchObject({ code: 1, text: 'sms +15550100 was neither approved nor blocked.\n' });
    expect(await run(['revoke', 'a2a', 'peer'])).toMatchObject({ code: 2, calls: [] });
    expect(await run(['approve', 'whatsapp', '+447700900123'])).toMatchObject({ code: 0, text: 'Approved whatsapp +447700900123.\n', calls: ['allow whatsapp +447700900123 cli ops'] });
  });

  it('says why a code was not approved', async () => {
    expect(await run(['approve', 'K7QX-3MAC'])).toMatchObject({ code: 1, calls: ['approve K7QX-3MAC cli ops'] });
    expect((await run(['approve', 'K7QX-3MAC'], deps({ status: 'throttled' }))).text).toMatch(/^Too many wrong codes/);
    expect((await run(['approve', 'K7QX-3MAC'], deps({ status: 'blocked', channel: 'sms', address: '+1555' }))).text).toContain('switchboard senders revoke sms +1555');
  });

  it('prints the usage for anything else', async () => {
    for (const args of [[], ['approve'], ['block', 'sms'], ['list', 'extra'], ['allow', 'sms', '+1']]) {
      expect(await run(args)).toMatchObject({ code: 2, text: `${SENDERS_USAGE}\n` });
    }
  });
});
