/**
 * Files shared with a Slack message, end to end: the service fetches each from the fake Slack
 * with the bot token before it enqueues the message (and answers Slack within its three seconds),
 * keeps it as an artifact, and lists it in the text the actor reads; a file it could not fetch (a
 * link to a host it does not send the token to) is named in a note, and the message still goes.
 */
import { describe, expect, it } from 'vitest';
import { createRedisArtifactStore } from '../../src/runtime/artifacts/redis-artifact-store.ts';
import type { SlackFile } from '../fakes/fake-slack-types.ts';
import { dmMessage, eventCallback, freshSlackTs, postSlackEvent } from '../fakes/slack-requests.ts';
import { useRedis } from '../support/redis.ts';
import { part, reply, respond, scenarioScript } from '../support/scenario-model.ts';
import { waitFor } from '../support/wait-for.ts';
import { useSlackSwitchboard } from './slack-harness.ts';

const SECRET = 'slack-files-signing-secret';
/** The newest user text of every model call. */
const seen: string[] = [];
const sb = useSlackSwitchboard({
  redisUrl: useRedis(),
  botToken: 'xoxb-files-test-token',
  signingSecret: SECRET,
  script: scenarioScript({
    files: [(call) => {
      seen.push(call.texts.at(-1) ?? '');
      return reply(respond([part('response', 'Got your files.')], 'complete'));
    }],
  }),
});
const slack = () => sb().slack;

/** Sends a DM with `files` and waits for the answer; the model's text and how long Slack waited. */
async function shareFiles(user: string, channel: string, files: readonly SlackFile[]): Promise<{ text: string; status: number; ms: number }> {
  const ts = freshSlackTs();
  const body = eventCallback(dmMessage({ user, channel, ts, text: 'Here you go #files', files }), { eventId: `Ev0FILES${ts.replace('.', '')}` });
  const startedAt = Date.now();
  const answer = await postSlackEvent({ url: sb().eventsUrl, signingSecret: SECRET, body });
  const ms = Date.now() - startedAt;
  await waitFor(() => slack().messages(channel).some((message) => message.threadTs === ts), 'the answer in the thread');
  return { text: seen.at(-1) ?? '', status: answer.status, ms };
}

describe('slack: shared files', () => {
  it('keeps a shared file as an artifact, fetched with the bot token before Slack is answered', async () => {
    const file = slack().addFile('Boarding at gate 12.', { name: 'boarding.txt', mimetype: 'text/plain', user: 'U0ADA0001' });
    const { text, status, ms } = await shareFiles('U0ADA0001', 'D0ADA0001', [file]);
    expect(status).toBe(200);
    expect(ms).toBeLessThan(3000);
    const listed = /\[attached: boarding\.txt, text\/plain, 0\.0 MB, artifact ([A-Za-z0-9_-]{22})\]/.exec(text);
    expect(listed).not.toBeNull();
    const stored = await createRedisArtifactStore({ redis: sb().redis, prefix: sb().prefix }).get(listed?.[1] ?? '');
    expect(stored?.bytes.toString('utf8')).toBe('Boarding at gate 12.');
    expect(slack().downloads().filter((download) => download.fileId === file.id)).toEqual([expect.objectContaining({ authorized: true, status: 200 })]);
  });

  it('does not send the token off Slack: such a file is named in a note and the rest still goes', async () => {
    const kept = slack().addFile(new Uint8Array([0x89, 0x50, 0x4e, 0x47]), { name: 'map.png', mimetype: 'image/png', user: 'U0BOB0001' });
    const elsewhere = { ...slack().addFile('x', { name: 'elsewhere.pdf', mimetype: 'application/pdf' }), url_private_download: 'https://files.example.com/elsewhere.pdf' };
    const { text, status } = await shareFiles('U0BOB0001', 'D0BOB0001', [kept, elsewhere]);
    expect(status).toBe(200);
    expect(text).toMatch(/\[attached: map\.png, image\/png, 0\.0 MB, artifact [A-Za-z0-9_-]{22}\]/);
    expect(text).toContain('(The file elsewhere.pdf shared in Slack could not be kept: its link is not on a Slack host this service fetches from.)');
    expect(slack().downloads().some((download) => download.fileId === elsewhere.id)).toBe(false);
  });
});
