import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createJsonPoster } from '../../bench/http-post.ts';
import { readResponse } from '../../bench/http-response.ts';
import { findFreePort } from '../../src/runtime/redis/free-port.ts';

type Handler = (req: IncomingMessage, body: string, res: ServerResponse) => void;

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => { server.closeAllConnections(); server.close(resolve); })));
});

/** A real HTTP server answering with `handler`; counts the connections it accepted. */
async function serve(handler: Handler): Promise<{ url: string; connections: () => number }> {
  let connections = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => { handler(req, Buffer.concat(chunks).toString('utf8'), res); });
  });
  server.on('connection', () => { connections += 1; });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${String((server.address() as AddressInfo).port)}`, connections: () => connections };
}

const echo: Handler = (req, body, res) => {
  res.writeHead(202, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ path: req.url, body: JSON.parse(body) as unknown, cookie: req.headers.cookie, csrf: req.headers['x-csrf-token'] }));
};

describe('the bench JSON poster', () => {
  it('posts JSON with the given headers and reads the status and a UTF-8 body, over one kept-alive connection', async () => {
    const { url, connections } = await serve(echo);
    const http = createJsonPoster(url);
    try {
      for (const text of ['first', 'zweite Nachricht: grüße ✓']) {
        const posted = await http.post('/api/chat/c1/messages', { text }, { cookie: 'sid=abc', 'x-csrf-token': 't0k' });
        expect(posted.status).toBe(202);
        expect(JSON.parse(posted.body)).toEqual({ path: '/api/chat/c1/messages', body: { text }, cookie: 'sid=abc', csrf: 't0k' });
      }
      expect(connections()).toBe(1);
    } finally {
      http.close();
    }
  });

  it('keeps at most `sockets` connections and queues the rest', async () => {
    const { url, connections } = await serve((req, body, res) => { setImmediate(() => { echo(req, body, res); }); });
    const http = createJsonPoster(url, 2);
    try {
      const answers = await Promise.all(Array.from({ length: 7 }, (_, n) => http.post('/p', { n }, {})));
      expect(answers.map((answer) => (JSON.parse(answer.body) as { body: { n: number } }).body.n)).toEqual([0, 1, 2, 3, 4, 5, 6]);
      expect(connections()).toBe(2);
    } finally {
      http.close();
    }
  });

  it('gives a POST waiting for a connection a new one when the busy one is lost', async () => {
    let first = true;
    const { url, connections } = await serve((req, body, res) => {
      if (first) {
        first = false;
        res.socket?.destroy();
        return;
      }
      echo(req, body, res);
    });
    const http = createJsonPoster(url, 1);
    try {
      const [lost, waited] = await Promise.allSettled([http.post('/a', {}, {}), http.post('/b', { n: 2 }, {})]);
      expect(lost.status).toBe('rejected');
      expect(waited.status === 'fulfilled' ? JSON.parse(waited.value.body) : waited.reason).toMatchObject({ path: '/b', body: { n: 2 } });
      expect(connections()).toBe(2);
    } finally {
      http.close();
    }
  });

  it('fails the POSTs under way and those waiting for a connection when it is closed', async () => {
    const { url } = await serve(() => undefined);
    const http = createJsonPoster(url, 1);
    const posts = [http.post('/a', {}, {}), http.post('/b', {}, {})];
    http.close();
    await expect(posts[0]).rejects.toThrow(/closed/);
    await expect(posts[1]).rejects.toThrow(/closed/);
    await expect(http.post('/c', {}, {})).rejects.toThrow(/closed/);
  });

  it('reads a chunked body written in several pieces', async () => {
    const { url } = await serve((_req, _body, res) => {
      res.writeHead(503, { 'content-type': 'application/json' });
      res.write('{"error":');
      setImmediate(() => { res.end('"busy"}'); });
    });
    const http = createJsonPoster(url);
    try {
      expect(await http.post('/p', {}, {})).toEqual({ status: 503, body: '{"error":"busy"}' });
    } finally {
      http.close();
    }
  });

  it('opens a new connection after the server closed the last one', async () => {
    const { url, connections } = await serve((req, body, res) => {
      res.setHeader('connection', 'close');
      echo(req, body, res);
    });
    const http = createJsonPoster(url);
    try {
      expect((await http.post('/a', {}, {})).status).toBe(202);
      expect((await http.post('/b', {}, {})).status).toBe(202);
      expect(connections()).toBe(2);
    } finally {
      http.close();
    }
  });

  it('fails a POST whose connection is refused or cut before the answer, and the next POST still works', async () => {
    const refused = createJsonPoster(`http://127.0.0.1:${String(await findFreePort())}`);
    await expect(refused.post('/p', {}, {})).rejects.toThrow(/ECONNREFUSED/);
    refused.close();
    let cut = true;
    const { url } = await serve((req, body, res) => {
      if (cut) {
        cut = false;
        res.socket?.destroy();
        return;
      }
      echo(req, body, res);
    });
    const http = createJsonPoster(url);
    try {
      await expect(http.post('/p', {}, {})).rejects.toThrow(/closed the connection/);
      expect((await http.post('/p', {}, {})).status).toBe(202);
    } finally {
      http.close();
    }
  });
});

describe('readResponse', () => {
  const body = Buffer.from('{"ok":"grün"}');
  const whole = Buffer.concat([Buffer.from(`HTTP/1.1 202 Accepted\r\nContent-Type: application/json\r\nContent-Length: ${String(body.length)}\r\n\r\n`), body]);

  it('waits for every byte of the body, wherever the bytes are cut', () => {
    for (let cut = 0; cut < whole.length; cut += 1) expect(readResponse(whole.subarray(0, cut))).toBeUndefined();
    expect(readResponse(whole)).toEqual({ status: 202, body: '{"ok":"grün"}', keepAlive: true });
  });

  it('says when the server closes the connection', () => {
    expect(readResponse(Buffer.from('HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 0\r\n\r\n'))?.keepAlive).toBe(false);
    expect(readResponse(Buffer.from('HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n'))?.keepAlive).toBe(false);
  });

  it('refuses what is not an HTTP/1.x response, and a body it cannot size', () => {
    expect(() => readResponse(Buffer.from('SSH-2.0-OpenSSH\r\n\r\n'))).toThrow(/Not an HTTP\/1.x response/);
    expect(() => readResponse(Buffer.from('HTTP/1.1 200 OK\r\n\r\n'))).toThrow(/neither a Content-Length nor chunks/);
    expect(() => readResponse(Buffer.from('HTTP/1.1 200 OK\r\nContent-Length: -4\r\n\r\n'))).toThrow(/Bad Content-Length/);
  });
});
