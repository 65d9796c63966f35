import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { signSlackRequest } from '../../test/fakes/slack-requests.ts';
import { nastyString, useFuzzGuards } from '../../test/support/fuzz-inputs.ts';
import { inMemoryRequest } from '../../test/support/in-memory-http.ts';
import { readSlackRequest } from './verify.ts';

useFuzzGuards();

const SECRET = 'fuzz-signing-secret';
const NOW_MS = 1_800_000_000_000;
const headerText = nastyString.map((text) => text.replace(/[^\x20-\x7e]/g, ''));

describe('readSlackRequest properties', () => {
  it('takes a body signed within five minutes as it is, and refuses anything else with 401, never rejecting', async () => {
    await fc.assert(
      fc.asyncProperty(
        nastyString,
        fc.integer({ min: -600, max: 600 }),
        fc.constantFrom('signed', 'other-body', 'other-secret', 'junk', 'none'),
        fc.oneof(fc.constant(undefined), headerText, fc.constantFrom('1e3', '-1', 'NaN', '')),
        fc.oneof(fc.constant(undefined), headerText, fc.constantFrom('2', '1.5', '-0')),
        async (body, skewSeconds, how, oddTimestamp, retryNum) => {
          const timestamp = Math.floor(NOW_MS / 1000) + skewSeconds;
          const signature = {
            signed: signSlackRequest(SECRET, timestamp, body),
            'other-body': signSlackRequest(SECRET, timestamp, `${body} `),
            'other-secret': signSlackRequest('another-secret', timestamp, body),
            junk: 'v0=zz',
            none: undefined,
          }[how];
          const headers = {
            ...(signature === undefined ? {} : { 'x-slack-signature': signature }),
            'x-slack-request-timestamp': oddTimestamp ?? String(timestamp),
            ...(retryNum === undefined ? {} : { 'x-slack-retry-num': retryNum }),
          };
          const reading = await readSlackRequest(inMemoryRequest({ body, headers }), SECRET, NOW_MS);
          const fresh = Math.abs(skewSeconds) <= 300 && oddTimestamp === undefined;
          if (how === 'signed' && fresh && Buffer.from(body, 'utf8').toString('utf8') === body) {
            expect(reading).toMatchObject({ ok: true, body });
          } else if (reading.ok) {
            expect(how).toBe('signed');
          } else {
            expect(reading.status).toBe(401);
          }
          if (reading.ok && reading.retryNum !== undefined) expect(Number.isInteger(reading.retryNum)).toBe(true);
        },
      ),
      { numRuns: 500 },
    );
  });
});
