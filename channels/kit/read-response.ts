/**
 * A `Response` for an answer already read whole: what the lean path of `keep-alive-fetch.ts` hands
 * to an API client. It keeps the status, the headers as `node:http` parsed them and the body's
 * bytes, and serves `headers.get`, `text()`, `json()`, `arrayBuffer()` and `bytes()` from them.
 *
 * Why not `new Response(...)`: building one (its `Headers`, its body stream) and reading it back
 * through the stream cost about ten times as much CPU as the call's own parse, on every call of a
 * busy channel. What an API client rarely asks for (`body` as a stream, `blob()`, `formData()`)
 * comes from a standard `Response` built on first use, after which every read goes through it, so
 * a body is still read at most once.
 */
import type { IncomingHttpHeaders } from 'node:http';

const unusable = (): TypeError => new TypeError('Body is unusable: Body has already been read');
const immutable = (): TypeError => new TypeError('immutable');
/** UTF-8 without a leading byte order mark, invalid bytes replaced: how `Response.text()` decodes. */
const utf8 = new TextDecoder();
/** `read()`'s value as a promise, rejected with what it throws (as a body read fails: asynchronously). */
const settled = <T>(read: () => T): Promise<T> => new Promise((resolve) => { resolve(read()); });

/** Response headers as `node:http` parsed them (names in lower case, `set-cookie` as a list), read only. */
export class ReadHeaders implements Headers {
  readonly #headers: IncomingHttpHeaders;
  #sorted: [string, string][] | undefined;

  constructor(headers: IncomingHttpHeaders) {
    this.#headers = headers;
  }

  get(name: string): string | null {
    const value = this.#headers[name.toLowerCase()];
    if (value === undefined) return null;
    return Array.isArray(value) ? value.join(', ') : value;
  }

  has(name: string): boolean {
    return this.#headers[name.toLowerCase()] !== undefined;
  }

  getSetCookie(): string[] {
    const value = this.#headers['set-cookie'];
    return value === undefined ? [] : [...value];
  }

  /** Every header, sorted by name, `set-cookie` once per value (as `Headers` iterates). */
  #list(): [string, string][] {
    this.#sorted ??= Object.keys(this.#headers)
      .sort()
      .flatMap((name): [string, string][] => {
        const value = this.#headers[name];
        if (value === undefined) return [];
        if (name === 'set-cookie' && Array.isArray(value)) return value.map((one): [string, string] => [name, one]);
        return [[name, Array.isArray(value) ? value.join(', ') : value]];
      });
    return this.#sorted;
  }

  forEach(callback: (value: string, key: string, parent: Headers) => void, thisArg?: unknown): void {
    for (const [name, value] of this.#list()) callback.call(thisArg, value, name, this);
  }

  entries(): ArrayIterator<[string, string]> {
    return this.#list().map((entry): [string, string] => [entry[0], entry[1]]).values();
  }

  keys(): ArrayIterator<string> {
    return this.#list().map(([name]) => name).values();
  }

  values(): ArrayIterator<string> {
    return this.#list().map(([, value]) => value).values();
  }

  [Symbol.iterator](): ArrayIterator<[string, string]> {
    return this.entries();
  }

  append(): void {
    throw immutable();
  }

  set(): void {
    throw immutable();
  }

  delete(): void {
    throw immutable();
  }
}

/** What a {@link ReadResponse} is made of. */
export interface ReadAnswer {
  readonly status: number;
  readonly statusText: string;
  readonly headers: IncomingHttpHeaders;
  /** The whole body; `null` for an answer without one (204, 304). */
  readonly body: Uint8Array | null;
  readonly url: string;
}

/** A `Response` of an answer read whole; see the file's comment. */
export class ReadResponse implements Response {
  readonly status: number;
  readonly statusText: string;
  readonly headers: ReadHeaders;
  readonly url: string;
  readonly type = 'basic';
  readonly redirected = false;
  readonly #answer: ReadAnswer;
  #used = false;
  #standard: Response | undefined;

  constructor(answer: ReadAnswer) {
    this.#answer = answer;
    this.status = answer.status;
    this.statusText = answer.statusText;
    this.headers = new ReadHeaders(answer.headers);
    this.url = answer.url;
  }

  get ok(): boolean {
    return this.status >= 200 && this.status <= 299;
  }

  get bodyUsed(): boolean {
    return this.#standard === undefined ? this.#used : this.#standard.bodyUsed;
  }

  get body(): ReadableStream<Uint8Array> | null {
    return this.#answer.body === null ? null : this.#asStandard().body;
  }

  /** The body's bytes, once; a body already read (here or through the standard form) is refused. */
  #take(): Uint8Array {
    const { body } = this.#answer;
    if (body === null) return new Uint8Array(0);
    if (this.bodyUsed) throw unusable();
    this.#used = true;
    return body;
  }

  /** The same answer as a standard `Response`, made once; a body read here before is read there too. */
  #asStandard(): Response {
    if (this.#standard === undefined) {
      const { body, status, statusText } = this.#answer;
      this.#standard = new Response(body === null ? null : body.slice(), { status, statusText, headers: [...this.headers] });
      Object.defineProperty(this.#standard, 'url', { value: this.url });
      if (this.#used) this.#standard.arrayBuffer().catch(() => undefined);
    }
    return this.#standard;
  }

  text(): Promise<string> {
    if (this.#standard !== undefined) return this.#standard.text();
    return settled(() => utf8.decode(this.#take()));
  }

  async json(): Promise<unknown> {
    return JSON.parse(await this.text()) as unknown;
  }

  /** A copy of the body's bytes (the answer's own stay as they were, for a clone). */
  #copy(): Uint8Array<ArrayBuffer> {
    return new Uint8Array(this.#take());
  }

  bytes(): Promise<Uint8Array> {
    return this.#standard === undefined ? settled(() => this.#copy()) : this.#standard.bytes();
  }

  arrayBuffer(): Promise<ArrayBuffer> {
    return this.#standard === undefined ? settled(() => this.#copy().buffer) : this.#standard.arrayBuffer();
  }

  blob(): Promise<Blob> {
    return this.#asStandard().blob();
  }

  formData(): Promise<FormData> {
    // eslint-disable-next-line @typescript-eslint/no-deprecated -- part of the Response it stands for; served by the standard one
    return this.#asStandard().formData();
  }

  clone(): Response {
    if (this.#standard !== undefined) return this.#standard.clone();
    if (this.#used) throw unusable();
    // eslint-disable-next-line @typescript-eslint/no-unsafe-class-instance-assignment -- a Response in all but its constructor (see the file's comment)
    return new ReadResponse(this.#answer);
  }
}
