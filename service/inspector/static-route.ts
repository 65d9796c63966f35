/**
 * `GET /admin/inspector/timeline.js`: the timeline page's script, the one file of
 * `service/inspector/page/`, read once and kept.
 */
import { readFile } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';

const SCRIPT = new URL('./page/timeline.js', import.meta.url);
let loaded: Promise<Buffer> | undefined;

/** Sends the script (read on first use). */
export async function sendTimelineScript(res: ServerResponse, head: boolean): Promise<void> {
  loaded ??= readFile(SCRIPT).catch((error: unknown) => {
    loaded = undefined;
    throw error;
  });
  const body = await loaded;
  res.writeHead(200, {
    'content-type': 'text/javascript; charset=utf-8',
    'content-length': body.length,
    'cache-control': 'no-cache',
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
  });
  res.end(head ? undefined : body);
}
