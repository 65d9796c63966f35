/**
 * What the operator is told when a client's life ended, and whether the kept session must go: a
 * log-out on the phone or a refused session cannot be resumed, so the next client shows a new QR.
 */
import type { LinkStateUpdate } from './link-state.ts';
import type { WebClientEnding } from './run-web-client.ts';

/** The link state to record for `ending`, and whether to clear the kept session first. */
export interface EndingState {
  readonly update: LinkStateUpdate;
  readonly clearSession: boolean;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * The state after `ending` (not `stopped`), with a new client due in `delayMs` milliseconds.
 *
 * @param number - The linked number, E.164, when it was known.
 */
export function endingState(ending: Exclude<WebClientEnding, { kind: 'stopped' }>, delayMs: number, number: string | undefined): EndingState {
  const again = `a new session starts in ${(delayMs / 1000).toFixed(1)} s`;
  const withNumber = number === undefined ? {} : { number };
  switch (ending.kind) {
    case 'disconnected':
      if (ending.reason === 'LOGOUT') {
        return {
          clearSession: true,
          update: {
            status: 'logged-out',
            detail: 'LOGOUT',
            alert: `The phone logged this linked device out (WhatsApp › Linked devices). The kept session was cleared; ${again}: scan its QR code to link again.`,
            ...withNumber,
          },
        };
      }
      return { clearSession: false, update: { status: 'disconnected', detail: ending.reason, alert: `The WhatsApp Web session dropped (${ending.reason}); ${again}.`, ...withNumber } };
    case 'auth-failed':
      return {
        clearSession: true,
        update: {
          status: 'auth-failed',
          detail: ending.detail,
          alert: `WhatsApp refused the kept session (${ending.detail}). It was cleared; ${again}: scan its QR code to link again.`,
          ...withNumber,
        },
      };
    case 'failed':
      return { clearSession: false, update: { status: 'disconnected', detail: messageOf(ending.error), alert: `WhatsApp Web did not run: ${messageOf(ending.error)}; ${again}.`, ...withNumber } };
  }
}
