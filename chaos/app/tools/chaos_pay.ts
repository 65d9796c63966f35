/**
 * The chaos run's side effect: each execution appends its approval id, one per line, to the file
 * named by `CHAOS_TOOL_LOG` (set by the runner for its worker processes), so the run can count
 * approved calls executed more than once.
 */
import { appendFileSync } from 'node:fs';

export default {
  name: 'chaos_pay',
  description: 'Pays a reference; needs an approval.',
  scope: 'generalist',
  requiresApproval: true,
  inputSchema: {
    type: 'object',
    properties: { ref: { type: 'string' } },
    required: ['ref'],
    additionalProperties: false,
  },
  handler: (args: { ref: string }, ctx: { approvalDecision?: { approvalId: string } }) => {
    const approvalId = ctx.approvalDecision?.approvalId ?? 'none';
    const log = process.env['CHAOS_TOOL_LOG'];
    if (log !== undefined) appendFileSync(log, `${approvalId}\n`);
    return { paid: args.ref, approvalId };
  },
};
