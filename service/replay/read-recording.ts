/**
 * A recorded conversation, read from its session's event log (and the capture store, when capture
 * was on), as a {@link ReplayFixture}: each turn's injections, the model's responses in order, what
 * the tools answered, the approvals and what the turn did.
 */
import { RESPOND_TOOL_NAME } from '../../src/protocol/respond/respond-schema.ts';
import type { ContentProvenance } from '../../src/runtime/injection.ts';
import type { ModelOutputBlock } from '../../src/runtime/model/model-types.ts';
import type { StoredEventLogEntry } from '../../src/runtime/session/event-log.ts';
import { FIXTURE_FORMAT, type FixtureInjection, type FixtureResponse, type FixtureSender, type FixtureTurn, type ReplayFixture } from './fixture-types.ts';
import { numberField, objectField, objectsField, stringField } from './log-fields.ts';
import { traceOf } from './log-trace.ts';

/** A model call's full request and response, as the capture store keeps them when capture is on. */
export interface CapturedCall {
  readonly request: unknown;
  readonly response: unknown;
}

/** The capture store, as a replay reads it (`src/runtime/inspect/capture-store.ts`). */
export interface CaptureSource {
  read(sessionId: string, turnId: string, step: number): Promise<CapturedCall | undefined>;
}

/** What {@link readRecording} found. */
export interface Recording {
  readonly fixture: ReplayFixture;
  /** Recorded model responses that are not there (capture was off), one line each; the replay cannot run while any is. */
  readonly missing: readonly string[];
}

/** Text put in place of an injection's text when the recording did not keep it. */
export const UNRECORDED_TEXT = '(text not recorded)';

const UNTRUSTED_BLOCK = /^<untrusted_content [^>]*>\n([\s\S]*)\n<\/untrusted_content>$/;

/** Blocks of a model response in `value`, when it holds some. */
function blocksOf(value: unknown): ModelOutputBlock[] | undefined {
  const blocks = objectsField(value);
  if (blocks === undefined || blocks.length === 0) return undefined;
  const valid = blocks.every((block) => (block['type'] === 'text' && typeof block['text'] === 'string') || (block['type'] === 'tool_use' && typeof block['id'] === 'string' && typeof block['name'] === 'string'));
  return valid ? (blocks as unknown as ModelOutputBlock[]) : undefined;
}

/** The texts of the last user message of a captured request's `messages`. */
function requestTexts(request: unknown): string[] {
  const messages = objectsField(objectField(request)?.['messages']) ?? [];
  const last = [...messages].reverse().find((message) => message['role'] === 'user');
  return (objectsField(last?.['content']) ?? []).flatMap((block) => (block['type'] === 'text' && typeof block['text'] === 'string' ? [block['text']] : []));
}

/** The text as the person wrote it: a block of outside content unwrapped. */
function unwrapped(text: string): string {
  return UNTRUSTED_BLOCK.exec(text)?.[1] ?? text;
}

/** The text of part `partIndex` of respond() block `index` of `blocks`. */
function respondPartText(blocks: readonly ModelOutputBlock[] | undefined, index: number, partIndex: number): string | undefined {
  const block = blocks?.[index];
  if (block?.type !== 'tool_use' || block.name !== RESPOND_TOOL_NAME) return undefined;
  const part = objectsField(objectField(block.input)?.['parts'])?.[partIndex];
  return stringField(part?.['text']);
}

interface TurnReading {
  readonly turn: FixtureTurn;
  readonly missing: string[];
  readonly unrecordedTexts: number;
}

/** Reads one turn from its entries; `senders` maps injection ids to their senders. */
async function readTurn(sessionId: string, turnId: string, entries: readonly StoredEventLogEntry[], senders: ReadonlyMap<string, string>, capture: CaptureSource | undefined, number: number): Promise<TurnReading> {
  const missing: string[] = [];
  const injections: FixtureInjection[] = [];
  const pending: { index: number }[] = [];
  const responses: FixtureResponse[] = [];
  const stepBlocks = new Map<number, readonly ModelOutputBlock[]>();
  let unrecordedTexts = 0;
  for (const entry of entries) {
    const { data } = entry;
    if (entry.type === 'injection') {
      const kind = stringField(data['kind']);
      if (kind !== 'message' && kind !== 'user-action') continue;
      const text = stringField(data['text']);
      const content = objectField(data['content']);
      const action = objectField(data['action']);
      const senderId = stringField(data['sender']) ?? senders.get(stringField(data['id']) ?? '');
      const from: FixtureSender | undefined = senderId === undefined ? undefined : { address: senderId };
      injections.push({
        kind,
        channel: stringField(data['channel']) ?? 'web',
        text: text ?? UNRECORDED_TEXT,
        ...(content !== undefined && typeof content['source'] === 'string' && typeof content['trusted'] === 'boolean' ? { content: content as unknown as ContentProvenance } : {}),
        ...(from === undefined ? {} : { from }),
        ...(action === undefined ? {} : { action }),
      });
      if (text === undefined) pending.push({ index: injections.length - 1 });
    } else if (entry.type === 'model_request' && pending.length > 0) {
      const step = numberField(data['step']) ?? 0;
      const inline = objectField(data['captured']) ?? (Array.isArray(data['messages']) ? data : undefined);
      const request = inline ?? (await capture?.read(sessionId, turnId, step))?.request;
      const texts = requestTexts(request).slice(-pending.length);
      pending.forEach(({ index }, at) => {
        const known = injections[index];
        const text = texts.length === pending.length ? texts[at] : undefined;
        if (known !== undefined && text !== undefined) injections[index] = { ...known, text: unwrapped(text) };
      });
      pending.length = 0;
    } else if (entry.type === 'model_response') {
      const step = numberField(data['step']) ?? responses.length;
      const error = stringField(data['error']);
      if (error !== undefined) {
        responses.push({ error });
        continue;
      }
      const captured = blocksOf(data['content']) ?? blocksOf(data['blocks']) ?? blocksOf(objectField((await capture?.read(sessionId, turnId, step))?.response)?.['content']);
      if (captured === undefined) {
        missing.push(`turn ${String(number)} (${turnId}), model call ${String(step + 1)}: the model's response was not recorded (capture was off)`);
        continue;
      }
      stepBlocks.set(step, captured);
      responses.push({ blocks: captured });
    }
  }
  unrecordedTexts += injections.filter((injection) => injection.text === UNRECORDED_TEXT).length;
  const trace = traceOf(entries, (partId) => {
    const [, step, index, partIndex] = partId.split('.').map(Number);
    return step === undefined || index === undefined || partIndex === undefined ? undefined : respondPartText(stepBlocks.get(step), index, partIndex);
  });
  const actor = entries.find((entry) => entry.actor !== undefined)?.actor;
  const turn: FixtureTurn = { turnId, ...(actor === undefined ? {} : { actor }), injections, responses, toolCalls: trace.toolCalls, approvals: trace.approvals, outcome: trace.outcome };
  return { turn, missing, unrecordedTexts };
}

/**
 * Reads the recorded conversation of session `sessionId` from its log `entries` (oldest first),
 * asking `capture` for what the log does not hold. Turns come in the order they started.
 */
export async function readRecording(sessionId: string, entries: readonly StoredEventLogEntry[], capture?: CaptureSource): Promise<Recording> {
  const byTurn = new Map<string, StoredEventLogEntry[]>();
  const senders = new Map<string, string>();
  for (const entry of entries) {
    if (entry.type === 'sender_policy') {
      const id = stringField(entry.data['injectionId']);
      const sender = stringField(entry.data['sender']);
      if (id !== undefined && sender !== undefined) senders.set(id, sender);
    }
    if (entry.turnId === undefined) continue;
    const list = byTurn.get(entry.turnId) ?? [];
    list.push(entry);
    byTurn.set(entry.turnId, list);
  }
  const turns: FixtureTurn[] = [];
  const missing: string[] = [];
  let unrecorded = 0;
  for (const [turnId, turnEntries] of byTurn) {
    const reading = await readTurn(sessionId, turnId, turnEntries, senders, capture, turns.length + 1);
    // Entries of a turn this log does not hold the start of (trimmed away) make no turn.
    if (reading.turn.injections.length === 0 && reading.turn.responses.length === 0 && reading.missing.length === 0) continue;
    turns.push(reading.turn);
    missing.push(...reading.missing);
    unrecorded += reading.unrecordedTexts;
  }
  const channel = turns.flatMap((turn) => turn.injections)[0]?.channel ?? 'web';
  const notes = unrecorded === 0 ? [] : [`${String(unrecorded)} message text${unrecorded === 1 ? ' was' : 's were'} not recorded (capture off); replayed as "${UNRECORDED_TEXT}"`];
  return { fixture: { format: FIXTURE_FORMAT, source: { sessionId }, channel, ...(notes.length === 0 ? {} : { notes }), turns }, missing };
}
