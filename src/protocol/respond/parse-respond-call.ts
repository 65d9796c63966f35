import type { Part } from '../parts/part.ts';
import type { RespondCall } from './respond-call.ts';

/** Where a respond() call was made. */
export interface RespondCallOrigin {
  readonly sessionId: string;
  readonly turnId: string;
  readonly actorName: string;
  /** The model's tool_use id of this respond() call. */
  readonly toolUseId: string;
}

/** One part of a respond() call, as the runtime dispatches it. */
export interface PartReceivedEvent extends RespondCallOrigin {
  readonly type: 'partReceived';
  readonly part: Part;
  readonly partType: string;
  /** The turn state the call declared, carried on every part. */
  readonly turnState: string;
  /** Position of the part within its call, from 0. */
  readonly index: number;
}

/** The turn state a respond() call declared. Always the last event of a call. */
export interface TurnStateChangedEvent extends RespondCallOrigin {
  readonly type: 'turnStateChanged';
  readonly turnState: string;
  readonly passTo?: string;
  readonly note?: string;
}

/** An event derived from one respond() call. */
export type RespondEvent = PartReceivedEvent | TurnStateChangedEvent;

/**
 * Turns one validated respond() call into events: a `partReceived` per part, in order, then one
 * `turnStateChanged`.
 */
export function parseRespondCall(call: RespondCall, origin: RespondCallOrigin): RespondEvent[] {
  const events: RespondEvent[] = call.parts.map((part, index) => ({
    type: 'partReceived',
    ...origin,
    part,
    partType: part.metadata.partType,
    turnState: call.turnState,
    index,
  }));
  events.push({
    type: 'turnStateChanged',
    ...origin,
    turnState: call.turnState,
    ...(call.passTo === undefined ? {} : { passTo: call.passTo }),
    ...(call.note === undefined ? {} : { note: call.note }),
  });
  return events;
}
