import type { ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { buildAgentCard } from '../../src/protocol/agent-card/agent-card.ts';
import { startFakeServer, readFakeRequest, type FakeRequest } from '../../test/support/fake-http.ts';
import type { ListeningServer } from '../../test/support/loopback-server.ts';
import { createPeerCards, DEFAULT_PEER_CARD_TTL_MS, type PeerCardsConfig } from './peer-cards.ts';

/** What the fake peer answers, by path prefix (`/<name>/.well-known/agent-card.json`). */
type Answer = (res: ServerResponse) => void | Promise<void>;

const card = (consumes: readonly string[]): unknown =>
  buildAgentCard({ name: 'Peer', description: 'A peer', url: 'https://peer.example.com/a2a', version: '1', skills: [], envelopeConsumes: consumes });

const json = (status: number, body: unknown): ((res: ServerResponse) => void) => (res) => {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(typeof body === 'string' ? body : JSON.stringify(body));
};

const answers = new Map<string, Answer>([
  ['beach', json(200, card(['domain-data', 'llm-context']))],
  ['plain', json(200, { name: 'not beach', capabilities: {} })],
  ['missing', json(404, { error: 'no card' })],
  ['garbage', json(200, 'this is not json')],
  ['list', json(200, [1, 2])],
  ['huge', json(200, { capabilities: {}, padding: 'x'.repeat(4096) })],
  ['silent', () => undefined],
  ['evolving', (res) => evolving(res)],
]);

/** The card of the `evolving` peer, which a test changes, and can hold until it lets it go. */
let evolvingCard: Answer = json(200, card(['domain-data']));
let evolvingGate: Promise<void> = Promise.resolve();
async function evolving(res: ServerResponse): Promise<void> {
  const answer = evolvingCard;
  await evolvingGate;
  await answer(res);
}

/** Holds the `evolving` peer's answers until the returned function is called. */
function holdEvolving(): () => void {
  let release = (): void => undefined;
  evolvingGate = new Promise((resolve) => { release = resolve; });
  return release;
}

/** Settles with `'waited'` when `answer` takes longer than `ms`. */
async function within<T>(answer: Promise<T>, ms: number): Promise<T | 'waited'> {
  let timer: NodeJS.Timeout | undefined;
  const waited = new Promise<'waited'>((resolve) => { timer = setTimeout(() => { resolve('waited'); }, ms); });
  try {
    return await Promise.race([answer, waited]);
  } finally {
    clearTimeout(timer);
  }
}

let server: ListeningServer;
const received: FakeRequest[] = [];

beforeAll(async () => {
  const started = await startFakeServer(
    async (req, res) => {
      const request = await readFakeRequest(req);
      received.push(request);
      const name = request.pathname.split('/')[1] ?? '';
      const answer = request.pathname === `/${name}/.well-known/agent-card.json` ? answers.get(name) : undefined;
      if (answer === undefined) json(500, { error: 'unexpected path' })(res);
      else await answer(res);
    },
    (res, message) => { json(500, { error: message })(res); },
  );
  server = started.listening;
});

afterAll(async () => {
  await server.close();
});

/** A clock the test moves by hand. */
function manualClock(): { now: () => Date; advance: (ms: number) => void } {
  let at = Date.parse('2025-01-01T00:00:00Z');
  return { now: () => new Date(at), advance: (ms) => { at += ms; } };
}

function hits(name: string): number {
  return received.filter((request) => request.pathname.startsWith(`/${name}/`)).length;
}

function cards(overrides: Partial<PeerCardsConfig> = {}): { cards: ReturnType<typeof createPeerCards>; clock: ReturnType<typeof manualClock>; failures: string[] } {
  const clock = manualClock();
  const failures: string[] = [];
  return {
    cards: createPeerCards({ fetch: globalThis.fetch, clock: clock.now, timeoutMs: 2_000, onFailure: (id, reason) => failures.push(`${id}: ${reason}`), ...overrides }),
    clock,
    failures,
  };
}

const peer = (name: string, id = name): { id: string; url: string } => ({ id, url: `${server.origin}/${name}` });

describe('createPeerCards', () => {
  it('reads envelopeConsumes from the Beach extension, once per ttl, with one fetch for concurrent callers', async () => {
    const { cards: subject, clock } = cards();
    const before = hits('beach');
    const [first, second] = await Promise.all([subject.consumes(peer('beach')), subject.consumes(peer('beach'))]);
    expect(first).toEqual(['domain-data', 'llm-context']);
    expect(second).toEqual(first);
    expect(hits('beach') - before).toBe(1);
    const request = received.at(-1);
    expect(request?.method).toBe('GET');
    expect(request?.headers['a2a-version']).toBe('1.0');

    clock.advance(DEFAULT_PEER_CARD_TTL_MS - 1);
    await subject.consumes(peer('beach'));
    expect(hits('beach') - before).toBe(1);
    clock.advance(1);
    expect(await subject.consumes(peer('beach'))).toEqual(['domain-data', 'llm-context']);
    await vi.waitFor(() => { expect(hits('beach') - before).toBe(2); });
  });

  it('prefers the configured consumes and fetches nothing for it, nor for a peer without a url', async () => {
    const { cards: subject } = cards();
    const before = received.length;
    expect(await subject.consumes({ ...peer('beach'), consumes: ['artifact'] })).toEqual(['artifact']);
    expect(await subject.consumes({ id: 'no-url' })).toEqual([]);
    expect(received.length).toBe(before);
  });

  it('answers [] for a card without the Beach extension', async () => {
    const { cards: subject, failures } = cards();
    expect(await subject.consumes(peer('plain'))).toEqual([]);
    expect(failures).toEqual([]);
  });

  it('answers [] when the card cannot be read, remembers that briefly, then tries again', async () => {
    const { cards: subject, clock, failures } = cards({ failureTtlMs: 1_000 });
    for (const name of ['missing', 'garbage', 'list']) expect(await subject.consumes(peer(name)), name).toEqual([]);
    expect(failures).toEqual([
      'missing: GET /.well-known/agent-card.json answered 404',
      expect.stringMatching(/^garbage: .*JSON/),
      'list: the card is not a JSON object',
    ]);
    const before = hits('missing');
    await subject.consumes(peer('missing'));
    expect(hits('missing')).toBe(before);
    clock.advance(1_000);
    await subject.consumes(peer('missing'));
    await vi.waitFor(() => { expect(hits('missing')).toBe(before + 1); });
  });

  it('gives up on a card larger than maxBytes, or one that does not arrive within timeoutMs', async () => {
    const { cards: subject, failures } = cards({ maxBytes: 1_024, timeoutMs: 100 });
    expect(await subject.consumes(peer('huge'))).toEqual([]);
    expect(await subject.consumes(peer('silent'))).toEqual([]);
    expect(failures).toEqual(['huge: the card is larger than 1024 bytes', expect.stringMatching(/^silent: /)]);
  });

  it('answers [] for a peer that cannot be reached', async () => {
    const { cards: subject, failures } = cards();
    expect(await subject.consumes({ id: 'gone', url: 'http://127.0.0.1:1' })).toEqual([]);
    expect(failures).toHaveLength(1);
  });

  describe('once a peer’s consumes are known', () => {
    it('answers from the cache at once when it is stale, refreshes it in the background (one refresh at a time), then answers the refreshed card', async () => {
      evolvingCard = json(200, card(['domain-data']));
      evolvingGate = Promise.resolve();
      const { cards: subject, clock } = cards({ timeoutMs: 5_000 });
      const before = hits('evolving');
      // Only the very first call waits for the card.
      expect(await subject.consumes(peer('evolving'))).toEqual(['domain-data']);
      expect(hits('evolving') - before).toBe(1);

      evolvingCard = json(200, card(['domain-data', 'llm-context']));
      const release = holdEvolving();
      clock.advance(DEFAULT_PEER_CARD_TTL_MS);
      try {
        // The card is stale and its fetch is held: the answer is the cached one, at once.
        expect(await within(subject.consumes(peer('evolving')), 500)).toEqual(['domain-data']);
        await vi.waitFor(() => { expect(hits('evolving') - before).toBe(2); });
        // While the refresh runs, callers still get the cached answer, and no second fetch starts.
        expect(await within(subject.consumes(peer('evolving')), 500)).toEqual(['domain-data']);
      } finally {
        release();
      }
      await vi.waitFor(async () => { expect(await subject.consumes(peer('evolving'))).toEqual(['domain-data', 'llm-context']); });
      expect(hits('evolving') - before).toBe(2);
    });

    it('keeps the last good answer when a refresh fails, says why, and tries again after failureTtlMs', async () => {
      evolvingCard = json(200, card(['domain-data', 'a2ui-surface']));
      evolvingGate = Promise.resolve();
      const { cards: subject, clock, failures } = cards({ failureTtlMs: 1_000 });
      const before = hits('evolving');
      expect(await subject.consumes(peer('evolving', 'flaky'))).toEqual(['domain-data', 'a2ui-surface']);

      evolvingCard = json(503, { error: 'down' });
      clock.advance(DEFAULT_PEER_CARD_TTL_MS);
      expect(await subject.consumes(peer('evolving', 'flaky'))).toEqual(['domain-data', 'a2ui-surface']);
      await vi.waitFor(() => { expect(failures).toEqual(['flaky: GET /.well-known/agent-card.json answered 503']); });
      // The failed refresh did not replace the answer with [].
      expect(await subject.consumes(peer('evolving', 'flaky'))).toEqual(['domain-data', 'a2ui-surface']);
      expect(hits('evolving') - before).toBe(2);

      // Retried after failureTtlMs, in the background again.
      evolvingCard = json(200, card(['llm-context']));
      clock.advance(1_000);
      expect(await subject.consumes(peer('evolving', 'flaky'))).toEqual(['domain-data', 'a2ui-surface']);
      await vi.waitFor(async () => { expect(await subject.consumes(peer('evolving', 'flaky'))).toEqual(['llm-context']); });
      expect(hits('evolving') - before).toBe(3);
    });

    it('answers a card that could not be read at first with [] at once from then on, and picks the card up once it can be read', async () => {
      evolvingCard = json(404, { error: 'not yet' });
      evolvingGate = Promise.resolve();
      const { cards: subject, clock, failures } = cards({ failureTtlMs: 1_000 });
      expect(await subject.consumes(peer('evolving', 'late'))).toEqual([]);
      expect(failures).toHaveLength(1);
      evolvingCard = json(200, card(['llm-context']));
      const release = holdEvolving();
      clock.advance(1_000);
      try {
        expect(await within(subject.consumes(peer('evolving', 'late')), 500)).toEqual([]);
      } finally {
        release();
      }
      await vi.waitFor(async () => { expect(await subject.consumes(peer('evolving', 'late'))).toEqual(['llm-context']); });
    });
  });
});
