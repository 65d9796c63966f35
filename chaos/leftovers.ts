/** What a chaos run leaves behind: turns and messages still in Redis, and the approval tool's runs. */
import { readFile } from 'node:fs/promises';
import type { Redis } from 'ioredis';
import { createApprovalStore } from '../src/runtime/approvals/redis-approval-store.ts';
import { scanKeys } from '../src/runtime/redis/redis-client.ts';
import type { LeftOver } from './audit.ts';

/** A web injection id in a stored injection: `web:<conversation>:<client message id>`. */
const WEB_INJECTION_ID = /"id":"web:[A-Za-z0-9_-]+:([A-Za-z0-9_-]+)"/g;

/** Reads what is left once the run has drained. */
export async function readLeftOver(redis: Redis, prefix: string, toolLog: string, approvalIds: readonly string[]): Promise<LeftOver> {
  let turnRecords = 0;
  for await (const keys of scanKeys(redis, `${prefix}:s:*:turn`)) turnRecords += keys.length;
  const waitingIds = new Set<string>();
  for (const part of ['pending', 'inbox']) {
    for await (const keys of scanKeys(redis, `${prefix}:s:*:${part}`)) {
      for (const key of keys) for (const entry of await redis.lrange(key, 0, -1)) for (const match of entry.matchAll(WEB_INJECTION_ID)) waitingIds.add(match[1] ?? '');
    }
  }
  const toolRuns = new Map<string, number>();
  const lines = await readFile(toolLog, 'utf8').catch(() => '');
  for (const line of lines.split('\n')) if (line !== '') toolRuns.set(line, (toolRuns.get(line) ?? 0) + 1);
  const approvals = createApprovalStore({ redis, prefix });
  const approvalAudits = new Map(await Promise.all(approvalIds.map(async (id) => [id, await approvals.audit(id)] as const)));
  return { turnRecords, waitingIds, toolRuns, approvalAudits };
}
