/**
 * `POST /api/approvals/:approvalId`: the Approve / Deny buttons of the web chat's approval card.
 * In the web chat, holding the conversation id is the person's identity (`web:<conversationId>`),
 * so the request names its conversation, in the body (`conversationId`) or in the header
 * `x-switchboard-conversation`. The decision itself (who may decide, first answer wins) belongs to
 * the `decide` function given; this route only validates and translates its outcome to HTTP.
 */

import type { ServerResponse } from 'node:http';
import { readJsonObject, sendJson, type Route } from '../../src/runtime/http/router.ts';
import type { DecisionOutcome, DecisionRefusal } from '../../src/runtime/approvals/approval-types.ts';
import { isConversationId } from './conversation-id.ts';
import { decidedByLabel } from '../../src/runtime/approvals/approval-authority.ts';

/** The header the page sends its conversation id in. */
export const CONVERSATION_HEADER = 'x-switchboard-conversation';

const MAX_BODY_BYTES = 4 * 1024;
const APPROVAL_ID = /^[A-Za-z0-9_-]{1,128}$/;

/** What {@link WebApprovalRouteOptions.decide} is asked. */
export interface WebApprovalDecision {
  readonly approvalId: string;
  readonly decision: 'granted' | 'denied';
  /** The conversation the request came from; the decider is `web:<conversationId>`. */
  readonly conversationId: string;
  /** The arguments' hash the card showed; when given, it must match the pending call. */
  readonly argsHash?: string;
}

/** Options of {@link createWebApprovalRoute}. */
export interface WebApprovalRouteOptions {
  /**
   * Takes the decision (typically `ApprovalStore.decide` with `by: { channel: 'web', address:
   * 'web:<conversationId>' }`, then appending the `approval` event to the conversation).
   */
  readonly decide: (input: WebApprovalDecision) => Promise<DecisionOutcome>;
}

/** HTTP status of each refusal. */
const REFUSAL_STATUS: Readonly<Record<DecisionRefusal, number>> = {
  unknown_approval: 404,
  not_an_approver: 403,
  already_decided: 409,
  expired: 410,
  args_mismatch: 409,
};

function badRequest(res: ServerResponse, field: string, message: string): void {
  sendJson(res, 400, { error: { code: 'http.bad_request', message, details: { field } } });
}


function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** Creates the route taking approval decisions from the web chat page. */
export function createWebApprovalRoute(options: WebApprovalRouteOptions): Route {
  return {
    method: 'POST',
    pattern: '/api/approvals/:approvalId',
    async handler({ req, res, params }) {
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
      const fromBody = body['conversationId'];
      if (fromBody !== undefined && typeof fromBody !== 'string') {
        badRequest(res, 'conversationId', '"conversationId" must be a string.');
        return;
      }
      const conversationId = fromBody ?? headerValue(req.headers[CONVERSATION_HEADER]);
      if (conversationId === undefined) {
        badRequest(res, 'conversationId', `The conversation is missing: send "conversationId" or the ${CONVERSATION_HEADER} header.`);
        return;
      }
      if (!isConversationId(conversationId)) {
        badRequest(res, 'conversationId', 'The conversation id must be 1 to 64 characters of A-Z, a-z, 0-9, "_" and "-".');
        return;
      }
      const argsHash = body['argsHash'];
      if (argsHash !== undefined && (typeof argsHash !== 'string' || !/^[0-9a-f]{64}$/.test(argsHash))) {
        badRequest(res, 'argsHash', '"argsHash" must be the 64 hex digits of the request\'s arguments hash.');
        return;
      }
      const outcome = await options.decide({ approvalId, decision, conversationId, ...(argsHash === undefined ? {} : { argsHash }) });
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
