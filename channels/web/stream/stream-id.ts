/**
 * Redis Stream entry ids (`<ms>-<seq>`), which are also the web chat's SSE event ids.
 */

const STREAM_ID = /^(\d{1,20})-(\d{1,20})$/;

/** Whether `value` is a full Redis Stream entry id such as `1700000000000-0`. */
export function isStreamId(value: string): boolean {
  return STREAM_ID.test(value);
}

/**
 * Compares two stream ids (or `0`, the id before every entry): negative when `a` is older than
 * `b`, zero when equal, positive when newer.
 */
export function compareStreamIds(a: string, b: string): number {
  const [aMs, aSeq] = split(a);
  const [bMs, bSeq] = split(b);
  if (aMs !== bMs) return aMs < bMs ? -1 : 1;
  if (aSeq !== bSeq) return aSeq < bSeq ? -1 : 1;
  return 0;
}

function split(id: string): readonly [bigint, bigint] {
  const match = STREAM_ID.exec(id);
  if (match === null) return [0n, 0n];
  return [BigInt(match[1] ?? '0'), BigInt(match[2] ?? '0')];
}
