/**
 * One private Slack file fetched with the bot token: only from a Slack host this service trusts
 * (so the token goes nowhere else), with no redirect followed (Slack redirects a request it does
 * not accept to its sign-in page), an HTML page taken for what it is, the bytes capped while they
 * arrive, and the whole download bounded in time.
 */
import type { SlackSharedFile } from './slack-event.ts';
import { readCapped } from '../kit/read-capped.ts';

/** How a download goes. */
export interface FetchFileOptions {
  readonly botToken: string;
  /** Origins the bot token may be sent to, e.g. `https://files.slack.com`. */
  readonly origins: readonly string[];
  /** Largest file, in bytes. */
  readonly maxBytes: number;
  /** Longest a download may take (answer and bytes), in ms. */
  readonly timeoutMs: number;
}

/** The bytes, or why there are none (`tooLarge`: over {@link FetchFileOptions.maxBytes}). */
export type FetchedFile =
  | { readonly ok: true; readonly bytes: Buffer }
  | { readonly ok: false; readonly reason: string; readonly tooLarge?: boolean };

const fail = (reason: string): FetchedFile => ({ ok: false, reason });
const tooLarge = (maxBytes: number): FetchedFile => ({ ok: false, tooLarge: true, reason: `it is over the ${(maxBytes / 1_048_576).toFixed(1)} MB limit` });

/** Where the token may go: `undefined` when the URL is malformed or on another host. */
function trustedUrl(link: string, origins: readonly string[]): URL | undefined {
  if (!URL.canParse(link)) return undefined;
  const url = new URL(link);
  return origins.includes(url.origin) ? url : undefined;
}

/** Why an answer is not the file, or `undefined` when it is. */
function refusal(response: Response, file: SlackSharedFile, maxBytes: number): FetchedFile | undefined {
  if (response.status >= 300 && response.status < 400) return fail('Slack sent a redirect (to its sign-in page) instead of the file; does the app have the files:read scope?');
  if (!response.ok) return fail(`Slack answered HTTP ${response.status}`);
  const type = (response.headers.get('content-type') ?? '').toLowerCase();
  if (type.startsWith('text/html') && !file.mimeType.toLowerCase().startsWith('text/html')) return fail('Slack sent a web page (a sign-in page) instead of the file');
  return Number(response.headers.get('content-length') ?? '0') > maxBytes ? tooLarge(maxBytes) : undefined;
}

/**
 * Fetches `file.url`. Never throws: every failure is a reason in words.
 *
 * @example
 * const got = await fetchSlackFile(file, { botToken, origins: ['https://files.slack.com'], maxBytes: 10 * 1_048_576, timeoutMs: 2000 });
 */
export async function fetchSlackFile(file: SlackSharedFile, options: FetchFileOptions): Promise<FetchedFile> {
  if (file.url === undefined) return fail('Slack gave no download link for it');
  const url = trustedUrl(file.url, options.origins);
  if (url === undefined) return fail('its link is not on a Slack host this service fetches from');
  if (file.sizeBytes !== undefined && file.sizeBytes > options.maxBytes) return tooLarge(options.maxBytes);
  const signal = AbortSignal.timeout(options.timeoutMs);
  try {
    const response = await fetch(url, { headers: { authorization: `Bearer ${options.botToken}` }, redirect: 'manual', signal });
    const refused = refusal(response, file, options.maxBytes);
    if (refused !== undefined || response.body === null) {
      await response.body?.cancel();
      return refused ?? { ok: true, bytes: Buffer.alloc(0) };
    }
    const bytes = await readCapped(response.body, options.maxBytes);
    return bytes === undefined ? tooLarge(options.maxBytes) : { ok: true, bytes };
  } catch (error) {
    if (signal.aborted) return fail(`Slack did not send it within ${options.timeoutMs / 1000} s`);
    return fail(`the download failed (${error instanceof Error ? error.message : String(error)})`);
  }
}
