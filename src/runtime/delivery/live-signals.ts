/**
 * Pacing of live signals on a provider's streaming channel (the Slack thread status): parts that
 * only a live view shows (a buffered transport drops them: `ack`, `thinking`, `progress`) are sent
 * only once the turn has run for a while, so a turn that answers quickly costs one provider call
 * (its answer), not three (status, answer, status cleared).
 *
 * A signal emitted before `delayMs` from the turn's start is held, the latest one replacing an
 * earlier one, and sent when the turn reaches that age, unless a message of the turn went out
 * first. A message of the turn waits for a signal send under way, so the two reach the provider
 * in order. The state lives in the worker's memory: a turn resumed elsewhere sends its signals at
 * once, and a held signal is lost with its process (it was only a status).
 */
import type { TurnRecord } from '../session/turn-record.ts';

/** What the pacer knows of one turn. */
interface TurnSignals {
  timer?: NodeJS.Timeout;
  held?: () => Promise<void>;
  /** A signal send under way. */
  sending?: Promise<void>;
  /** A signal went out after the turn's last message. */
  showing: boolean;
}

/** Options of {@link createLiveSignalPacer}. */
export interface LiveSignalPacerOptions {
  /** How long a turn runs before its signals are shown, in milliseconds. */
  readonly delayMs: number;
  /** Receives the error of a held signal's send (it has no caller to fail). */
  readonly onError: (error: Error) => void;
  /** Default `Date.now`. */
  readonly now?: () => number;
}

/** The pacer of one streaming provider channel; see the file's comment. */
export interface LiveSignalPacer {
  /** A signal of `turn` is ready: `send` runs now, later, or never. */
  signal(turn: TurnRecord, send: () => Promise<void>): Promise<void>;
  /** A message of the turn is about to go: a held signal is dropped; waits for one being sent. */
  message(turnId: string): Promise<void>;
  /** Whether a signal of the turn may still show (sent after its last message); `undefined` when unknown here. */
  showing(turnId: string): boolean | undefined;
  /** The turn settled: forget it. */
  forget(turnId: string): void;
}

function toError(thrown: unknown): Error {
  return thrown instanceof Error ? thrown : new Error(String(thrown));
}

/** Creates a pacer. */
export function createLiveSignalPacer(options: LiveSignalPacerOptions): LiveSignalPacer {
  const now = options.now ?? Date.now;
  const turns = new Map<string, TurnSignals>();
  const of = (turnId: string): TurnSignals => {
    let entry = turns.get(turnId);
    if (entry === undefined) {
      entry = { showing: false };
      turns.set(turnId, entry);
    }
    return entry;
  };
  const run = (entry: TurnSignals, send: () => Promise<void>): Promise<void> => {
    entry.showing = true;
    const sending = (entry.sending ?? Promise.resolve()).then(send);
    entry.sending = sending.catch(() => undefined);
    return sending;
  };

  return {
    async signal(turn, send) {
      const entry = of(turn.turnId);
      const wait = Date.parse(turn.startedAt) + options.delayMs - now();
      if (!(wait > 0)) {
        clearTimeout(entry.timer);
        delete entry.held;
        await run(entry, send);
        return;
      }
      entry.held = send;
      entry.timer ??= setTimeout(() => {
        delete entry.timer;
        const held = entry.held;
        delete entry.held;
        if (held !== undefined) run(entry, held).catch((thrown: unknown) => { options.onError(toError(thrown)); });
      }, wait);
      entry.timer.unref();
    },
    async message(turnId) {
      const entry = turns.get(turnId);
      if (entry === undefined) return;
      clearTimeout(entry.timer);
      delete entry.timer;
      delete entry.held;
      await entry.sending;
      entry.showing = false;
    },
    showing: (turnId) => turns.get(turnId)?.showing,
    forget(turnId) {
      clearTimeout(turns.get(turnId)?.timer);
      turns.delete(turnId);
    },
  };
}
