/**
 * Turns that read outside content. A turn is tainted once it read any: an untrusted injection
 * given to the model, or a result of a `readsUntrusted` tool. What it read is kept on the turn's
 * record, in words (`email body`, `result of fetch_page`), so a resumed turn stays tainted. In a
 * tainted turn a tool with an approval policy asks a person even where the policy would let the
 * call run, unless the tool says `untrustedTurns: 'policy'`.
 */
import type { ApprovalRequirement } from '../../protocol/tools/approval-policy.ts';
import type { RegisteredTool } from '../../protocol/tools/tool-definition.ts';
import { contentOf, sourceInWords } from '../content-trust.ts';
import type { Injection } from '../injection.ts';

/** What `injections` add to a turn's outside reads: the source in words of each untrusted one. */
export function untrustedReadsOf(injections: readonly Injection[]): string[] {
  return injections.flatMap((injection) => {
    const content = contentOf(injection);
    return content.trusted ? [] : [sourceInWords(content.source)];
  });
}

/** What a successful call of a `readsUntrusted` tool adds to a turn's outside reads. */
export function toolReadInWords(toolName: string): string {
  return `result of ${toolName}`;
}

/** `reads` followed by the new ones not already in it; `reads` itself when nothing is new. */
export function withReads(reads: readonly string[] | undefined, added: readonly string[]): readonly string[] | undefined {
  const fresh = [...new Set(added)].filter((read) => !(reads ?? []).includes(read));
  return fresh.length === 0 ? reads : [...(reads ?? []), ...fresh];
}

/** Why a call of a turn that read `reads` waits for a person: `this turn read content from outside: email body`. */
export function outsideReadsReason(reads: readonly string[]): string {
  return `this turn read content from outside: ${reads.join(', ')}`;
}

/**
 * The approval a call needs in a turn that read `reads` (empty: an untainted turn). A call the
 * policy would let run needs approval when the tool has a policy (`requiresApproval` not `false`)
 * and does not leave tainted turns to it (`untrustedTurns: 'policy'`). In a tainted turn, the reason
 * of a call that needs approval starts with what the turn read.
 *
 * @example
 * gateTaintedTurn(bookFlight, { required: false, reason: 'auto-approved: …', source: 'expression' }, ['email body']);
 * // { required: true, reason: 'this turn read content from outside: email body; a person must approve …', source: 'expression' }
 */
export function gateTaintedTurn(tool: Pick<RegisteredTool, 'requiresApproval' | 'untrustedTurns'>, requirement: ApprovalRequirement, reads: readonly string[]): ApprovalRequirement {
  if (reads.length === 0) return requirement;
  const read = outsideReadsReason(reads);
  if (requirement.required) return { ...requirement, reason: `${read}; ${requirement.reason}` };
  if (tool.requiresApproval === false || tool.untrustedTurns === 'policy') return requirement;
  return { ...requirement, required: true, reason: `${read}; a person must approve even though the policy alone would let it run (${requirement.reason})` };
}
