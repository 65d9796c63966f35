/**
 * The `a2a` channel: other agents (known peers of `switchboard.yaml`) call ours over A2A v1.0
 * (JSON-RPC and HTTP+JSON, streaming and not), MCP and a webhook reply. Always on: without peers
 * every call is refused with 401. Its parts load (with the A2A and MCP SDKs) only when created.
 */
import type { ChannelModule, DoctorCheck } from '../channel.ts';
import type { A2aChannelOptions } from './adaptor.ts';

/** The `a2a` channel with non-default options; pass it in `startService({ channels })`. */
export function createA2aChannelModule(options: A2aChannelOptions = {}): ChannelModule {
  return {
    id: 'a2a',
    envVariables: ['PUBLIC_URL'],
    enabled: () => true,
    create: async (context) => (await import('./adaptor.ts')).createA2aAdaptor(context, options),
    doctor: (): Promise<readonly DoctorCheck[]> => Promise.resolve([{ name: 'a2a', status: 'ok', detail: 'peers call /a2a/jsonrpc, /a2a/rest, /mcp and /api/turns with their bearer tokens' }]),
  };
}

/** The `a2a` channel with the default options. */
export const a2aChannel: ChannelModule = createA2aChannelModule();
