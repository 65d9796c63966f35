import { describe, expect, it } from 'vitest';
import { SwitchboardError } from '../../src/protocol/errors.ts';
import { readSlackPayload } from './slack-payload.ts';

const TS = '1712345678.000100';
const section = { type: 'section', text: { type: 'mrkdwn', text: 'Hi' } };

/** The fields `readSlackPayload` names as wrong for `payload`, or `[]` when it reads it. */
function wrongFields(payload: Readonly<Record<string, unknown>>): unknown {
  try {
    readSlackPayload(payload);
    return [];
  } catch (error) {
    expect(error).toBeInstanceOf(SwitchboardError);
    expect(error).toMatchObject({ code: 'channel.invalid' });
    return (error as SwitchboardError).details['fields'];
  }
}

describe('readSlackPayload', () => {
  it.each([
    { op: 'post', channel: 'C0123ABC', teamId: 'T0001', threadTs: TS, text: 'Hi', blocks: [section], key: 'approval:abc' },
    { op: 'post', channel: 'D0123', text: 'Hi' },
    { op: 'status', channel: 'C0123ABC', threadTs: TS, status: 'is thinking…' },
    { op: 'status', channel: 'C0123ABC', threadTs: TS, status: '' },
    { op: 'update', channel: 'C0123ABC', lookupKey: 'approval:abc', text: 'Approved', blocks: [section] },
    { op: 'update', channel: 'C0123ABC', ts: TS, text: 'Approved' },
    { op: 'ephemeral', channel: 'C0123ABC', user: 'U0GRACE', threadTs: TS, text: 'Only you see this.' },
  ])('reads a $op payload', (payload) => {
    expect(readSlackPayload(payload)).toBe(payload);
  });

  it.each([
    [{ op: 'delete', channel: 'C0123ABC' }, ['op']],
    [{ op: 'post', channel: 'general', text: 'Hi' }, ['channel']],
    [{ op: 'post', channel: 'C0123ABC', teamId: 't1', threadTs: 'yesterday', text: ' ' }, ['teamId', 'threadTs', 'text']],
    [{ op: 'post', channel: 'C0123ABC', text: 'x'.repeat(40_001) }, ['text']],
    [{ op: 'post', channel: 'C0123ABC', text: 'Hi', blocks: Array.from({ length: 51 }, () => section) }, ['blocks']],
    [{ op: 'post', channel: 'C0123ABC', text: 'Hi', blocks: [] }, ['blocks']],
    [{ op: 'post', channel: 'C0123ABC', text: 'Hi', blocks: [{ text: 'no type' }], key: '' }, ['blocks', 'key']],
    [{ op: 'status', channel: 'C0123ABC', status: 'is thinking…' }, ['threadTs']],
    [{ op: 'status', channel: 'C0123ABC', threadTs: TS, status: 'x'.repeat(51) }, ['status']],
    [{ op: 'update', channel: 'C0123ABC', text: 'Approved' }, ['ts or lookupKey']],
    [{ op: 'ephemeral', channel: 'C0123ABC', text: 'Hi' }, ['user']],
  ])('refuses %j, naming %j', (payload, fields) => {
    expect(wrongFields(payload)).toEqual(fields);
  });
});
