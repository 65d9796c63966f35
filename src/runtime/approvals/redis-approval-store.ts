/**
 * The approval store in Redis. Every key is under `<prefix>:apr:`:
 *
 * - `rec:<id>`: hash with `record` (the {@link ApprovalRecord} as JSON), `status`, `expiresAt` and
 *   `createdAt` (epoch ms) and `shortCode`; the scripts compare-and-set on `status`.
 * - `audit:<id>`: list of {@link ApprovalAuditEntry} JSON lines, oldest first.
 * - `all` and `status:<status>`: sorted sets of ids scored by creation time (epoch ms), for `list`.
 * - `pending:addr:<channel>:<address>` and `pending:person:<personId>`: hashes short code → id of the
 *   pending approvals each decider (approver, or requester when allowed) may decide.
 * - `exec:<id>` (the execution claim) and `result:<id>` (the saved {@link ExecutionResult} JSON).
 *
 * Keys carry no TTL: approvals are kept for audit until removed by an operator.
 *
 * Late answers (after `expiresAt` while still pending) are refused with `expired`, audited as
 * `refused`, and leave the approval pending: the expiry job alone moves it to `expired`, so the turn
 * is resumed by exactly one path (the expiry worker) and never stranded.
 */
import type { Redis } from 'ioredis';
import { newApprovalId, isApprovalId } from './approval-id.ts';
import { decidersOf, describeIdentity, mayDecide } from './approval-authority.ts';
import { runScript } from '../redis/redis-script.ts';
import { CLAIM_SCRIPT, CREATE_SCRIPT, DECIDE_SCRIPT, SAVE_RESULT_SCRIPT } from './approval-scripts.ts';
import type {
  ApprovalAuditEntry,
  ApprovalRecord,
  ApprovalStatus,
  ApprovalStore,
  ChannelIdentity,
  DecisionOutcome,
  DecisionRefusal,
  ExecutionResult,
} from './approval-types.ts';
import { argsHash } from './canonical-json.ts';
import { newShortCode, normalizeShortCode } from './short-code.ts';

/** Options of {@link createApprovalStore}. */
export interface ApprovalStoreOptions {
  /** A connection the caller owns (and closes). No ioredis `keyPrefix`. */
  readonly redis: Redis;
  /** Key prefix; the store's keys are `<prefix>:apr:…`. Default `sb`. */
  readonly prefix?: string;
  /**
   * The time of creation, decisions and audit lines, and of the late-answer check against
   * `expiresAt`. Default `() => new Date()`.
   */
  readonly clock?: () => Date;
  /** Makes short codes. Default: {@link newShortCode} (6 random characters). Tests inject collisions. */
  readonly newShortCode?: () => string;
  /** Codes tried per `create` before giving up with an error. Default 50. */
  readonly maxShortCodeTries?: number;
}

/** Default and maximum of `list`'s `limit`. */
const DEFAULT_LIST_LIMIT = 100;

function refusal(reason: DecisionRefusal, message: string, record?: ApprovalRecord): DecisionOutcome {
  return record === undefined ? { ok: false, refusal: reason, message } : { ok: false, refusal: reason, message, record };
}

function alreadyDecidedMessage(record: ApprovalRecord): string {
  const at = record.decidedAt ?? 'an unknown time';
  if (record.status === 'expired') return `Already expired at ${at}.`;
  const who = record.decidedBy === undefined ? 'someone' : describeIdentity(record.decidedBy);
  return `Already ${record.status} by ${who} at ${at}.`;
}

function asStringArray(reply: unknown): string[] {
  if (!Array.isArray(reply)) throw new Error(`Approval store: unexpected script reply ${JSON.stringify(reply)}`);
  return reply.map(String);
}

/**
 * Creates an {@link ApprovalStore} on `redis`. Decision outcomes are values: `decide` and `expire`
 * reject only when Redis fails.
 *
 * @example
 * const approvals = createApprovalStore({ redis });
 * const record = await approvals.create({ ...call, approvers, requester, allowRequester: false, ttlMs: 3_600_000, replyTo });
 * const outcome = await approvals.decide({ approvalId: record.approvalId, decision: 'granted', by });
 */
export function createApprovalStore(options: ApprovalStoreOptions): ApprovalStore {
  const { redis } = options;
  const base = `${options.prefix ?? 'sb'}:apr`;
  const clock = options.clock ?? (() => new Date());
  const makeCode = options.newShortCode ?? newShortCode;
  const maxTries = options.maxShortCodeTries ?? 50;

  const recordKey = (id: string): string => `${base}:rec:${id}`;
  const auditKey = (id: string): string => `${base}:audit:${id}`;
  const statusKey = (status: ApprovalStatus): string => `${base}:status:${status}`;
  const allKey = `${base}:all`;
  const claimKey = (id: string): string => `${base}:exec:${id}`;
  const resultKey = (id: string): string => `${base}:result:${id}`;
  /** The pending indexes an identity is listed under: its address, and its person when it has one. */
  const indexKeysOf = (identity: ChannelIdentity): string[] => {
    const keys = [`${base}:pending:addr:${identity.channel}:${identity.address}`];
    if (identity.personId !== undefined) keys.push(`${base}:pending:person:${identity.personId}`);
    return keys;
  };
  const indexKeysOfRecord = (record: Pick<ApprovalRecord, 'approvers' | 'requester' | 'allowRequester'>): string[] => [
    ...new Set(decidersOf(record).flatMap(indexKeysOf)),
  ];

  const get = async (approvalId: string): Promise<ApprovalRecord | undefined> => {
    if (!isApprovalId(approvalId)) return undefined;
    const raw = await redis.hget(recordKey(approvalId), 'record');
    return raw === null ? undefined : (JSON.parse(raw) as ApprovalRecord);
  };

  const getMany = async (ids: readonly string[]): Promise<ApprovalRecord[]> => {
    if (ids.length === 0) return [];
    const pipeline = redis.pipeline();
    for (const id of ids) pipeline.hget(recordKey(id), 'record');
    const replies = (await pipeline.exec()) ?? [];
    const records: ApprovalRecord[] = [];
    for (const [error, raw] of replies) {
      if (error !== null) throw error;
      if (typeof raw === 'string') records.push(JSON.parse(raw) as ApprovalRecord);
    }
    return records;
  };

  const appendAudit = async (approvalId: string, entry: ApprovalAuditEntry): Promise<void> => {
    await redis.rpush(auditKey(approvalId), JSON.stringify(entry));
  };

  /** Pending approvals listed in `approver`'s indexes that it may really decide, oldest first. */
  const pendingOf = async (approver: ChannelIdentity): Promise<ApprovalRecord[]> => {
    const maps = await Promise.all(indexKeysOf(approver).map((key) => redis.hgetall(key)));
    const ids = [...new Set(maps.flatMap((map) => Object.values(map)))];
    const records = await getMany(ids);
    return records
      .filter((record) => record.status === 'pending' && mayDecide(record, approver))
      .sort((a, b) => Date.parse(a.createdAt) - Date.parse(b.createdAt));
  };

  /** Runs the compare-and-set from `pending` to `status` with `next` as the new record. */
  const compareAndSet = async (
    current: ApprovalRecord,
    next: ApprovalRecord,
    nowMs: number,
    enforceExpiry: boolean,
    entry: ApprovalAuditEntry,
  ): Promise<{ readonly result: 'ok' | 'missing' } | { readonly result: 'decided' | 'late'; readonly record: ApprovalRecord }> => {
    const id = current.approvalId;
    const reply = asStringArray(
      await runScript(
        redis,
        DECIDE_SCRIPT,
        [recordKey(id), auditKey(id), statusKey('pending'), statusKey(next.status), ...indexKeysOfRecord(current)],
        [id, next.status, JSON.stringify(next), nowMs, enforceExpiry ? '1' : '0', JSON.stringify(entry)],
      ),
    );
    const [result, raw] = reply;
    if (result === 'ok' || result === 'missing') return { result };
    if ((result === 'decided' || result === 'late') && raw !== undefined) return { result, record: JSON.parse(raw) as ApprovalRecord };
    throw new Error(`Approval store: unexpected decide reply ${JSON.stringify(reply)}`);
  };

  const unknown = (): DecisionOutcome => refusal('unknown_approval', 'No approval with that id.');

  return {
    async create(input) {
      if (!Number.isFinite(input.ttlMs) || input.ttlMs <= 0) {
        throw new RangeError(`Approval ttlMs must be a positive number of milliseconds, got ${String(input.ttlMs)}`);
      }
      if (input.approvers.length === 0 && !input.allowRequester) {
        throw new RangeError('An approval needs at least one approver (or allowRequester): nobody could decide it');
      }
      const hash = argsHash(input.args);
      const now = clock();
      const createdAt = now.toISOString();
      const expiresAt = new Date(now.getTime() + input.ttlMs).toISOString();
      const indexKeys = indexKeysOfRecord(input);
      for (let tries = 0; tries < maxTries; tries += 1) {
        const shortCode = makeCode();
        const record: ApprovalRecord = {
          approvalId: newApprovalId(),
          shortCode,
          sessionId: input.sessionId,
          turnId: input.turnId,
          actor: input.actor,
          toolName: input.toolName,
          toolCallId: input.toolCallId,
          args: input.args,
          argsHash: hash,
          approvers: input.approvers,
          requester: input.requester,
          allowRequester: input.allowRequester,
          createdAt,
          expiresAt,
          status: 'pending',
          replyTo: input.replyTo,
          ...(input.askedBecause === undefined ? {} : { askedBecause: input.askedBecause }),
        };
        const entry: ApprovalAuditEntry = { at: createdAt, action: 'requested', by: input.requester };
        const id = record.approvalId;
        const saved = await runScript(
          redis,
          CREATE_SCRIPT,
          [recordKey(id), auditKey(id), allKey, statusKey('pending'), ...indexKeys],
          [id, shortCode, JSON.stringify(record), Date.parse(expiresAt), Date.parse(createdAt), JSON.stringify(entry)],
        );
        if (saved === 1) return record;
      }
      throw new Error(`Approval store: no free short code after ${maxTries} tries`);
    },

    get,

    async findByShortCode(approver, code) {
      const normalized = normalizeShortCode(code);
      if (normalized === undefined) return undefined;
      const ids = await Promise.all(indexKeysOf(approver).map((key) => redis.hget(key, normalized)));
      const records = await getMany([...new Set(ids.filter((id): id is string => id !== null))]);
      return records.find((record) => record.status === 'pending' && record.shortCode === normalized && mayDecide(record, approver));
    },

    pendingFor: pendingOf,

    async decide(attempt) {
      const record = await get(attempt.approvalId);
      if (record === undefined) return unknown();
      const now = clock();
      const at = now.toISOString();
      if (attempt.by.verified === false) {
        const basis = attempt.by.basis === undefined ? '' : ` (${attempt.by.basis})`;
        await appendAudit(record.approvalId, { at, action: 'refused', by: attempt.by, detail: `${attempt.decision}: the sender could not be verified${basis}` });
        return refusal('unverified', 'Your identity could not be verified, so nothing was decided.', record);
      }
      if (!mayDecide(record, attempt.by)) {
        const why =
          !record.allowRequester && mayDecide({ ...record, allowRequester: true }, attempt.by)
            ? 'the requester may not decide their own request'
            : 'not an approver';
        await appendAudit(record.approvalId, { at, action: 'refused', by: attempt.by, detail: `${attempt.decision}: ${why}` });
        return refusal('not_an_approver', 'You are not allowed to decide this approval.');
      }
      if (attempt.argsHash !== undefined && attempt.argsHash !== record.argsHash) {
        await appendAudit(record.approvalId, {
          at,
          action: 'refused',
          by: attempt.by,
          detail: `${attempt.decision}: the answer is for different arguments (argsHash ${attempt.argsHash})`,
        });
        return refusal('args_mismatch', 'This answer is for a different version of the call; nothing was changed.', record);
      }
      const next: ApprovalRecord = {
        ...record,
        status: attempt.decision,
        decidedBy: attempt.by,
        decidedAt: at,
        ...(attempt.reason === undefined ? {} : { reason: attempt.reason }),
      };
      const entry: ApprovalAuditEntry = {
        at,
        action: attempt.decision,
        by: attempt.by,
        ...(attempt.reason === undefined ? {} : { detail: attempt.reason }),
      };
      const outcome = await compareAndSet(record, next, now.getTime(), true, entry);
      switch (outcome.result) {
        case 'ok':
          return { ok: true, record: next };
        case 'missing':
          return unknown();
        case 'late':
          await appendAudit(record.approvalId, {
            at,
            action: 'refused',
            by: attempt.by,
            detail: `${attempt.decision}: too late, the approval expired at ${outcome.record.expiresAt}`,
          });
          return refusal(
            'expired',
            `Too late: this approval expired at ${outcome.record.expiresAt}; your answer was not recorded.`,
            outcome.record,
          );
        case 'decided':
          await appendAudit(record.approvalId, {
            at,
            action: 'refused',
            by: attempt.by,
            detail: `${attempt.decision}: already ${outcome.record.status}`,
          });
          return refusal('already_decided', alreadyDecidedMessage(outcome.record), outcome.record);
      }
    },

    async expire(approvalId) {
      const record = await get(approvalId);
      if (record === undefined) return unknown();
      const now = clock();
      const at = now.toISOString();
      const next: ApprovalRecord = { ...record, status: 'expired', decidedAt: at };
      const outcome = await compareAndSet(record, next, now.getTime(), false, { at, action: 'expired' });
      switch (outcome.result) {
        case 'ok':
          return { ok: true, record: next };
        case 'missing':
          return unknown();
        case 'late':
        case 'decided':
          return refusal('already_decided', alreadyDecidedMessage(outcome.record), outcome.record);
      }
    },

    async audit(approvalId) {
      if (!isApprovalId(approvalId)) return [];
      const lines = await redis.lrange(auditKey(approvalId), 0, -1);
      return lines.map((line) => JSON.parse(line) as ApprovalAuditEntry);
    },

    async list(listOptions = {}) {
      const limit = Math.max(0, Math.floor(listOptions.limit ?? DEFAULT_LIST_LIMIT));
      if (limit === 0) return [];
      const key = listOptions.status === undefined ? allKey : statusKey(listOptions.status);
      const ids = await redis.zrevrange(key, 0, limit - 1);
      return getMany(ids);
    },

    async claimExecution(approvalId) {
      const reply = isApprovalId(approvalId)
        ? asStringArray(await runScript(redis, CLAIM_SCRIPT, [recordKey(approvalId), claimKey(approvalId)], []))
        : ['not_granted', ''];
      const [result, status] = reply;
      if (result === 'first') return { first: true };
      if (result === 'not_granted') {
        throw new Error(
          status === '' ? `No approval ${approvalId} to execute` : `Approval ${approvalId} is ${status ?? 'unknown'}, not granted: it must not run`,
        );
      }
      const raw = await redis.get(resultKey(approvalId));
      return raw === null ? { first: false } : { first: false, result: JSON.parse(raw) as ExecutionResult };
    },

    async saveExecution(approvalId, result) {
      if (!isApprovalId(approvalId)) throw new Error(`No approval ${approvalId} to save a result for`);
      const entry: ApprovalAuditEntry = {
        at: clock().toISOString(),
        action: 'executed',
        ...(result.isError ? { detail: 'the handler reported an error' } : {}),
      };
      await runScript(
        redis,
        SAVE_RESULT_SCRIPT,
        [resultKey(approvalId), auditKey(approvalId)],
        [JSON.stringify({ content: result.content, isError: result.isError }), JSON.stringify(entry)],
      );
    },
  };
}
