/**
 * Which envelope part types a peer consumes: its `consumes` in `switchboard.yaml`, else what its
 * Agent Card's Beach extension declares (`envelopeConsumes`), fetched and cached for a while.
 */
import { beachEnvelopeConsumes } from '../../src/protocol/agent-card/beach-extension.ts';
import type { PeerConfig } from '../../src/runtime/app/app-types.ts';

/** Default of {@link PeerCardsConfig.ttlMs}: five minutes. */
export const DEFAULT_PEER_CARD_TTL_MS = 5 * 60_000;

/** Default of {@link PeerCardsConfig.failureTtlMs}: thirty seconds. */
export const DEFAULT_PEER_CARD_FAILURE_TTL_MS = 30_000;

/** Default of {@link PeerCardsConfig.timeoutMs}: ten seconds. */
export const DEFAULT_PEER_CARD_TIMEOUT_MS = 10_000;

/** Default of {@link PeerCardsConfig.maxBytes}: 1 MiB. */
export const DEFAULT_PEER_CARD_MAX_BYTES = 1024 * 1024;

/** Where a peer's Agent Card is, relative to its base URL. */
export const AGENT_CARD_PATH = '/.well-known/agent-card.json';

/** Options of {@link createPeerCards}. */
export interface PeerCardsConfig {
  /** Fetches the cards (the global `fetch`, or a test's). */
  readonly fetch: typeof globalThis.fetch;
  /** How long a card read successfully is trusted before it is refreshed in the background, in milliseconds. Default {@link DEFAULT_PEER_CARD_TTL_MS} (5 minutes). */
  readonly ttlMs?: number;
  /** How long after a failed fetch the card is fetched again (in the background; meanwhile the last answer, `[]` when none was read, stays), in milliseconds. Default {@link DEFAULT_PEER_CARD_FAILURE_TTL_MS} (30 s). */
  readonly failureTtlMs?: number;
  /** How long one fetch (headers and body) may take, in milliseconds. Default {@link DEFAULT_PEER_CARD_TIMEOUT_MS} (10 s). */
  readonly timeoutMs?: number;
  /** The largest card body read, in bytes; a larger one is a failure. Default {@link DEFAULT_PEER_CARD_MAX_BYTES} (1 MiB). */
  readonly maxBytes?: number;
  /** The current time. Default `() => new Date()`. */
  readonly clock?: () => Date;
  /** Told why a peer's card could not be read (for a log line; the last answer, or `[]`, stays). Default: nothing. */
  readonly onFailure?: (peerId: string, reason: string) => void;
}

/** The part types peers consume; see {@link createPeerCards}. */
export interface PeerCards {
  /**
   * The envelope part types `peer` consumes: `peer.consumes` when set; `[]` for a peer without a
   * `url`; else the `envelopeConsumes` of the Beach extension of the card at
   * `<url>/.well-known/agent-card.json`, `[]` when the card has none or none could be read yet.
   * Waits only for the first fetch of a peer's card; later calls answer from the cache at once.
   * Never rejects.
   */
  consumes(peer: Pick<PeerConfig, 'id' | 'url' | 'consumes'>): Promise<readonly string[]>;
}

interface CacheEntry {
  /** The answer: the consumes of the last card read, `[]` while none could be read. */
  answer: readonly string[];
  /** When the answer is refreshed, in epoch milliseconds; `Infinity` until the first fetch ends (callers wait for it). */
  staleAtMs: number;
  /** The fetch that runs (the first one, or a refresh); never rejects. */
  pending: Promise<readonly string[]> | undefined;
}

/** Reads `response`'s body as text, failing (and cancelling the body) when it exceeds `maxBytes`. */
async function readBounded(response: Response, maxBytes: number): Promise<string> {
  const body = response.body as ReadableStream<Uint8Array> | null;
  if (body === null) return '';
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel();
      throw new Error(`the card is larger than ${String(maxBytes)} bytes`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * Creates the cache of peers' card-declared part types. It is read on the delivery path, so only
 * the first call for a peer waits for its card (concurrent callers share that fetch); from then
 * on the cached answer is given at once (stale-while-revalidate), and when it is older than
 * `ttlMs` a refresh runs in the background (one at a time per peer) whose result later callers
 * get. A failed fetch (network error, timeout, a status other than 2xx, a body that is not a JSON
 * object or is too large) is told to `onFailure` and keeps the last answer (`[]` when no card was
 * ever read, so a peer whose card cannot be read gets no `llm-context`); it is tried again after
 * `failureTtlMs`.
 *
 * @example
 * const cards = createPeerCards({ fetch: globalThis.fetch });
 * const wantsContext = (await cards.consumes(peer)).includes('llm-context');
 */
export function createPeerCards(config: PeerCardsConfig): PeerCards {
  const ttlMs = config.ttlMs ?? DEFAULT_PEER_CARD_TTL_MS;
  const failureTtlMs = config.failureTtlMs ?? DEFAULT_PEER_CARD_FAILURE_TTL_MS;
  const timeoutMs = config.timeoutMs ?? DEFAULT_PEER_CARD_TIMEOUT_MS;
  const maxBytes = config.maxBytes ?? DEFAULT_PEER_CARD_MAX_BYTES;
  const now = (): number => (config.clock?.() ?? new Date()).getTime();
  const cache = new Map<string, CacheEntry>();

  const fetchConsumes = async (url: string): Promise<readonly string[]> => {
    const response = await config.fetch(`${url}${AGENT_CARD_PATH}`, {
      headers: { accept: 'application/json', 'a2a-version': '1.0' },
      redirect: 'follow',
      signal: AbortSignal.timeout(timeoutMs),
    });
    if (!response.ok) {
      await response.body?.cancel();
      throw new Error(`GET ${AGENT_CARD_PATH} answered ${String(response.status)}`);
    }
    const card: unknown = JSON.parse(await readBounded(response, maxBytes));
    if (typeof card !== 'object' || card === null || Array.isArray(card)) throw new Error('the card is not a JSON object');
    return beachEnvelopeConsumes(card);
  };

  /** Fetches the card into `entry`; the promise never rejects and is kept in `entry.pending` while it runs. */
  const refresh = (entry: CacheEntry, peerId: string, url: string): Promise<readonly string[]> => {
    const run = fetchConsumes(url).then(
      (consumes) => {
        entry.answer = consumes;
        entry.staleAtMs = now() + ttlMs;
      },
      (error: unknown) => {
        // The last answer stays.
        entry.staleAtMs = now() + failureTtlMs;
        try {
          config.onFailure?.(peerId, error instanceof Error ? error.message : String(error));
        } catch {
          // A failing log line must not make the refresh reject (nobody awaits a background one).
        }
      },
    ).then(() => {
      entry.pending = undefined;
      return entry.answer;
    });
    entry.pending = run;
    return run;
  };

  return {
    consumes: (peer) => {
      if (peer.consumes !== undefined) return Promise.resolve(peer.consumes);
      if (peer.url === undefined) return Promise.resolve([]);
      const key = `${peer.id} ${peer.url}`;
      const cached = cache.get(key);
      if (cached === undefined) {
        const entry: CacheEntry = { answer: [], staleAtMs: Number.POSITIVE_INFINITY, pending: undefined };
        cache.set(key, entry);
        return refresh(entry, peer.id, peer.url);
      }
      // The first fetch runs: wait for it.
      if (cached.staleAtMs === Number.POSITIVE_INFINITY && cached.pending !== undefined) return cached.pending;
      // Stale: refresh in the background (the promise is held in `cached.pending`), answer now.
      if (cached.pending === undefined && cached.staleAtMs <= now()) cached.pending = refresh(cached, peer.id, peer.url);
      return Promise.resolve(cached.answer);
    },
  };
}
