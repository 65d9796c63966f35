/**
 * The peer of `npm run bench -- --peers`: a minimal bot on Vercel's Chat SDK (`chat`), written the
 * way its documentation shows (a `Chat` with the Slack adapter and the Redis state adapter, one
 * `onDirectMessage` handler that asks the model and posts the answer in the thread), served by a
 * plain `node:http` server that hands each request to `bot.webhooks.slack` as a web `Request`.
 * Everything is the SDK's defaults except what points it at the bench: the fake Slack Web API,
 * the bench's Redis and key prefix, silent logs.
 *
 * The model is the bench's instant model (bench/instant-model.ts), called once per message with
 * the message's text, exactly as switchboard's turn calls it; the answer is the text of its
 * `respond` call.
 *
 * Run as `node bench/peers/chat-sdk-bot.ts '<json config>'` by the bench (see `child-side.ts`).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createSlackAdapter } from '@chat-adapter/slack';
import { createRedisState } from '@chat-adapter/state-redis';
import { Chat, ConsoleLogger, type Adapter } from 'chat';
import type { ModelRequest } from '../../src/runtime/model/model-types.ts';
import { instantModel } from '../instant-model.ts';
import { childConfig, serveParent } from './child-side.ts';

/** What the bench starts the bot with. */
export interface ChatSdkBotConfig {
  readonly redisUrl: string;
  /** The Redis key prefix of the state adapter. */
  readonly prefix: string;
  /** The Web API base URL (the fake Slack's `…/api/`). */
  readonly slackApiUrl: string;
  readonly botToken: string;
  readonly signingSecret: string;
}

/** The model request of one message: its text as the last user message. */
function modelRequest(text: string): ModelRequest {
  return {
    model: 'bench',
    maxTokens: 1024,
    system: [{ type: 'text', text: 'You are the bench bot.' }],
    tools: [],
    toolChoice: 'any',
    messages: [{ role: 'user', content: [{ type: 'text', text }] }],
  };
}

/** Asks the model about `text`; the text of the parts it answered with. */
async function answer(text: string): Promise<string> {
  const response = await instantModel.create(modelRequest(text));
  const parts = response.content.flatMap((block) => (block.type === 'tool_use' ? ((block.input as { parts?: { text?: string }[] }).parts ?? []) : []));
  return parts.map((part) => part.text ?? '').join('\n');
}

const config = childConfig() as ChatSdkBotConfig;
const silent = new ConsoleLogger('silent');
// The SDK's declarations are written without `exactOptionalPropertyTypes` (this repository's
// setting), under which its `SlackAdapter` no longer fits its own `Adapter`: the cast is only that.
const slack = createSlackAdapter({ botToken: config.botToken, signingSecret: config.signingSecret, apiUrl: config.slackApiUrl, logger: silent }) as unknown as Adapter;
const bot = new Chat({
  userName: 'bench-bot',
  adapters: { slack },
  state: createRedisState({ url: config.redisUrl, keyPrefix: config.prefix, logger: silent }),
  logger: silent,
});

bot.onDirectMessage(async (thread, message) => {
  await thread.post(await answer(message.text));
});

/** Handler work still running after its webhook was answered (the SDK hands it to `waitUntil`). */
const background = new Set<Promise<unknown>>();

function waitUntil(task: Promise<unknown>): void {
  const tracked = task.catch(() => undefined).finally(() => background.delete(tracked));
  background.add(tracked);
}

/** A node request as the web `Request` the SDK takes. */
async function webRequest(req: IncomingMessage): Promise<Request> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (typeof value === 'string') headers.set(name, value);
    else if (Array.isArray(value)) for (const item of value) headers.append(name, item);
  }
  return new Request(`http://${req.headers.host ?? 'localhost'}${req.url ?? '/'}`, { method: req.method ?? 'GET', headers, body: Buffer.concat(chunks) });
}

async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
  if (req.method !== 'POST' || req.url !== '/slack/events') {
    res.writeHead(404).end();
    return;
  }
  const response = await bot.webhooks.slack(await webRequest(req), { waitUntil });
  res.writeHead(response.status, Object.fromEntries(response.headers));
  res.end(Buffer.from(await response.arrayBuffer()));
}

await bot.initialize();
const server = createServer((req, res) => {
  handle(req, res).catch((error: unknown) => {
    if (!res.headersSent) res.writeHead(500);
    res.end(String(error));
  });
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const { port } = server.address() as AddressInfo;
serveParent(`http://127.0.0.1:${port}`, async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => { resolve(); }));
  await Promise.all(background);
  await bot.shutdown();
});
