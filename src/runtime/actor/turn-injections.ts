import { injectionLogData, injectionMessage } from './injection-message.ts';
import type { LiveTurn } from './live-turn.ts';
import type { ResolvedActor } from './resolved-actor.ts';
import { untrustedReadsOf, withReads } from './tainted-turn.ts';
import type { TurnRunnerDeps } from './turn-runner-deps.ts';
import { undeliveredNotice } from './undelivered-notice.ts';

/**
 * Gives the model the injections it has not seen yet, as one user message, logging each. Under
 * `steer` (the channel's `midTurn`, else the actor's) it first takes every injection that arrived
 * mid-turn; otherwise only the turn's first step gets injections. Untrusted ones taint the turn.
 * The first ones are preceded by a note of messages earlier turns may have failed to deliver.
 */
export async function gatherInjections(deps: TurnRunnerDeps, turn: LiveTurn, actor: ResolvedActor): Promise<void> {
  const midTurn = deps.channelRoute?.(turn.record.replyTo.channel)?.midTurn ?? actor.config.midTurn;
  if (midTurn !== 'steer' && turn.record.given !== 0) return;
  if (midTurn === 'steer') turn.inbox = await deps.store.steer(turn.record.sessionId);
  const fresh = turn.inbox.slice(turn.record.given);
  if (fresh.length === 0) return;
  const untrustedReads = withReads(turn.record.untrustedReads, untrustedReadsOf(fresh));
  const message = injectionMessage(fresh);
  // The turn's first injections also carry what earlier turns may have failed to deliver (unless
  // its begin found no such note).
  const missed = turn.record.given === 0 && turn.notesWaiting !== false ? ((await deps.takeUndelivered?.(turn.record.sessionId)) ?? []) : [];
  turn.record = {
    ...turn.record,
    given: turn.inbox.length,
    messages: [...turn.record.messages, missed.length === 0 ? message : { ...message, content: [undeliveredNotice(missed), ...message.content] }],
    ...(untrustedReads === undefined ? {} : { untrustedReads }),
  };
  const { sessionId, turnId, actor: actorName } = turn.record;
  for (const injection of fresh) {
    await deps.log.append(sessionId, { type: 'injection', turnId, actor: actorName, data: injectionLogData(injection) });
  }
}
