/**
 * The A2A path: a peer's JSON-RPC `SendMessage` on `POST /a2a/jsonrpc` (the bench app's peer, its
 * bearer token) to the answer, the settled task in the call's response. No provider: the answer is
 * written to the task in Redis and read back by the call's event bus.
 */
import { randomUUID } from 'node:crypto';
import { createA2aChannelModule } from '../../channels/a2a/index.ts';
import { createJsonPoster } from '../http-post.ts';
import { BENCH_APP_DIR, PEER_TOKEN } from '../switchboard.ts';
import type { ChannelPath } from './channel-path.ts';

/** The `a2a` channel with a per-peer rate limit the bench never reaches. */
const a2aModule = createA2aChannelModule({ rate: { max: 1_000_000_000, windowMs: 60_000 } });

/** The A2A path. */
export const a2aPath: ChannelPath = {
  name: 'A2A (SendMessage)',
  label: 'a',
  note: 'A2A: no provider; a new task a message, the answer is the settled task the blocking SendMessage answers with (the bench app and its peer, rate limit lifted)',
  async start(context) {
    const service = await context.startService({ BENCH_PEER_TOKEN: PEER_TOKEN }, [a2aModule], BENCH_APP_DIR);
    const http = createJsonPoster(service.url ?? '');
    const headers = { authorization: `Bearer ${PEER_TOKEN}`, 'a2a-version': '1.0' };
    let listener: ((key: string) => void) | undefined;
    let id = 0;
    return {
      async send(key) {
        id += 1;
        const message = { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: key }] };
        const response = await http.post('/a2a/jsonrpc', { jsonrpc: '2.0', id, method: 'SendMessage', params: { message } }, headers);
        const answer = response.status === 200 ? (JSON.parse(response.body) as { result?: { task?: { status?: { state?: string } } } }) : undefined;
        if (answer?.result?.task?.status?.state !== 'TASK_STATE_COMPLETED') throw new Error(`SendMessage ${key} answered ${String(response.status)}: ${response.body.slice(0, 300)}`);
        listener?.(key);
      },
      listen(next) {
        listener = next;
      },
      providerCalls: () => undefined,
      async close() {
        http.close();
        await service.close();
      },
    };
  },
};
