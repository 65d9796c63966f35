import { describe, expect, it } from 'vitest';
import { SwitchboardError } from '../../src/protocol/errors.ts';
import { captureParams, listRequest, sessionIdParam } from './query-params.ts';

function refusal(run: () => unknown): string | undefined {
  try {
    run();
    return undefined;
  } catch (error) {
    if (!(error instanceof SwitchboardError)) throw error;
    expect(error.code).toBe('http.bad_request');
    return String(error.details['field']);
  }
}

describe('listRequest', () => {
  it('reads every filter, ignores empty ones and defaults the page size', () => {
    const request = listRequest(new URLSearchParams('person=ada&address=%2B15550100&channel=sms&actor=concierge&state=suspended&from=2030-01-01&to=2030-01-02T10:30&cursor=123.4&channel_extra=x&actor='));
    expect(request.query).toEqual({
      person: 'ada',
      address: '+15550100',
      channel: 'sms',
      actor: 'concierge',
      state: 'suspended',
      from: Date.UTC(2030, 0, 1),
      to: Date.UTC(2030, 0, 2, 10, 30),
      cursor: '123.4',
      limit: 50,
    });
    expect(request.filters).toEqual({ person: 'ada', address: '+15550100', channel: 'sms', actor: 'concierge', state: 'suspended', from: '2030-01-01', to: '2030-01-02T10:30' });
  });

  it('takes times with an offset and as milliseconds', () => {
    expect(listRequest(new URLSearchParams('from=2030-01-01T12:00:00%2B02:00&to=1893492000000')).query).toMatchObject({ from: Date.UTC(2030, 0, 1, 10), to: 1893492000000 });
  });

  it('refuses bad values, naming the field', () => {
    const cases: [string, string][] = [
      ['state=lost', 'state'],
      ['channel=SMS!', 'channel'],
      ['actor=a%20b', 'actor'],
      [`person=${'x'.repeat(201)}`, 'person'],
      [`address=${'x'.repeat(201)}`, 'address'],
      ['from=yesterday', 'from'],
      ['to=2030-02-30T10:00', 'to'],
      ['from=2030-01-02&to=2030-01-01', 'from'],
      ['limit=0', 'limit'],
      ['limit=101', 'limit'],
      ['limit=1.5', 'limit'],
      ['limit=ten', 'limit'],
      ['cursor=a%20b', 'cursor'],
      [`cursor=${'1'.repeat(513)}`, 'cursor'],
    ];
    for (const [query, field] of cases) expect({ query, field: refusal(() => listRequest(new URLSearchParams(query))) }).toEqual({ query, field });
  });
});

describe('path parameters', () => {
  it('accept session ids and refuse anything that could reach another key', () => {
    expect(sessionIdParam('ses_abcdefghijklmnopqrstuvwxyz')).toBe('ses_abcdefghijklmnopqrstuvwxyz');
    for (const id of ['', 'a:b', 'a*', '../x', 'x'.repeat(101), undefined]) expect(refusal(() => sessionIdParam(id))).toBe('id');
  });

  it('accept a turn id and a step number', () => {
    expect(captureParams('turn-1.2', '3')).toEqual({ turnId: 'turn-1.2', step: 3 });
    expect(refusal(() => captureParams('turn 1', '0'))).toBe('turnId');
    for (const step of ['-1', '1e3', 'x', '12345', undefined]) expect(refusal(() => captureParams('t', step))).toBe('step');
  });
});
