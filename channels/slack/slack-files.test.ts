import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SwitchboardError } from '../../src/protocol/errors.ts';
import type { ArtifactMeta, NewArtifact } from '../../src/runtime/artifacts/artifact-store.ts';
import { startFakeSlack } from '../../test/fakes/fake-slack.ts';
import type { FakeSlack, SlackFile } from '../../test/fakes/fake-slack-types.ts';
import type { SlackSharedFile } from './slack-event.ts';
import { createSlackFileKeeper, type SlackFileKeeperOptions } from './slack-files.ts';

const TOKEN = 'xoxb-files-unit';
let slack: FakeSlack;
let stalled: Server | undefined;
/** What the store was given. */
const put: NewArtifact[] = [];
const artifacts = {
  put(artifact: NewArtifact): Promise<ArtifactMeta> {
    put.push(artifact);
    const meta = { artifactId: `A${String(put.length).padStart(21, '0')}`, name: artifact.name, mimeType: artifact.mimeType, sizeBytes: artifact.bytes.length, sha256: '0'.repeat(64), createdAt: new Date(0).toISOString() };
    return Promise.resolve(meta);
  },
};

beforeEach(async () => {
  put.length = 0;
  slack = await startFakeSlack({ botToken: TOKEN });
});
afterEach(async () => {
  await slack.close();
  await new Promise((resolve) => { if (stalled === undefined) resolve(undefined); else stalled.close(resolve).closeAllConnections(); });
  stalled = undefined;
});

const shared = (file: SlackFile): SlackSharedFile => ({ name: file.name, mimeType: file.mimetype, sizeBytes: file.size, url: file.url_private_download });
const keep = (files: readonly SlackSharedFile[], options: Partial<SlackFileKeeperOptions> = {}): Promise<string[]> =>
  createSlackFileKeeper({ botToken: TOKEN, apiUrl: slack.url, artifacts, ...options })(files);

describe('keeping files shared in Slack', () => {
  it('fetches with the bot token and lists what it kept', async () => {
    const file = slack.addFile('seat 14C', { name: 'seat.txt', mimetype: 'text/plain' });
    expect(await keep([shared(file)])).toEqual(['[attached: seat.txt, text/plain, 0.0 MB, artifact A000000000000000000001]']);
    expect(put[0]?.bytes.toString()).toBe('seat 14C');
    expect(slack.downloads()).toEqual([expect.objectContaining({ fileId: file.id, authorized: true, status: 200 })]);
  });

  it('takes a redirect to the sign-in page, or a web page, for a failure and not for the file', async () => {
    const file = slack.addFile('secret', { name: 'plan.pdf', mimetype: 'application/pdf' });
    const [redirected] = await keep([shared(file)], { botToken: 'xoxb-not-this-one' });
    expect(redirected).toMatch(/^\(The file plan\.pdf shared in Slack could not be kept: Slack sent a redirect \(to its sign-in page\) instead of the file/);
    const [page] = await keep([{ ...shared(file), url: `${slack.origin}/signin` }]);
    expect(page).toBe('(The file plan.pdf shared in Slack could not be kept: Slack sent a web page (a sign-in page) instead of the file.)');
    const [linkless] = await keep([{ name: 'partial.pdf', mimeType: 'application/pdf' }]);
    expect(linkless).toBe('(The file partial.pdf shared in Slack could not be kept: Slack gave no download link for it.)');
    expect(put).toEqual([]);
  });

  it('says when a file is over the size limit, Slack\'s size or the bytes, or over the store\'s', async () => {
    const file = slack.addFile('0123456789AB', { name: 'big.bin', mimetype: 'application/octet-stream' });
    const [declared] = await keep([shared(file)], { maxBytes: 10 });
    expect(declared).toBe('(The file big.bin shared in Slack could not be kept: it is over the 0.0 MB limit.)');
    expect(slack.downloads()).toEqual([]);
    const [counted] = await keep([{ ...shared(file), sizeBytes: 1 }], { maxBytes: 10 });
    expect(counted).toContain('it is over the 0.0 MB limit');
    const refusing = { put: () => Promise.reject(new SwitchboardError('artifact.too_large', 'too large', { details: { maxBytes: 2 * 1_048_576 } })) };
    const [stored] = await keep([shared(file)], { artifacts: refusing });
    expect(stored).toBe('(The file big.bin shared in Slack could not be kept: at 0.0 MB it is too large (the limit is 2.0 MB).)');
  });

  it('gives up on a download that takes too long, in about its time limit, and says so', async () => {
    stalled = createServer(() => undefined); // never answers
    await new Promise<void>((resolve) => { stalled?.listen(0, '127.0.0.1', resolve); });
    const origin = `http://127.0.0.1:${String((stalled.address() as AddressInfo).port)}`;
    const startedAt = Date.now();
    const [note] = await keep([{ name: 'slow.png', mimeType: 'image/png', url: `${origin}/files-pri/T0-F0/slow.png` }], { apiUrl: `${origin}/api/`, timeoutMs: 200 });
    expect(note).toBe('(The file slow.png shared in Slack could not be kept: Slack did not send it within 0.2 s.)');
    expect(Date.now() - startedAt).toBeLessThan(1000);
  });

  it('keeps at most ten files of one message and says how many there were', async () => {
    const file = shared(slack.addFile('x', { name: 'x.txt', mimetype: 'text/plain' }));
    const lines = await keep(Array.from({ length: 12 }, () => file));
    expect(lines).toHaveLength(11);
    expect(lines.at(-1)).toBe('(Only the first 10 of the 12 files shared in Slack were kept.)');
    expect(put).toHaveLength(10);
  });
});
