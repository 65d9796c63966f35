import { describe, expect, it } from 'vitest';
import { keepMedia, type MediaOptions } from './media.ts';

const API = 'https://api.twilio.test';
const ACCOUNT = `AC${'5'.repeat(32)}`;
const MEDIA = `${API}/2010-04-01/Accounts/${ACCOUNT}/Messages/MM${'1'.repeat(32)}/Media/ME`;

/** A body that yields `chunks` one by one and records how many were pulled. */
function streamOf(chunks: readonly Buffer[], pulled: { count: number }): ReadableStream<Uint8Array> {
  let next = 0;
  return new ReadableStream({
    pull(controller) {
      const chunk = chunks[next];
      next += 1;
      if (chunk === undefined) controller.close();
      else {
        pulled.count += 1;
        controller.enqueue(new Uint8Array(chunk));
      }
    },
  });
}

/** Keeps the media of `urls`, each answered by `answer`; returns the notes, the names kept and the URLs asked. */
async function keep(urls: readonly string[], answer: (url: string) => Response, maxBytes = 10) {
  const asked: string[] = [];
  const put: string[] = [];
  const options: MediaOptions = {
    accountSid: ACCOUNT,
    authToken: 'media-token',
    apiUrl: API,
    maxBytes,
    artifacts: {
      put: (artifact) => {
        put.push(`${artifact.name}:${Buffer.from(artifact.bytes).toString('utf8')}`);
        return Promise.resolve({ artifactId: `A${put.length}`, name: artifact.name, mimeType: artifact.mimeType, sizeBytes: artifact.bytes.length, sha256: '', createdAt: '' });
      },
    },
    fetch: (input, init) => {
      const url = input instanceof Request ? input.url : String(input);
      asked.push(`${url} ${new Headers(init?.headers).get('authorization') ?? ''}`);
      return Promise.resolve(answer(url));
    },
  };
  const params = Object.fromEntries(urls.flatMap((url, index) => [[`MediaUrl${index}`, url], [`MediaContentType${index}`, 'image/jpeg']]));
  const kept = await keepMedia({ ...params, NumMedia: String(urls.length) }, options);
  return { ...kept, asked, put };
}

describe('inbound MMS media', () => {
  it('keeps a medium fetched with the account credentials, named by its type', async () => {
    const { stored, notes, asked, put } = await keep([`${MEDIA}1`], () => new Response('jpegbytes'));
    expect(put).toEqual(['media-1.jpg:jpegbytes']);
    expect(stored.map((medium) => medium.artifactId)).toEqual(['A1']);
    expect(notes).toEqual([]);
    expect(asked).toEqual([`${MEDIA}1 Basic ${Buffer.from(`${ACCOUNT}:media-token`).toString('base64')}`]);
  });

  it('stops reading a body past the cap even without Content-Length, and says the medium was too large', async () => {
    const pulled = { count: 0 };
    const chunks = Array.from({ length: 50 }, () => Buffer.from('123456'));
    const { stored, notes } = await keep([`${MEDIA}1`], () => new Response(streamOf(chunks, pulled)));
    expect(stored).toEqual([]);
    expect(notes).toEqual(['(The picture or file media-1.jpg was too large to keep.)']);
    expect(pulled.count).toBeLessThan(5);
  });

  it('refuses a declared Content-Length over the cap, an error answer and a URL off the Twilio API, going on with the next medium', async () => {
    const answers: Readonly<Record<string, () => Response>> = {
      [`${MEDIA}1`]: () => new Response('x'.repeat(11), { headers: { 'content-length': '11' } }),
      [`${MEDIA}2`]: () => new Response('gone', { status: 404 }),
      [`${MEDIA}4`]: () => new Response('ok'),
    };
    const { stored, notes, asked, put } = await keep([`${MEDIA}1`, `${MEDIA}2`, 'https://evil.test/steal', `${MEDIA}4`], (url) => (answers[url] ?? (() => new Response('', { status: 500 })))());
    expect(notes).toEqual([
      '(The picture or file media-1.jpg was too large to keep.)',
      '(The picture or file media-2.jpg could not be fetched.)',
      '(The picture or file media-3.jpg could not be fetched.)',
    ]);
    expect(put).toEqual(['media-4.jpg:ok']);
    expect(stored).toHaveLength(1);
    expect(asked.map((line) => line.split(' ')[0])).toEqual([`${MEDIA}1`, `${MEDIA}2`, `${MEDIA}4`]);
  });

  it('fetches the media of one message at once, not one after the other', async () => {
    const started: string[] = [];
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => { release = resolve; });
    const options: MediaOptions = {
      accountSid: ACCOUNT, authToken: 'media-token', apiUrl: API,
      artifacts: { put: (artifact) => Promise.resolve({ artifactId: artifact.name, name: artifact.name, mimeType: artifact.mimeType, sizeBytes: artifact.bytes.length, sha256: '', createdAt: '' }) },
      fetch: async (input) => {
        started.push(input instanceof Request ? input.url : String(input));
        await gate;
        return new Response('b');
      },
    };
    const kept = keepMedia({ NumMedia: '3', MediaUrl0: `${MEDIA}1`, MediaContentType0: 'image/png', MediaUrl1: `${MEDIA}2`, MediaContentType1: 'image/gif', MediaUrl2: `${MEDIA}3`, MediaContentType2: 'image/png' }, options);
    await new Promise((resolve) => setImmediate(resolve));
    expect(started).toHaveLength(3);
    release();
    expect((await kept).stored.map((medium) => medium.name)).toEqual(['media-1.png', 'media-2.gif', 'media-3.png']);
  });
});
