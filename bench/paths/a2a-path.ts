/**
 * The A2A path: a peer's JSON-RPC `SendMessage` on `POST /a2a/jsonrpc` (the bench app's peer, its
 * bearer token) to the answer, the settled task in the call's response. No provider: the answer is
 * written to the task in Redis and read back by the call's event bus.
 */
import { BENCH_APP_DIR, createA2aCaller, PEER_TOKEN, unthrottledA2a } from '../switchboard.ts';
import type { ChannelPath } from './channel-path.ts';

/** The A2A path. */
export const a2aPath: ChannelPath = {
  name: 'A2A (SendMessage)',
  label: 'a',
  note: 'A2A: no provider; a new task a message, the answer is the settled task the blocking SendMessage answers with (the bench app and its peer, rate limit lifted)',
  async start(context) {
    const service = await context.startService({ BENCH_PEER_TOKEN: PEER_TOKEN }, [unthrottledA2a], BENCH_APP_DIR);
    const caller = createA2aCaller(service.url ?? '');
    let listener: ((key: string) => void) | undefined;
    return {
      async send(key) {
        await caller.call(key);
        listener?.(key);
      },
      listen(next) {
        listener = next;
      },
      providerCalls: () => undefined,
      async close() {
        caller.close();
        await service.close();
      },
    };
  },
};
