/**
 * Files shared with a Slack message, kept as artifacts before the message is enqueued: fetched at
 * once (each within its own time limit, so all of them fit in Slack's three seconds), stored, and
 * listed for the actor as `[attached: name, type, size, artifact <id>]`. What could not be kept is
 * said in a line instead, so the actor (and through it the person) knows; the message still goes.
 */
import { attachedLine, megabytes } from '../kit/kept-files.ts';
import { SwitchboardError } from '../../src/protocol/errors.ts';
import type { ArtifactStore } from '../../src/runtime/artifacts/artifact-store.ts';
import { DEFAULT_ARTIFACT_MAX_BYTES } from '../../src/runtime/artifacts/redis-artifact-store.ts';
import { fetchSlackFile, type FetchFileOptions, type FetchedFile } from './fetch-file.ts';
import type { SlackSharedFile } from './slack-event.ts';

/** Options of {@link createSlackFileKeeper}. */
export interface SlackFileKeeperOptions extends Partial<Pick<FetchFileOptions, 'maxBytes' | 'timeoutMs'>> {
  readonly botToken: string;
  /** `SLACK_API_URL`: its origin and `https://files.slack.com` are the hosts files are fetched from. */
  readonly apiUrl: string;
  readonly artifacts: Pick<ArtifactStore, 'put'>;
}

/** Most files kept from one message. */
const MAX_FILES = 10;
/** Default longest download of one file, in ms: leaves room in Slack's 3 s for the enqueue. */
const DEFAULT_TIMEOUT_MS = 2000;

const notKept = (name: string, reason: string): string => `(The file ${name} shared in Slack could not be kept: ${reason}.)`;

/** Stores one fetched file; a line for the actor either way. Throws only when the store fails. */
async function keepOne(file: SlackSharedFile, fetched: FetchedFile, artifacts: Pick<ArtifactStore, 'put'>): Promise<string> {
  if (!fetched.ok) return notKept(file.name, fetched.reason);
  try {
    const meta = await artifacts.put({ name: file.name, mimeType: file.mimeType, bytes: fetched.bytes });
    return attachedLine(meta);
  } catch (error) {
    if (!(error instanceof SwitchboardError) || error.code !== 'artifact.too_large') throw error;
    const limit = error.details['maxBytes'];
    return notKept(file.name, `at ${megabytes(fetched.bytes.length)} it is too large${typeof limit === 'number' ? ` (the limit is ${megabytes(limit)})` : ''}`);
  }
}

/**
 * Creates the function that keeps a message's files and answers the lines to add to its text.
 *
 * @example
 * const keepFiles = createSlackFileKeeper({ botToken, apiUrl, artifacts });
 * const notes = await keepFiles(intent.files); // ['[attached: plan.pdf, application/pdf, 0.2 MB, artifact …]']
 */
export function createSlackFileKeeper(options: SlackFileKeeperOptions): (files: readonly SlackSharedFile[]) => Promise<string[]> {
  const fetchOptions: FetchFileOptions = {
    botToken: options.botToken,
    origins: [new URL(options.apiUrl).origin, 'https://files.slack.com'],
    maxBytes: options.maxBytes ?? DEFAULT_ARTIFACT_MAX_BYTES,
    timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
  };
  return async (files) => {
    const taken = files.slice(0, MAX_FILES);
    const fetched = await Promise.all(taken.map((file) => fetchSlackFile(file, fetchOptions)));
    const lines = await Promise.all(taken.map((file, index) => keepOne(file, fetched[index] ?? { ok: false, reason: 'not fetched' }, options.artifacts)));
    if (files.length > MAX_FILES) lines.push(`(Only the first ${MAX_FILES} of the ${files.length} files shared in Slack were kept.)`);
    return lines;
  };
}
