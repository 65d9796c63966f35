import type { ResolvedActor } from './resolved-actor.ts';
import type { TurnScope } from './turn-end.ts';

/** What the person is told when the turn runs past its deadline. */
export const DEADLINE_TEXT = 'Sorry, this took longer than allowed, so I stopped. Please try again.';

/**
 * The actor now holding the turn; when no such actor exists, fails the turn (`unknown_actor`)
 * and returns `undefined`.
 */
export async function currentActor({ deps, turn, end }: TurnScope): Promise<ResolvedActor | undefined> {
  const actor = deps.actors.get(turn.record.actor);
  if (actor === undefined) await end.fail('unknown_actor', 'This conversation was handed to an assistant that does not exist.');
  return actor;
}

/**
 * The actor for the turn's next model call, after checking the turn may make one: it must be
 * within its deadline (`now()` against `deadlineAt`) and under the actor's `maxModelCalls`.
 * Otherwise fails the turn and returns `undefined`.
 */
export async function actorForNextStep(scope: TurnScope): Promise<ResolvedActor | undefined> {
  const { turn, end, now } = scope;
  const actor = await currentActor(scope);
  if (actor === undefined) return undefined;
  if (now() > Date.parse(turn.record.deadlineAt)) {
    await end.fail('deadline', DEADLINE_TEXT);
    return undefined;
  }
  if (turn.record.step >= actor.config.limits.maxModelCalls) {
    await end.fail('max_model_calls', 'Sorry, I could not finish this within my step limit. Please try again or simplify the request.');
    return undefined;
  }
  return actor;
}
