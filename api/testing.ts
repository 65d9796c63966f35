/**
 * `switchboard/testing`: run an app's actors in a test against a scripted model, with the real
 * tool registry, respond() validation, approvals and turn runner; call one tool the way the
 * runtime does; and replay a conversation exported by `switchboard replay --export` as a
 * regression test (`replayFixture`). Needs `redis-server` on `PATH` (or a `redisUrl`).
 *
 * @example
 * import { answer, callTool, startTestBot } from 'switchboard/testing';
 * const bot = await startTestBot({ app: new URL('..', import.meta.url) });
 * const turn = await bot.send('What time is it in Tokyo?', {
 *   model: [callTool('local_time', { timezone: 'Asia/Tokyo' }), answer('It is nine in the morning.')],
 * });
 */
export { startTestBot } from '../service/testing/test-bot.ts';
export type { DecideOptions, SendOptions, TestBot, TestBotOptions, TestNotification, TestSender } from '../service/testing/test-bot-types.ts';
export type { TestApproval, TestPart, TestToolCall, TestTurn, TestViolation } from '../service/testing/test-turn.ts';
export { answer, callTool, respond, ScriptExhaustedError } from '../service/testing/scripted-model.ts';
export type { ModelReply, RespondPartInput, ScriptStep, ScriptedCall, SeenToolResult } from '../service/testing/scripted-model.ts';
export { testTool, toolContext } from '../service/testing/test-tool.ts';
export type { TestedTool, ToolContextInput } from '../service/testing/test-tool.ts';
export { replayFixture } from '../service/testing/replay-kit.ts';
export type { Departure, DepartureKind, ReplayOptions, ReplayReport } from '../service/replay/replay-fixture.ts';
export type { FixtureInjection, FixtureOutcome, FixturePart, FixtureResponse, FixtureToolCall, FixtureTurn, ReplayFixture } from '../service/replay/fixture-types.ts';
