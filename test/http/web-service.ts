/**
 * A switchboard web process for the HTTP surface tests: the real composition root
 * (`startService`, role `web`) on a free port, over the test Redis, with the loop-app fixture and
 * the environment and service options a test gives; plus a request helper that can pick its source
 * address (`127.0.0.x`, to play a reverse proxy on this host) and send any header, `Host` included.
 */
import { request } from 'node:http';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { loadEnv } from '../../src/config/env.ts';
import { startService, type Service, type ServiceOptions } from '../../service/create-service.ts';
import { uniquePrefix } from '../support/redis.ts';
import { useStarted } from '../support/use-started.ts';

const appDir = fileURLToPath(new URL('../fixtures/loop-app/', import.meta.url));

/** A running web process. */
export interface WebService {
  /** `http://localhost:<port>`. */
  readonly url: string;
  readonly port: number;
}

/** Options of {@link useWebService}. */
export interface WebServiceOptions {
  readonly redisUrl: () => string;
  /** Environment variables besides the defaults of the tests (model key, app, silent log). */
  readonly env?: Readonly<Record<string, string>>;
  /** Service options to add, e.g. `http` bounds or `channels`. */
  readonly service?: Partial<Pick<ServiceOptions, 'http' | 'channels'>>;
}

/** Starts a web process for the test file; stops it after. */
export function useWebService(options: WebServiceOptions): () => WebService {
  const started = useStarted(
    async (): Promise<{ service: Service; web: WebService }> => {
      const env = loadEnv({ ANTHROPIC_API_KEY: 'test-key', SWITCHBOARD_APP: appDir, LOG_LEVEL: 'silent', ...options.env }, { appDir });
      const service = await startService({
        env,
        role: 'web',
        redisUrl: options.redisUrl(),
        logger: pino({ level: 'silent' }),
        prefix: uniquePrefix('http-surface'),
        port: 0,
        ...options.service,
      });
      const url = service.url ?? '';
      return { service, web: { url, port: Number(new URL(url).port) } };
    },
    ({ service }) => service.close(),
    { name: 'useWebService()' },
  );
  return () => started().web;
}

/** A raw answer: status, headers and body text. */
export interface RawAnswer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly body: string;
}

/** Options of {@link send}. */
export interface SendOptions {
  readonly method?: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string;
  /** The source address to connect from, e.g. `127.0.0.5`. Default the system's choice (127.0.0.1). */
  readonly localAddress?: string;
}

/** Sends one request to `127.0.0.1:port` (headers exactly as given; `Host` defaults to `127.0.0.1:port`). */
export function send(port: number, path: string, options: SendOptions = {}): Promise<RawAnswer> {
  return new Promise<RawAnswer>((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path,
        method: options.method ?? 'GET',
        headers: { ...options.headers, ...(options.body === undefined ? {} : { 'content-length': String(Buffer.byteLength(options.body)) }) },
        agent: false,
        ...(options.localAddress === undefined ? {} : { localAddress: options.localAddress }),
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          body += chunk;
        });
        res.on('end', () => {
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}
