import { afterAll, describe, expect, it } from 'vitest';
import { createToolHandlerContext } from '../../protocol/tools/tool-handler-context.ts';
import { createToolRegistry } from '../../protocol/tools/tool-registry.ts';
import { removeApps, VALID_APP, writeApp } from '../app/app-test-fixtures.ts';
import { loadApp } from '../app/load-app.ts';
import type { Destination } from '../injection.ts';
import { createNotifyTool, notifyIdempotencyKey, type NotifyToolOptions } from './notify-tool.ts';
import { PEOPLE } from './proactive-test-fixtures.ts';

afterAll(removeApps);

interface Sent {
  readonly destination: Destination;
  readonly text: string;
  readonly key: string;
}

function notifyWith(overrides: Partial<NotifyToolOptions> = {}): { tool: ReturnType<typeof createNotifyTool>; sent: Sent[] } {
  const sent: Sent[] = [];
  const tool = createNotifyTool({
    people: PEOPLE,
    enabledChannels: ['web', 'email', 'sms'],
    requiresApproval: false,
    send: (destination, text, key) => {
      sent.push({ destination, text, key });
      return Promise.resolve();
    },
    ...overrides,
  });
  return { tool, sent };
}

const ctx = createToolHandlerContext({ actorName: 'concierge', sessionId: 'session-1', turnId: 'turn-1' });

describe('the notify tool', () => {
  it('registers as a routed generalist tool whose schema limits the text and the channels', () => {
    const registry = createToolRegistry();
    const registered = registry.register(notifyWith().tool);
    expect(registered).toMatchObject({ name: 'notify', scope: 'generalist', routing: 'routed', requiresApproval: false });
    expect(registered.description).toContain('People: grace (Grace Hopper), ada (Ada Lovelace), lin (Lin Chen).');
    expect(registered.description).toContain('use person "me"');
    expect(registered.inputSchema.properties?.['person']).toMatchObject({ description: expect.stringContaining('"me" for the person you are talking to') as unknown });
    expect(registered.inputSchema.properties?.['channel']).toMatchObject({ enum: ['sms', 'email', 'web'] });
    expect(registry.validateArguments('notify', { person: 'grace', text: 'Hi' }).ok).toBe(true);
    expect(registry.validateArguments('notify', { person: 'grace', text: 'x'.repeat(1601) }).ok).toBe(false);
    expect(registry.validateArguments('notify', { person: 'grace', text: '   ' }).ok).toBe(false);
    expect(registry.validateArguments('notify', { person: 'grace', text: 'Hi', channel: 'slack' }).ok).toBe(false);
  });

  it('sends once per call, with a key that is the same when the handler runs again', async () => {
    const { tool, sent } = notifyWith();
    const args = { person: 'grace', text: 'Your flight boards at 9.' };
    expect(await tool.handler(args, ctx)).toBe('Sent to Grace Hopper by sms.');
    await tool.handler(args, ctx);
    expect(sent).toHaveLength(2);
    expect(sent[0]).toEqual({ destination: { channel: 'sms', address: '+15550100' }, text: args.text, key: notifyIdempotencyKey(ctx, args) });
    expect(sent[1]?.key).toBe(sent[0]?.key);
    expect(sent[0]?.key).toMatch(/^notify:[0-9a-f]{64}$/);
    const otherTurn = createToolHandlerContext({ actorName: 'concierge', sessionId: 'session-1', turnId: 'turn-2' });
    expect(notifyIdempotencyKey(otherTurn, args)).not.toBe(sent[0]?.key);
  });

  it('uses the channel asked for', async () => {
    const { tool, sent } = notifyWith();
    expect(await tool.handler({ person: 'grace', text: 'Hi', channel: 'web' }, ctx)).toBe('Sent to Grace Hopper by web.');
    expect(sent[0]?.destination).toEqual({ channel: 'web', address: 'grace-chat' });
  });

  it('fails with a message for the model for an unknown person or no reachable channel', async () => {
    const { tool, sent } = notifyWith();
    await expect(tool.handler({ person: 'alex', text: 'Hi' }, ctx)).rejects.toThrow(
      'No person has the id "alex". Known people: grace, ada, lin. Nothing was sent.',
    );
    await expect(tool.handler({ person: 'ada', text: 'Hi', channel: 'sms' }, ctx)).rejects.toThrow(
      'Ada Lovelace (ada) has no address on any channel tried (sms). Their addresses are on: email. Nothing was sent.',
    );
    await expect(tool.handler({ person: 'lin', text: 'Hi' }, ctx)).rejects.toThrow('Lin Chen (lin) has no address on any channel tried (sms, email, web).');
    expect(sent).toEqual([]);
  });

  it('sends person "me" to the known person the actor is talking to', async () => {
    const { tool, sent } = notifyWith();
    const fromGrace = createToolHandlerContext({ actorName: 'concierge', sessionId: 'session-1', turnId: 'turn-1', personId: 'grace' });
    const args = { person: 'me', text: 'Your trips.', channel: 'sms' };
    expect(await tool.handler(args, fromGrace)).toBe('Sent to Grace Hopper by sms.');
    expect(sent).toEqual([{ destination: { channel: 'sms', address: '+15550100' }, text: 'Your trips.', key: notifyIdempotencyKey(fromGrace, args) }]);
    const fromAda = createToolHandlerContext({ actorName: 'concierge', sessionId: 'session-2', turnId: 'turn-1', personId: 'ada' });
    await expect(tool.handler(args, fromAda)).rejects.toThrow('Ada Lovelace (ada) has no address on any channel tried (sms).');
  });

  it('fails person "me" with a message for the model when the sender is not a known person', async () => {
    const { tool, sent } = notifyWith();
    await expect(tool.handler({ person: 'me', text: 'Hi' }, ctx)).rejects.toThrow(
      '"me" is the person you are talking to, and they are not a known person, so nothing was sent.',
    );
    expect(sent).toEqual([]);
  });

  it('can be listed by actors and in approvals when registered through loadApp', async () => {
    const registry = createToolRegistry();
    const switchboard = VALID_APP['switchboard.yaml'] as Record<string, unknown>;
    const app = await loadApp({
      dir: writeApp({
        ...VALID_APP,
        'switchboard.yaml': { ...switchboard, approvals: [{ tool: 'notify', approvers: ['sam'] }] },
        'actors/writer.yaml': { name: 'writer', system: 'Write.', tools: ['notify'] },
      }),
      defaultModel: 'm',
      registry,
      registerBuiltins: (target, { people, approvalTools }) => {
        target.register(notifyWith({ people, requiresApproval: approvalTools.has('notify') }).tool);
      },
    });
    expect(app.approvals.map((approval) => approval.tool)).toEqual(['notify']);
    expect(app.actors.find((actor) => actor.name === 'writer')?.tools).toEqual(['notify']);
    expect(registry.require('notify').requiresApproval).toBe(true);
    expect(registry.require('notify').description).toContain('People: sam (Sam Example).');
  });
});
