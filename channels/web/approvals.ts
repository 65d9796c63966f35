/**
 * `POST /api/approvals/:approvalId`: the Approve / Deny buttons of the web chat's approval card.
 * The decider is the request's session (`web:<identity>`, with its person when signed in), never
 * anything the request names: the request needs the session cookie (401), its CSRF token and this
 * service's origin (403). A `conversationId` in the body must be a conversation the session owns
 * (403 otherwise, refused before any decision and logged). The decision itself (who may decide,
 * first answer wins, refusals recorded in the audit trail) belongs to the `decide` function given;
 * this route only validates and translates its outcome to HTTP.
 */

import type { ServerResponse } from 'node:http';
import { readJsonObject, sendJson, type Route } from '../../src/runtime/http/router.ts';
import type { ChannelIdentity, DecisionOutcome, DecisionRefusal } from '../../src/runtime/approvals/approval-types.ts';
import { isConversationId } from './conversation-id.ts';
import { decidedByLabel } from '../../src/runtime/approvals/approval-authority.ts';
import { notYourConversation } from './identity/conversation-owner.ts';
import type { WebIdentity } from './identity/web-identity.ts';
import { deciderOf } from './identity/web-principal.ts';

const MAX_BODY_BYTES = 4 * 1024;
const APPROVAL_ID = /^[A-Za-z0-9_-]{1,128}$/;

/** Where the web routes report refused attempts worth an operator's attention (a pino logger fits). */
export interface WebRoutesLogger {
  warn(facts: Readonly<Record<string, unknown>>, message: string): void;
}

/** What {@link WebApprovalRouteOptions.decide} is asked. */
export interface WebApprovalDecision {
  readonly approvalId: string;
  readonly decision: 'granted' | 'denied';
  /** The decider: the session's `web:<identity>`, verified, with its person and basis. */
  readonly by: ChannelIdentity;
  /** The conversation the card was shown in, when the page named it (owned by the decider). */
  readonly conversationId?: string;
  /** The arguments' hash the card showed; when given, it must match the pending call. */
  readonly argsHash?: string;
}

/** Options of {@link createWebApprovalRoute}. */
export interface WebApprovalRouteOptions {
  /** Takes the decision (typically the service's `decide`, i.e. `ApprovalStore.decide` and what follows). */
  readonly decide: (input: WebApprovalDecision) => Promise<DecisionOutcome>;
  readonly identity: WebIdentity;
  /** Where answers naming another's conversation are logged. Default: not logged. */
  readonly logger?: WebRoutesLogger;
}

/** HTTP status of each refusal. */
const REFUSAL_STATUS: Readonly<Record<DecisionRefusal, number>> = {
  unknown_approval: 404,
  unverified: 403,
  not_an_approver: 403,
  already_decided: 409,
  expired: 410,
  args_mismatch: 409,
};

function badRequest(res: ServerResponse, field: string, message: string): void {
  sendJson(res, 400, { error: { code: 'http.bad_request', message, details: { field } } });
}

/** Creates the route taking approval decisions from the web chat page. */
export function createWebApprovalRoute(options: WebApprovalRouteOptions): Route {
  return {
    method: 'POST',
    pattern: '/api/approvals/:approvalId',
    async handler({ req, res, params }) {
      const session = await options.identity.requirePost(req);
      const approvalId = params['approvalId'] ?? '';
      if (!APPROVAL_ID.test(approvalId)) {
        badRequest(res, 'approvalId', 'The approval id must be 1 to 128 characters of A-Z, a-z, 0-9, "_" and "-".');
        return;
      }
      const body = await readJsonObject(req, MAX_BODY_BYTES);
      const decision = body['decision'];
      if (decision !== 'granted' && decision !== 'denied') {
        badRequest(res, 'decision', '"decision" must be "granted" or "denied".');
        return;
      }
      const conversationId = body['conversationId'];
      if (conversationId !== undefined && (typeof conversationId !== 'string' || !isConversationId(conversationId))) {
        badRequest(res, 'conversationId', '"conversationId" must be 1 to 64 characters of A-Z, a-z, 0-9, "_" and "-".');
        return;
      }
      const argsHash = body['argsHash'];
      if (argsHash !== undefined && (typeof argsHash !== 'string' || !/^[0-9a-f]{64}$/.test(argsHash))) {
        badRequest(res, 'argsHash', '"argsHash" must be the 64 hex digits of the request\'s arguments hash.');
        return;
      }
      const by = deciderOf(session);
      if (conversationId !== undefined && !(await options.identity.owners.owns(conversationId, session.identity))) {
        options.logger?.warn({ approvalId, decision, conversationId, by }, 'approval answer refused: it names a conversation of another browser');
        throw notYourConversation(conversationId);
      }
      const outcome = await options.decide({
        approvalId,
        decision,
        by,
        ...(conversationId === undefined ? {} : { conversationId }),
        ...(argsHash === undefined ? {} : { argsHash }),
      });
      if (outcome.ok) {
        const { record } = outcome;
        sendJson(res, 200, { approvalId, status: record.status, decidedBy: decidedByLabel(record), decidedAt: record.decidedAt });
        return;
      }
      const record = outcome.record;
      sendJson(res, REFUSAL_STATUS[outcome.refusal], {
        error: {
          code: `approval.${outcome.refusal}`,
          message: outcome.message,
          details: {
            approvalId,
            refusal: outcome.refusal,
            ...(record === undefined
              ? {}
              : { status: record.status, decidedBy: decidedByLabel(record), decidedAt: record.decidedAt }),
          },
        },
      });
    },
  };
}
