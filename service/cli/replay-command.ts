/**
 * `switchboard replay <conversation> [--turn N] [--export <file>]`: a recorded conversation run
 * again on the app's current actors and tools, in a throwaway session on a private Redis, with the
 * recorded model responses and tool results; prints where the run departs from the recording.
 */
import type { Writable } from 'node:stream';
import type { StoredEventLogEntry } from '../../src/runtime/session/event-log.ts';
import { sessionIdOf } from '../../src/runtime/session/session-id.ts';
import { writeFixture } from '../replay/fixture-file.ts';
import { readRecording, type CaptureSource } from '../replay/read-recording.ts';
import { replayOn } from '../replay/replay-fixture.ts';
import { formatReplayReport } from '../replay/replay-report.ts';
import { openBot } from '../testing/bot-core.ts';

/** What the command needs. */
export interface ReplayCommandDeps {
  /** Reads a session's event log, oldest first, from the deployment's Redis. */
  readLog(sessionId: string): Promise<StoredEventLogEntry[]>;
  /** The capture store, where the model calls' full requests and responses are kept when capture is on. */
  readonly capture?: CaptureSource;
  /** The app folder whose current actors and tools replay it. */
  readonly appDir: string;
}

interface ReplayArgs {
  readonly conversation: string;
  readonly turn?: number;
  readonly exportTo?: string;
}

const USAGE = 'usage: switchboard replay <conversation> [--turn N] [--export <file>]   (conversation: a session id ses_…, or <channel>:<address>)';

function parseArgs(args: readonly string[]): ReplayArgs | string {
  let conversation: string | undefined;
  let turn: number | undefined;
  let exportTo: string | undefined;
  for (let index = 0; index < args.length; index += 1) {
    const arg = args[index] ?? '';
    if (arg === '--turn') {
      turn = Number(args[++index]);
      if (!Number.isInteger(turn) || turn < 1) return '--turn takes a turn number, counted from 1.';
    } else if (arg === '--export') {
      exportTo = args[++index];
      if (exportTo === undefined || exportTo.startsWith('--')) return '--export takes a file name (.yaml, or .json for JSON).';
    } else if (arg.startsWith('--') || conversation !== undefined) {
      return `unexpected "${arg}".`;
    } else {
      conversation = arg;
    }
  }
  if (conversation === undefined) return 'which conversation? Give its session id (ses_…) or <channel>:<address>.';
  return { conversation, ...(turn === undefined ? {} : { turn }), ...(exportTo === undefined ? {} : { exportTo }) };
}

/**
 * The session id of a conversation as the command takes it: a session id (`ses_…`, as the
 * inspector shows it) as it is, or `<channel>:<address>` (the channel's conversation key: a web
 * conversation id, a phone number, an email thread) of the default tenant.
 */
export function sessionIdFor(conversation: string): string | undefined {
  if (conversation.startsWith('ses_')) return conversation;
  const colon = conversation.indexOf(':');
  if (colon <= 0 || colon === conversation.length - 1) return undefined;
  return sessionIdOf('default', conversation.slice(0, colon), conversation.slice(colon + 1));
}

/**
 * Runs the command; resolves to its exit code: 0 when the replay departs nowhere from the
 * recording, 1 when it does, 2 when it cannot run (bad arguments, no log, responses not recorded).
 */
export async function runReplayCommand(args: readonly string[], deps: ReplayCommandDeps, out: Writable): Promise<number> {
  const parsed = parseArgs(args);
  if (typeof parsed === 'string') {
    out.write(`switchboard replay: ${parsed}\n${USAGE}\n`);
    return 2;
  }
  const sessionId = sessionIdFor(parsed.conversation);
  if (sessionId === undefined) {
    out.write(`switchboard replay: "${parsed.conversation}" is neither a session id (ses_…) nor <channel>:<address>.\n`);
    return 2;
  }
  const entries = await deps.readLog(sessionId);
  if (entries.length === 0) {
    out.write(`switchboard replay: session ${sessionId} has no event log here (never written, or expired).\n`);
    return 2;
  }
  const recording = await readRecording(sessionId, entries, deps.capture);
  if (recording.missing.length > 0) {
    out.write(`switchboard replay: ${sessionId} cannot be replayed: capture was off when it was recorded, so the model's responses were not kept.\n`);
    for (const line of recording.missing) out.write(`  ${line}\n`);
    return 2;
  }
  const fixture = parsed.turn === undefined ? recording.fixture : { ...recording.fixture, turns: recording.fixture.turns.filter((_turn, index) => index + 1 === parsed.turn) };
  if (fixture.turns.length === 0) {
    out.write(`switchboard replay: ${sessionId} has no turn ${String(parsed.turn)} (it has ${String(recording.fixture.turns.length)}).\n`);
    return 2;
  }
  const parts = await openBot({ app: deps.appDir });
  try {
    if (parsed.exportTo !== undefined) {
      await writeFixture(parsed.exportTo, { ...fixture, source: { ...fixture.source, app: parts.app.name, exportedAt: new Date().toISOString() } });
      out.write(`Wrote the conversation to ${parsed.exportTo}; replayFixture(bot, file) of switchboard/testing runs it as a test.\n`);
    }
    const report = await replayOn(parts, recording.fixture, parsed.turn === undefined ? {} : { turn: parsed.turn });
    out.write(formatReplayReport(sessionId, parts.app.name, report));
    return report.departures.length === 0 ? 0 : 1;
  } finally {
    await parts.close();
  }
}
