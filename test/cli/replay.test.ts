/**
 * `switchboard replay`: a conversation is recorded with capture on, by the real turn runner of the
 * test kit writing to the deployment's log and capture store on a real Redis (a flight search, then
 * a booking that waits for approval and is granted), and replayed by the CLI on the app's current
 * actors and tools. Unchanged, nothing departs; with a recorded tool result the tool's output
 * schema now refuses, or with the tool's approval policy changed, the departure is reported.
 */
import { execFile } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answer, callTool, replayFixture, startTestBot, type TestBot } from 'switchboard/testing';
import { createCaptureStore } from '../../src/runtime/inspect/capture-store.ts';
import { deploymentPrefix } from '../../src/runtime/redis/redis-target.ts';
import { createEventLog, type StoredEventLogEntry } from '../../src/runtime/session/event-log.ts';
import { runReplayCommand, type ReplayCommandDeps } from '../../service/cli/replay-command.ts';
import { applyDecision, openBot, putInjection, runTurns } from '../../service/testing/bot-core.ts';
import { copyExampleApp } from '../support/example-app-copy.ts';
import { useRedis } from '../support/redis.ts';

const launcher = fileURLToPath(new URL('../../bin/switchboard.js', import.meta.url));
const redisUrl = useRedis();
const appDir = copyExampleApp('sb-replay-');
const SEARCH = { origin: 'LHR', destination: 'CDG', date: '2026-12-18', passengers: 2 };
const BOOKING = { flightNumber: 'MW 304', date: '2026-12-18', passengers: [{ fullName: 'Ada Lovelace' }, { fullName: 'Charles Babbage' }], totalCost: 236, currency: 'GBP' };

let redis: Redis;
let sessionId: string;
let entries: StoredEventLogEntry[];

/**
 * Records a two-turn conversation as the service would with capture on: the runtime writes the
 * log and the whole model calls under the deployment's prefix, where the CLI looks.
 */
async function record(): Promise<string> {
  const prefix = deploymentPrefix(redisUrl());
  const parts = await openBot({ app: appDir, redisUrl: redisUrl() }, { prefix, inspect: { costUsd: () => 0, capture: createCaptureStore({ redis, prefix }) } });
  try {
    const conversation = 'c-replay';
    parts.script.load([callTool('search_flights', SEARCH), answer('MW 304 leaves at 07:25: £236 for two.')]);
    const session = await putInjection(parts, { text: 'London to Paris on 18 December, two of us', channel: 'web', conversation });
    await runTurns(parts, session);
    parts.script.load([callTool('book_flight', BOOKING), answer('Booked: MW 304 on 18 December for two.')]);
    await putInjection(parts, { text: 'Book MW 304 for Ada Lovelace and Charles Babbage, £236 is fine', channel: 'web', conversation });
    const waiting = await runTurns(parts, session);
    const approval = waiting.approvals[0];
    if (approval === undefined) throw new Error('the booking did not wait for approval');
    await applyDecision(parts, approval.approvalId, 'granted');
    const booked = await runTurns(parts, session);
    if (booked.turnState !== 'complete' || parts.script.unused() !== 0) throw new Error(`the recording went wrong: ${booked.turnState}`);
    return session;
  } finally {
    await parts.close();
  }
}

/** Runs the command in this process, as `main` does, and returns its exit code and output. */
async function replay(args: readonly string[], deps: Partial<ReplayCommandDeps> = {}): Promise<{ code: number; output: string }> {
  let output = '';
  const out = new Writable({ write(chunk: Buffer, _encoding, done) { output += chunk.toString(); done(); } });
  const prefix = deploymentPrefix(redisUrl());
  const code = await runReplayCommand(args, { readLog: () => Promise.resolve(entries), capture: createCaptureStore({ redis, prefix }), appDir, ...deps }, out);
  return { code, output };
}

/** Runs `switchboard <args>` as a person would, with the test Redis as REDIS_URL. */
function cli(args: readonly string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolveRun) => {
    execFile(process.execPath, [launcher, ...args], { env: { ...process.env, REDIS_URL: redisUrl(), SWITCHBOARD_APP: appDir } }, (error, stdout, stderr) => {
      resolveRun({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : 1, stdout, stderr });
    });
  });
}

beforeAll(async () => {
  redis = new Redis(redisUrl());
  sessionId = await record();
  entries = await createEventLog({ redis, prefix: deploymentPrefix(redisUrl()) }).read(sessionId, 10_000);
}, 60_000);

afterAll(() => {
  redis.disconnect();
  rmSync(appDir, { recursive: true, force: true });
});

describe('switchboard replay', () => {
  it('replays the recorded conversation on the current app: no departure, exit 0', async () => {
    const { code, stdout } = await cli(['replay', sessionId]);
    expect(stdout).toContain('2 turns');
    expect(stdout).toContain('No departure');
    expect(code).toBe(0);
  });

  it('finds the conversation by <channel>:<address> too', async () => {
    const { code, stdout } = await cli(['replay', 'web:c-replay', '--turn', '2']);
    expect(stdout).toContain(sessionId);
    expect(stdout).toContain('1 turn ');
    expect(code).toBe(0);
  });

  it('exports a fixture that replayFixture runs as a regression test', async () => {
    const file = join(tmpdir(), `sb-replay-${String(process.pid)}.yaml`);
    try {
      const { code } = await replay([sessionId, '--export', file]);
      expect(code).toBe(0);
      const text = readFileSync(file, 'utf8');
      expect(text).toContain('format: switchboard-replay/1');
      // The capture source gave back what was written.
      expect(text).toContain('London to Paris on 18 December, two of us');
      let bot: TestBot | undefined;
      try {
        bot = await startTestBot({ app: appDir });
        const report = await replayFixture(bot, file);
        expect(report).toMatchObject({ turns: 2, departures: [] });
      } finally {
        await bot?.close();
      }
    } finally {
      if (existsSync(file)) rmSync(file);
    }
  });

  it('without the model responses (capture off) says so and exits 2', async () => {
    const bare = entries.map((entry) => {
      if (entry.type !== 'model_response') return entry;
      const { content: _content, ...data } = entry.data;
      return { ...entry, data };
    });
    const { code, output } = await replay([sessionId], { readLog: () => Promise.resolve(bare), capture: { read: () => Promise.resolve(undefined) } });
    expect(output).toMatch(/capture was off/);
    expect(output).toContain('model call 1');
    expect(code).toBe(2);
  });

  it('reports a recorded result the tool\'s output schema now refuses, and exits 1', async () => {
    const changed = entries.map((entry) => (entry.type === 'tool_call' && entry.data['tool'] === 'search_flights' ? { ...entry, data: { ...entry.data, result: JSON.stringify({ summary: 5 }) } } : entry));
    const { code, output } = await replay([sessionId], { readLog: () => Promise.resolve(changed) });
    expect(output).toMatch(/turn 1: 1 departure/);
    expect(output).toMatch(/search_flights ended ok in the recording, invalid_output in the replay/);
    expect(code).toBe(1);
  });

  it('reports a respond() call the current validation rejects', async () => {
    // As if the recorded answer used a turn state this version no longer knows.
    const changed = entries.map((entry) => {
      const content = entry.data['content'];
      if (entry.type !== 'model_response' || !JSON.stringify(content).includes('07:25')) return entry;
      return { ...entry, data: { ...entry.data, content: JSON.parse(JSON.stringify(content).replace('"turnState":"complete"', '"turnState":"finished"')) as unknown } };
    });
    const { code, output } = await replay([sessionId, '--turn', '1'], { readLog: () => Promise.resolve(changed) });
    expect(output).toMatch(/respond\s+a respond\(\) call is rejected by the current validation: \/turnState/);
    expect(output).toMatch(/model_calls\s+the turn asked for model call 3; the script has 2/);
    expect(code).toBe(1);
  });

  it('reports a tool whose approval policy changed since the recording, and exits 1', async () => {
    const changedApp = copyExampleApp('sb-replay-changed-');
    try {
      const file = join(changedApp, 'tools', 'book_flight.ts');
      writeFileSync(file, readFileSync(file, 'utf8').replace("autoApproveIf: 'args.totalCost < 50'", "autoApproveIf: 'args.totalCost < 500'"));
      const { code, output } = await replay([sessionId], { appDir: changedApp });
      expect(output).toMatch(/turn 2: \d+ departures?/);
      expect(output).toMatch(/book_flight ended approval_required in the recording, ok in the replay/);
      expect(output).toMatch(/recorded approval-request, replayed response/);
      expect(output).not.toMatch(/turn 1:/);
      expect(code).toBe(1);
    } finally {
      rmSync(changedApp, { recursive: true, force: true });
    }
  });
});
