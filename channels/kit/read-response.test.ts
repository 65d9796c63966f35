import type { IncomingHttpHeaders } from 'node:http';
import { describe, expect, it } from 'vitest';
import { ReadResponse, type ReadAnswer } from './read-response.ts';

const headers: IncomingHttpHeaders = {
  'content-type': 'application/json; charset=utf-8',
  'x-oauth-scopes': 'chat:write,im:history',
  'retry-after': '3',
  'set-cookie': ['a=1', 'b=2'],
  vary: 'accept, accept-encoding',
};
const json = JSON.stringify({ ok: true, ts: '1700000000.000100', text: 'héllo ✓' });

function answerOf(body: string | null, more: Partial<ReadAnswer> = {}): ReadAnswer {
  return { status: 200, statusText: 'OK', headers, body: body === null ? null : Buffer.from(body, 'utf8'), url: 'http://api.test/chat.postMessage', ...more };
}

/** The standard Response of the same answer, as undici would build it. */
function standardOf(answer: ReadAnswer): Response {
  const list = Object.entries(answer.headers).flatMap(([name, value]): [string, string][] =>
    value === undefined ? [] : Array.isArray(value) ? value.map((one): [string, string] => [name, one]) : [[name, value]],
  );
  return new Response(answer.body === null ? null : answer.body.slice(), { status: answer.status, statusText: answer.statusText, headers: list });
}

describe('ReadResponse', () => {
  it('answers what a standard Response of the same answer answers', async () => {
    const answer = answerOf(json);
    const read = new ReadResponse(answer);
    const standard = standardOf(answer);
    expect([read.status, read.ok, read.statusText, read.redirected]).toEqual([standard.status, standard.ok, standard.statusText, standard.redirected]);
    expect(read.url).toBe('http://api.test/chat.postMessage');
    expect(read.type).toBe('basic');
    for (const name of ['content-type', 'Content-Type', 'X-OAuth-Scopes', 'set-cookie', 'missing']) {
      expect(read.headers.get(name)).toBe(standard.headers.get(name));
      expect(read.headers.has(name)).toBe(standard.headers.has(name));
    }
    expect(read.headers.getSetCookie()).toEqual(standard.headers.getSetCookie());
    expect([...read.headers]).toEqual([...standard.headers]);
    expect([...read.headers.keys()]).toEqual([...standard.headers.keys()]);
    expect([...read.headers.values()]).toEqual([...standard.headers.values()]);
    const seen: string[] = [];
    read.headers.forEach((value, name, parent) => {
      expect(parent).toBe(read.headers);
      seen.push(`${name}=${value}`);
    });
    const expected: string[] = [];
    standard.headers.forEach((value, name) => expected.push(`${name}=${value}`));
    expect(seen).toEqual(expected);
    expect(read.bodyUsed).toBe(false);
    expect(await read.json()).toEqual(await standard.json());
    expect(read.bodyUsed).toBe(true);
  });

  it('reads its body once, in every form, and refuses a second read as fetch does', async () => {
    for (const first of ['text', 'json', 'arrayBuffer', 'bytes'] as const) {
      const read = new ReadResponse(answerOf(json));
      const standard = standardOf(answerOf(json));
      await read[first]();
      await standard[first]();
      for (const again of ['text', 'json', 'arrayBuffer', 'bytes', 'blob'] as const) {
        await expect(read[again]()).rejects.toThrow(TypeError);
        await expect(standard[again]()).rejects.toThrow(TypeError);
      }
      expect(() => read.clone()).toThrow(TypeError);
    }
  });

  it('decodes UTF-8 without a leading byte order mark, and copies the bytes it hands out', async () => {
    const withBom = new ReadResponse(answerOf(`\uFEFF${json}`));
    expect(await withBom.text()).toBe(await standardOf(answerOf(`\uFEFF${json}`)).text());
    const invalid = { ...answerOf(null), body: Uint8Array.of(0x6f, 0x6b, 0xff, 0xc3) };
    expect(await new ReadResponse(invalid).text()).toBe(await standardOf(invalid).text());
    const read = new ReadResponse(answerOf(json));
    const copy = read.clone();
    const bytes = await read.bytes();
    bytes.fill(0);
    expect(await copy.text()).toBe(json);
    expect(Buffer.from(await new ReadResponse(answerOf(json)).arrayBuffer()).toString('utf8')).toBe(json);
  });

  it('has no body for an empty answer, which reads as empty without being used', async () => {
    const read = new ReadResponse(answerOf(null, { status: 204, statusText: 'No Content' }));
    expect(read.body).toBeNull();
    expect(await read.text()).toBe('');
    expect(read.bodyUsed).toBe(false);
    expect((await read.arrayBuffer()).byteLength).toBe(0);
    await expect(read.json()).rejects.toThrow(SyntaxError);
  });

  it('serves its body as a stream and a blob through a standard Response, still read only once', async () => {
    const streamed = new ReadResponse(answerOf(json));
    const body = streamed.body;
    expect(body).toBeInstanceOf(ReadableStream);
    expect(await new Response(body).text()).toBe(json);
    expect(streamed.bodyUsed).toBe(true);
    await expect(streamed.text()).rejects.toThrow(TypeError);
    expect(() => streamed.clone()).toThrow(TypeError);
    const unread = new ReadResponse(answerOf(json));
    expect(unread.body).not.toBeNull();
    expect(await unread.clone().json()).toEqual(JSON.parse(json));
    expect(await unread.text()).toBe(json);

    const blob = await new ReadResponse(answerOf(json)).blob();
    expect(blob.type).toBe((await standardOf(answerOf(json)).blob()).type);
    expect(await blob.text()).toBe(json);

    const readFirst = new ReadResponse(answerOf(json));
    await readFirst.text();
    expect(readFirst.body?.locked).toBe(true);
    await expect(readFirst.blob()).rejects.toThrow(TypeError);
  });

  it('keeps its headers as they came (they cannot be changed)', () => {
    const read = new ReadResponse(answerOf(json));
    expect(() => { read.headers.set(); }).toThrow(TypeError);
    expect(() => { read.headers.append(); }).toThrow(TypeError);
    expect(() => { read.headers.delete(); }).toThrow(TypeError);
    expect(read.headers.get('retry-after')).toBe('3');
  });
});
