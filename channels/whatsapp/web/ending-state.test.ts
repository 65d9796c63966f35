import { describe, expect, it } from 'vitest';
import { endingState } from './ending-state.ts';

describe('endingState', () => {
  it('after a log-out clears the session and says to scan again', () => {
    const { update, clearSession } = endingState({ kind: 'disconnected', reason: 'LOGOUT' }, 500, '+447700900999');
    expect(clearSession).toBe(true);
    expect(update).toMatchObject({ status: 'logged-out', number: '+447700900999' });
    expect(update.alert).toBe('The phone logged this linked device out (WhatsApp › Linked devices). The kept session was cleared; a new session starts in 0.5 s: scan its QR code to link again.');
  });

  it('after a drop keeps the session and names the reason and the delay', () => {
    const { update, clearSession } = endingState({ kind: 'disconnected', reason: 'TIMEOUT' }, 60_000, undefined);
    expect(clearSession).toBe(false);
    expect(update).toEqual({ status: 'disconnected', detail: 'TIMEOUT', alert: 'The WhatsApp Web session dropped (TIMEOUT); a new session starts in 60.0 s.' });
  });

  it('clears a refused session, and reports a client that did not start', () => {
    expect(endingState({ kind: 'auth-failed', detail: 'bad session' }, 1000, undefined)).toMatchObject({ clearSession: true, update: { status: 'auth-failed', detail: 'bad session' } });
    const failed = endingState({ kind: 'failed', error: new Error('No browser named chromium on PATH.') }, 2000, undefined);
    expect(failed).toMatchObject({ clearSession: false, update: { status: 'disconnected', detail: 'No browser named chromium on PATH.' } });
    expect(failed.update.alert).toBe('WhatsApp Web did not run: No browser named chromium on PATH.; a new session starts in 2.0 s.');
  });
});
