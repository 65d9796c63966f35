/**
 * SMS summaries end to end: a temporary copy of the example app (its real tools, the concierge's
 * prompt) with a person `ada` reachable by SMS, run with the web and SMS channels against Redis, a
 * fake model and the fake Twilio REST API.
 *
 * - Asked for: Ada, signed in on the web chat, books a flight, then asks "text me a summary"; the
 *   model calls upcoming_trips, then notify("me", sms, summary), and exactly one SMS reaches her
 *   number: the summary, word for word, in at most two segments.
 * - Scheduled: a schedule firing every second to `ada` runs the concierge on her behalf; each of
 *   its answers (the summary) reaches her by SMS, one text per tick's turn.
 *
 * The two run one after the other on two services, so that the schedule's texts do not mix with
 * the one asked for.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { stringify } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { smsSegments } from '../../channels/kit/render/sms-segments.ts';
import { smsChannel } from '../../channels/sms/index.ts';
import { issueSignInLink } from '../../channels/web/identity/sign-in-links.ts';
import { webChannel } from '../../channels/web/index.ts';
import { createWebEventStore, type WebEventStore } from '../../channels/web/stream/event-store.ts';
import { outboundQueueName } from '../../queues/outbound-queue.ts';
import { loadEnv } from '../../src/config/env.ts';
import { removeApps, writeApp, type AppFiles } from '../../src/runtime/app/app-test-fixtures.ts';
import { startService, type Service } from '../../service/create-service.ts';
import { createEventLog } from '../../src/runtime/session/event-log.ts';
import { sessionIdOf } from '../../src/runtime/session/session-id.ts';
import { appBookingLedger, type Booking } from '../../tools/_bookings.ts';
import { startFakeAnthropic } from '../fakes/fake-anthropic.ts';
import type { FakeAnthropic } from '../fakes/fake-anthropic-types.ts';
import { startFakeTwilio } from '../fakes/fake-twilio.ts';
import type { FakeTwilio } from '../fakes/fake-twilio-types.ts';
import { useRedis, uniquePrefix } from '../support/redis.ts';
import { part, reply, respond, scenarioScript, toolCall, type ScenarioCall } from '../support/scenario-model.ts';
import { settledTurns } from '../support/switchboard-harness.ts';
import { waitFor } from '../support/wait-for.ts';
import { createWebClient, type WebClient } from '../web/web-client.ts';

const ACCOUNT = `AC${'3'.repeat(32)}`;
const TOKEN = 'sms-summary-auth-token';
const BOT = '+15005550006';
const PUBLIC_URL = 'https://bot.example.com';
const ADA = '+15550107001';
/** The time upcoming_trips counts from, before every flight of the dataset (December 2026 on). */
const NOW = '2026-12-01T00:00:00Z';

const repoFile = (path: string): string => fileURLToPath(new URL(`../../${path}`, import.meta.url));

/**
 * The example app's tools and concierge, in a new temporary folder with its own ledger
 * (`<folder>/.data/bookings.jsonl`): each tool file builds the repository's tool around it.
 * book_flight skips approval (no fare is under the 50 it auto-approves; approvals are tested
 * elsewhere), and upcoming_trips counts from {@link NOW}, so the test does not age.
 */
function exampleApp(switchboard: Readonly<Record<string, unknown>>): string {
  const ledger = `appBookingLedger(new URL('..', import.meta.url))`;
  const importLedger = `import { appBookingLedger } from ${JSON.stringify(repoFile('tools/_bookings.ts'))};`;
  const files: AppFiles = {
    'switchboard.yaml': stringify(switchboard),
    'actors/concierge.yaml': readFileSync(repoFile('actors/concierge.yaml'), 'utf8'),
    'tools/search_flights.ts': `export { default } from ${JSON.stringify(repoFile('tools/search_flights.ts'))};\n`,
    'tools/format_itinerary.ts': `export { default } from ${JSON.stringify(repoFile('tools/format_itinerary.ts'))};\n`,
    'tools/book_flight.ts': [
      importLedger,
      `import { createBookFlightTool } from ${JSON.stringify(repoFile('tools/book_flight.ts'))};`,
      `export default { ...createBookFlightTool(${ledger}), requiresApproval: false };`,
      '',
    ].join('\n'),
    'tools/upcoming_trips.ts': [
      importLedger,
      `import { createUpcomingTripsTool } from ${JSON.stringify(repoFile('tools/upcoming_trips.ts'))};`,
      `export default createUpcomingTripsTool({ ledger: ${ledger}, clock: () => new Date(${JSON.stringify(NOW)}) });`,
      '',
    ].join('\n'),
  };
  return writeApp(files);
}

const ADA_PERSON = { id: 'ada', name: 'Ada Lovelace', addresses: { sms: [ADA] } };
const BASE = { app: 'sms-summary', entryActor: 'concierge', people: [ADA_PERSON] };

const redisUrl = useRedis();
let fake: FakeAnthropic;
let twilio: FakeTwilio;
let redis: Redis;

beforeAll(async () => {
  fake = await startFakeAnthropic();
  twilio = await startFakeTwilio({ accountSid: ACCOUNT, authToken: TOKEN, numbers: [BOT] });
  redis = new Redis(redisUrl());
});

afterAll(async () => {
  await redis.quit();
  await twilio.close();
  await fake.close();
  removeApps();
});

/** Starts the service on `appDir` with the web and SMS channels, as the SMS channel test does. */
async function startOn(appDir: string, prefix: string): Promise<Service> {
  const env = loadEnv(
    {
      ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: fake.url, LOG_LEVEL: 'silent', PUBLIC_URL, SWITCHBOARD_APP: appDir,
      TWILIO_ACCOUNT_SID: ACCOUNT, TWILIO_AUTH_TOKEN: TOKEN, TWILIO_SMS_FROM: BOT, TWILIO_API_URL: twilio.url,
    },
    { appDir },
  );
  return startService({ env, role: 'all', redisUrl: redisUrl(), logger: pino({ level: 'silent' }), prefix, port: 0, sessionLockTtlMs: 5000, jobLockDurationMs: 5000, channels: [webChannel, smsChannel] });
}

/** The `summary` of the upcoming_trips result in `call`, or `''`. */
function summaryIn(call: ScenarioCall): string {
  const result = call.toolResults[0];
  if (result === undefined || result.is_error === true) return '';
  const parsed = JSON.parse(result.content) as { summary?: unknown };
  return typeof parsed.summary === 'string' ? parsed.summary : '';
}

const texted = (): string[] => twilio.messages(ADA).map((message) => message.body);

/** Whether the SMS outbound queue of `prefix` has nothing waiting, running or set to retry. */
async function outboundIdle(prefix: string): Promise<boolean> {
  const queue = new Queue(outboundQueueName('sms'), { connection: { url: redisUrl() }, prefix });
  try {
    const counts = await queue.getJobCounts('waiting', 'active', 'delayed', 'prioritized');
    return Object.values(counts).every((count) => count === 0);
  } finally {
    await queue.close();
  }
}

describe('sms summary asked for on the web chat', () => {
  const prefix = uniquePrefix('sms-summary-asked');
  let appDir: string;
  let service: Service;
  let store: WebEventStore;
  let ada: WebClient;
  const summaries: string[] = [];
  const offered: string[] = [];

  beforeAll(async () => {
    appDir = exampleApp(BASE);
    service = await startOn(appDir, prefix);
    store = createWebEventStore({ redis, keyPrefix: prefix });
    const url = service.url ?? '';
    ada = createWebClient(url);
    const link = await issueSignInLink({ redis, prefix, publicUrl: url }, 'ada', 'invite by operator');
    expect((await ada.open(link.url)).status).toBe(303);
    await ada.session();
  });

  afterAll(async () => {
    await service.close();
    await store.close();
  });

  async function say(conversation: string, text: string, turns: number): Promise<string[]> {
    const posted = await ada.post(`/api/chat/${conversation}/messages`, { text, id: randomUUID() });
    expect(posted.status).toBeLessThan(300);
    let texts: string[] = [];
    await waitFor(async () => {
      const events = await store.readAfter(conversation, '0', 10_000);
      texts = events.flatMap(({ event }) => (event.type === 'part' && event.part.text !== undefined ? [event.part.text] : []));
      return settledTurns(events).length >= turns;
    }, `turn ${turns} of ${conversation} settled`, 20_000);
    return texts;
  }

  it('texts Ada the summary of her booking once, in at most two segments', async () => {
    fake.respondWith(scenarioScript({
      book: [
        () => reply(toolCall('book_flight', { flightNumber: 'MW 304', date: '2026-12-18', passengers: [{ fullName: 'Ada Lovelace' }], totalCost: 118, currency: 'GBP' })),
        (call) => reply(respond([part('response', `Booked: ${call.toolResults[0]?.content ?? ''}`)], 'complete')),
      ],
      summary: [
        (call) => {
          offered.push(...call.tools);
          return reply(toolCall('upcoming_trips', {}));
        },
        (call) => {
          const summary = summaryIn(call);
          summaries.push(summary);
          return reply(toolCall('notify', { person: 'me', channel: 'sms', text: summary }));
        },
        (call) => reply(respond([part('response', `Done: ${call.toolResults[0]?.content ?? ''}`)], 'complete')),
      ],
    }));

    const booked = await say('ada-trips', 'Book MW 304 on 18 December for me #book', 1);
    const reference = /"bookingReference":"(SB[A-Z0-9]{6})"/.exec(booked.join('\n'))?.[1];
    expect(reference).toBeDefined();
    expect(await appBookingLedger(appDir).upcoming('person:ada', new Date(NOW))).toEqual([expect.objectContaining({ bookingReference: reference })]);

    const answered = await say('ada-trips', 'Please text me a summary #summary', 2);
    expect(offered).toEqual(expect.arrayContaining(['upcoming_trips', 'notify']));
    expect(answered.at(-1)).toBe('Done: Sent to Ada Lovelace by sms.');
    await waitFor(() => texted().length > 0, 'the summary reached the fake Twilio');
    await waitFor(async () => outboundIdle(prefix), 'the SMS outbound queue is empty');
    const [summary] = summaries;
    expect(summary).toContain(`MW 304 LHR->CDG, Ada Lovelace, ref ${reference ?? ''}`);
    expect(texted()).toEqual([summary]);
    const [message] = twilio.messages(ADA);
    expect(message?.from).toBe(BOT);
    expect(message?.numSegments).toBeLessThanOrEqual(2);
    expect(smsSegments(message?.body ?? '')).toMatchObject({ encoding: 'GSM-7' });
    expect(smsSegments(message?.body ?? '').segments).toBeLessThanOrEqual(2);
  });
});

describe('sms summary on a schedule', () => {
  const prefix = uniquePrefix('sms-summary-scheduled');
  let appDir: string;
  let service: Service | undefined;
  const summaries = new Set<string>();

  const booking: Booking = {
    bookingReference: 'SBLSBNAU',
    status: 'confirmed',
    flight: { flightNumber: 'AU 1302', airline: 'Aurora Air', origin: 'CDG', destination: 'LIS', departure: '2026-12-19T08:50:00+01:00', arrival: '2026-12-19T10:25:00+00:00' },
    passengers: [{ fullName: 'Ada Lovelace' }],
    totalCost: 117,
    currency: 'EUR',
  };

  beforeAll(async () => {
    appDir = exampleApp(BASE);
    await appBookingLedger(appDir).record('person:ada', booking);
    const schedule = {
      id: 'trip-summary',
      cron: '* * * * * *',
      actor: 'concierge',
      prompt: 'Reply with a summary of my upcoming trips: call upcoming_trips and answer with its summary only. #scheduled',
      to: 'ada',
    };
    writeFileSync(join(appDir, 'switchboard.yaml'), stringify({ ...BASE, schedules: [schedule] }));
    fake.respondWith(scenarioScript({
      scheduled: [
        () => reply(toolCall('upcoming_trips', {})),
        (call) => {
          const summary = summaryIn(call);
          summaries.add(summary);
          return reply(respond([part('response', summary)], 'complete'));
        },
      ],
    }));
    service = await startOn(appDir, prefix);
  });

  afterAll(async () => {
    await service?.close();
  });

  it('texts Ada the summary of her trips at each tick, once per tick, in at most two segments', async () => {
    const before = texted().length;
    await waitFor(() => texted().length - before >= 3, 'three scheduled texts', 20_000);
    await service?.close();
    service = undefined;

    expect([...summaries]).toEqual([expect.stringContaining('AU 1302 CDG->LIS, Ada Lovelace, ref SBLSBNAU')]);
    const messages = twilio.messages(ADA).slice(before);
    for (const message of messages) {
      expect(message.body).toBe([...summaries][0]);
      expect(message.numSegments).toBeLessThanOrEqual(2);
    }

    const log = await createEventLog({ redis, prefix }).read(sessionIdOf('default', 'sms', ADA), 10_000);
    const ticks = log.filter((entry) => entry.type === 'injection' && String(entry.data['id']).startsWith('schedule:trip-summary:')).map((entry) => String(entry.data['id']));
    expect(new Set(ticks).size).toBe(ticks.length);
    expect(messages.length).toBeLessThanOrEqual(ticks.length);
    // Each text is the answer of one turn, and no turn texted twice.
    const turnOf = new Map(log.flatMap((entry) => (entry.type === 'delivery' && typeof entry.data['providerMessageId'] === 'string' ? [[entry.data['providerMessageId'], entry.turnId] as const] : [])));
    const turns = messages.map((message) => turnOf.get(message.sid));
    expect(turns.every((turn) => turn !== undefined)).toBe(true);
    expect(new Set(turns).size).toBe(messages.length);
  });
});
