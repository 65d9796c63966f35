import type { TurnScope } from './turn-end.ts';

/** Words of the error part of a turn stopped because its caller canceled it. */
const CANCELED_TEXT = 'The request was canceled, so I stopped before finishing it.';

/** Fails the turn (reason `canceled`) when its caller asked it to stop; whether it did. */
export async function stopped(scope: TurnScope): Promise<boolean> {
  if (scope.deps.stopRequested === undefined || !(await scope.deps.stopRequested(scope.turn.record))) return false;
  await scope.end.fail('canceled', CANCELED_TEXT);
  return true;
}
