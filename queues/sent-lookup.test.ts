import { describe, expect, it } from 'vitest';
import { absentOnceSettled, SILENT_SETTLE_MS } from './sent-lookup.ts';

const SINCE = 1_800_000_000_000;

describe('absentOnceSettled', () => {
  it('waits the whole settle time after the intent when nothing says the sender is gone', () => {
    expect(absentOnceSettled({ since: SINCE }, 30_000, { now: SINCE + 29_000, afterSilenceMs: SILENT_SETTLE_MS })).toMatchObject({ kind: 'pending', retryAfterMs: 1_000 });
    expect(absentOnceSettled({ since: SINCE }, 30_000, { now: SINCE + 30_000 })).toEqual({ kind: 'absent' });
  });

  it('concludes sooner once the sender went silent, for a sender that calls the provider itself', () => {
    const intent = { since: SINCE, silentSince: SINCE + 2_000 };
    expect(absentOnceSettled(intent, 30_000, { now: SINCE + 11_000, afterSilenceMs: SILENT_SETTLE_MS })).toMatchObject({ kind: 'pending', retryAfterMs: 1_000 });
    expect(absentOnceSettled(intent, 30_000, { now: SINCE + 12_000, afterSilenceMs: SILENT_SETTLE_MS })).toEqual({ kind: 'absent' });
  });

  it('ignores the silence for a sender whose send another process makes (no afterSilenceMs)', () => {
    const intent = { since: SINCE, silentSince: SINCE + 2_000 };
    expect(absentOnceSettled(intent, 30_000, { now: SINCE + 12_000 })).toMatchObject({ kind: 'pending', retryAfterMs: 18_000 });
  });
});
