import { TaskState } from '@a2a-js/sdk';
import { describe, expect, it } from 'vitest';
import { renderA2a, type A2aOutput } from './render.ts';

const destination = { channel: 'a2a', address: 'ctx-1', thread: { taskId: 'task-1', peerId: 'caller' } };

function stateOf(output: A2aOutput | undefined): TaskState | 'final' | undefined {
  if (output?.kind === 'statusUpdate') return output.data.status?.state;
  return output?.kind === 'final' ? 'final' : undefined;
}

describe('the a2a render', () => {
  it('shows ack, thinking and progress as working statuses, clarify as input-required, an approval request as auth-required', () => {
    const part = (partType: string, turnState: string) => renderA2a({ type: 'part', turnId: 't', partId: `t.0.0.${partType}`, turnState, part: { text: 'x', metadata: { partType } } }, destination)[0];
    expect(stateOf(part('ack', 'awaiting'))).toBe(TaskState.TASK_STATE_WORKING);
    expect(stateOf(part('progress', 'delegated'))).toBe(TaskState.TASK_STATE_WORKING);
    expect(stateOf(part('clarify', 'clarifying'))).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(stateOf(part('error', 'error'))).toBe(TaskState.TASK_STATE_FAILED);
    expect(stateOf(part('approval-request', 'suspended'))).toBe(TaskState.TASK_STATE_AUTH_REQUIRED);
    const answer = part('response', 'complete');
    expect(answer?.kind).toBe('artifactUpdate');
    expect(answer?.kind === 'artifactUpdate' ? answer.data.artifact?.parts[0]?.metadata?.['partType'] : undefined).toBe('response');
  });

  it('ends the round only at the settlement: an app\'s own waiting state is work going on', () => {
    const turn = (turnState: string, settled?: true) => renderA2a({ type: 'turn', turnId: 't', turnState, ...(settled === undefined ? {} : { settled }) }, destination);
    expect(stateOf(turn('acme.on-hold')[0])).toBe(TaskState.TASK_STATE_WORKING);
    expect(stateOf(turn('delegated')[0])).toBe(TaskState.TASK_STATE_WORKING);
    expect(turn('suspended')).toEqual([]);
    expect(stateOf(turn('complete', true)[0])).toBe('final');
    expect(stateOf(turn('acme.done', true)[0])).toBe('final');
  });

  it('shows a peer an approval request without the short code, the arguments\' hash or the session', () => {
    const data = { approvalId: 'ap-1', toolName: 'pay_invoice', args: { amount: 120 }, expiresAt: '2026-11-26T16:00:00.000Z', shortCode: 'K7QX3M', argsHash: 'h', session: 'ses_1' };
    const [output] = renderA2a({ type: 'part', turnId: 't', partId: 't.0.approval.0', turnState: 'suspended', part: { data, metadata: { partType: 'approval-request' } } }, destination);
    const shown = output?.kind === 'statusUpdate' ? output.data.status?.message?.parts[0]?.content : undefined;
    expect(shown).toEqual({ $case: 'data', value: { approvalId: 'ap-1', toolName: 'pay_invoice', args: { amount: 120 }, expiresAt: '2026-11-26T16:00:00.000Z' } });
  });

  it('puts every output on the destination\'s task and context', () => {
    const [output] = renderA2a({ type: 'turn', turnId: 't', turnState: 'awaiting' }, destination);
    expect(output?.kind === 'statusUpdate' ? [output.data.taskId, output.data.contextId] : []).toEqual(['task-1', 'ctx-1']);
  });
});
