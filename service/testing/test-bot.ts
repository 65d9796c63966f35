/**
 * An app's actors, run in a test: the app folder loaded as the service loads it, the real tool
 * registry, respond() validation, approval store and turn runner, on a private Redis; only the
 * model is a script. What `switchboard/testing` offers as {@link startTestBot}.
 */
import { applyDecision, openBot, putInjection, rememberParts, runTurns, type BotParts } from './bot-core.ts';
import type { ScriptStep } from './scripted-model.ts';
import type { DecideOptions, TestBot, TestBotOptions } from './test-bot-types.ts';
import type { TestApproval, TestTurn } from './test-turn.ts';

/** Loads the script, runs the session's turns and reports what the last one did. */
async function play(parts: BotParts, sessionId: string, steps: readonly ScriptStep[]): Promise<TestTurn> {
  parts.script.load(steps);
  const turn = await runTurns(parts, sessionId);
  const failure = parts.script.failure();
  if (failure !== undefined) throw failure;
  const unused = parts.script.unused();
  if (unused > 0) throw new Error(`The turn ended ${turn.settled ? 'settled' : 'waiting'} as "${turn.turnState}" with ${String(unused)} step${unused === 1 ? '' : 's'} of the model script unused.`);
  return turn;
}

async function decide(parts: BotParts, approval: TestApproval | string, decision: 'granted' | 'denied', options: DecideOptions): Promise<TestTurn> {
  const approvalId = typeof approval === 'string' ? approval : approval.approvalId;
  const sessionId = await applyDecision(parts, approvalId, decision, options);
  return play(parts, sessionId, options.model ?? []);
}

/**
 * Loads the app in `options.app` and returns a {@link TestBot} that runs its actors against scripted
 * model answers. Each `send` runs real turns: tool arguments and outputs are checked against their
 * schemas, respond() calls are validated (an invalid one is answered with a correction and takes
 * another step of the script), approvals are saved and wait for {@link TestBot.approve}.
 *
 * @throws SwitchboardError `app.invalid` when the app folder has problems (each one named).
 *
 * @example
 * const bot = await startTestBot({ app: new URL('..', import.meta.url) });
 * const turn = await bot.send('What time is it in Tokyo?', {
 *   model: [callTool('local_time', { timezone: 'Asia/Tokyo' }), answer('It is 09:00 in Tokyo.')],
 * });
 * assert.equal(turn.toolCalls[0]?.outcome, 'ok');
 * await bot.close();
 */
export async function startTestBot(options: TestBotOptions): Promise<TestBot> {
  const parts = await openBot(options);
  const { app } = parts;
  const defaultChannel = options.channel ?? 'web';
  let busy = false;
  const once = async (work: () => Promise<TestTurn>): Promise<TestTurn> => {
    if (busy) throw new Error('A test bot runs one message or decision at a time: await the previous one first.');
    busy = true;
    try {
      return await work();
    } finally {
      busy = false;
    }
  };
  const bot: TestBot = {
    app: { name: app.name, actors: app.actors.map((actor) => actor.name), tools: [...app.tools] },
    notifications: parts.notifications,
    send: (text, sendOptions) => once(async () => {
      const channel = sendOptions.channel ?? defaultChannel;
      const sessionId = await putInjection(parts, { text, channel, ...(sendOptions.from === undefined ? {} : { from: sendOptions.from }), ...(sendOptions.conversation === undefined ? {} : { conversation: sendOptions.conversation }) });
      return play(parts, sessionId, sendOptions.model);
    }),
    approve: (approval, decideOptions = {}) => once(() => decide(parts, approval, 'granted', decideOptions)),
    deny: (approval, decideOptions = {}) => once(() => decide(parts, approval, 'denied', decideOptions)),
    close: () => parts.close(),
  };
  rememberParts(bot, parts);
  return bot;
}
