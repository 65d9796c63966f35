/** What a chaos run leaves behind: turns and messages still in Redis, and the approval tool's runs. */
import { readFile } from 'node:fs/promises';
import type { Redis } from 'ioredis';
import { createApprovalStore } from '../src/runtime/approvals/redis-approval-store.ts';
import { scanKeys } from '../src/runtime/redis/redis-client.ts';
import { createEventLog } from '../src/runtime/session/event-log.ts';
import type { LeftOver } from './audit.ts';

/** A web injection id in a stored injection: `web:<conversation>:<client message id>`. */
const WEB_INJECTION_ID = /"id":"web:[A-Za-z0-9_-]+:([A-Za-z0-9_-]+)"/g;

/** More entries than a session of the run logs. */
const MAX_LOG_ENTRIES = 100_000;

/** Turns that every session's event log shows started and never settled. */
async function countUnsettledTurns(redis: Redis, prefix: string): Promise<number> {
  const log = createEventLog({ redis, prefix });
  let unsettled = 0;
  for await (const keys of scanKeys(redis, `${prefix}:s:*:log`)) {
    for (const key of keys) {
      const started = new Set<string>();
      const settled = new Set<string>();
      for (const entry of await log.read(key.slice(`${prefix}:s:`.length, -':log'.length), MAX_LOG_ENTRIES)) {
        if (entry.turnId === undefined) continue;
        if (entry.type === 'turn_started') started.add(entry.turnId);
        if (entry.type === 'turn_settled') settled.add(entry.turnId);
      }
      for (const turnId of started) if (!settled.has(turnId)) unsettled += 1;
    }
  }
  return unsettled;
}

/** The client message ids of the web injections stored in a mailbox's or inbox's entries. */
function webMessageIds(entries: readonly string[]): string[] {
  return entries.flatMap((entry) => [...entry.matchAll(WEB_INJECTION_ID)].map((match) => match[1] ?? ''));
}

/** Reads what is left once the run has drained. */
export async function readLeftOver(redis: Redis, prefix: string, toolLog: string, approvalIds: readonly string[]): Promise<LeftOver> {
  let turnRecords = 0;
  for await (const keys of scanKeys(redis, `${prefix}:s:*:turn`)) turnRecords += keys.length;
  const waitingIds = new Set<string>();
  for (const part of ['pending', 'inbox']) {
    for await (const keys of scanKeys(redis, `${prefix}:s:*:${part}`)) {
      for (const key of keys) for (const id of webMessageIds(await redis.lrange(key, 0, -1))) waitingIds.add(id);
    }
  }
  const toolRuns = new Map<string, number>();
  const lines = await readFile(toolLog, 'utf8').catch(() => '');
  for (const line of lines.split('\n')) if (line !== '') toolRuns.set(line, (toolRuns.get(line) ?? 0) + 1);
  const approvals = createApprovalStore({ redis, prefix });
  const approvalAudits = new Map(await Promise.all(approvalIds.map(async (id) => [id, await approvals.audit(id)] as const)));
  return { turnRecords, waitingIds, toolRuns, approvalAudits, turnsUnsettledInLog: await countUnsettledTurns(redis, prefix) };
}
