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
  /** How long a card read successfully is trusted, in milliseconds. Default {@link DEFAULT_PEER_CARD_TTL_MS} (5 minutes). */
  readonly ttlMs?: number;
  /** How long a failure is remembered (answering `[]`) before the card is fetched again, in milliseconds. Default {@link DEFAULT_PEER_CARD_FAILURE_TTL_MS} (30 s). */
  readonly failureTtlMs?: number;
  /** How long one fetch (headers and body) may take, in milliseconds. Default {@link DEFAULT_PEER_CARD_TIMEOUT_MS} (10 s). */
  readonly timeoutMs?: number;
  /** The largest card body read, in bytes; a larger one is a failure. Default {@link DEFAULT_PEER_CARD_MAX_BYTES} (1 MiB). */
  readonly maxBytes?: number;
  /** The current time. Default `() => new Date()`. */
  readonly clock?: () => Date;
  /** Told why a peer's card could not be read (for a log line; the answer is then `[]`). Default: nothing. */
  readonly onFailure?: (peerId: string, reason: string) => void;
}

/** The part types peers consume; see {@link createPeerCards}. */
export interface PeerCards {
  /**
   * The envelope part types `peer` consumes: `peer.consumes` when set; `[]` for a peer without a
   * `url`; else the `envelopeConsumes` of the Beach extension of the card at
   * `<url>/.well-known/agent-card.json`, `[]` when the card has none or cannot be read. Never rejects.
   */
  consumes(peer: Pick<PeerConfig, 'id' | 'url' | 'consumes'>): Promise<readonly string[]>;
}

interface CacheEntry {
  readonly answer: Promise<readonly string[]>;
  /** When the entry stops being used, in epoch milliseconds; `Infinity` while the fetch runs. */
  expiresAtMs: number;
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
 * Creates the cache of peers' card-declared part types. A card is fetched at most once per
 * `ttlMs` per peer (concurrent callers share one fetch); a failed fetch (network error, timeout, a
 * status other than 2xx, a body that is not a JSON object or is too large) answers `[]` for
 * `failureTtlMs`, so a peer whose card cannot be read gets no `llm-context`, and is retried later.
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

  return {
    consumes: (peer) => {
      if (peer.consumes !== undefined) return Promise.resolve(peer.consumes);
      if (peer.url === undefined) return Promise.resolve([]);
      const key = `${peer.id} ${peer.url}`;
      const cached = cache.get(key);
      if (cached !== undefined && cached.expiresAtMs > now()) return cached.answer;
      const entry: CacheEntry = {
        answer: fetchConsumes(peer.url).then(
          (consumes) => {
            entry.expiresAtMs = now() + ttlMs;
            return consumes;
          },
          (error: unknown) => {
            entry.expiresAtMs = now() + failureTtlMs;
            config.onFailure?.(peer.id, error instanceof Error ? error.message : String(error));
            return [];
          },
        ),
        expiresAtMs: Number.POSITIVE_INFINITY,
      };
      cache.set(key, entry);
      return entry.answer;
    },
  };
}
