import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Injection } from '../../src/runtime/injection.ts';
import { memoryEmailStore, rawMail } from '../../test/email/fuzz-mail.ts';
import { sampleApproval } from '../../test/support/approval-fixtures.ts';
import { fakeDnsResolver } from '../../test/support/dkim.ts';
import { FUZZ_PEOPLE, useFuzzGuards } from '../../test/support/fuzz-inputs.ts';
import { expectWellFormedInjection } from '../../test/support/well-formed-injection.ts';
import { createMailIntake } from './intake.ts';
import { createMessageIds } from './message-ids.ts';
import { normaliseEmailEvent } from './normalise.ts';

useFuzzGuards();

const BOT = 'bot@example.com';
const quiet = { info: () => undefined, warn: () => undefined };

describe('the mail intake (properties)', () => {
  it('takes in any mail without rejecting, and every injection it enqueues is well formed', async () => {
    await fc.assert(
      fc.asyncProperty(rawMail, fc.boolean(), fc.boolean(), fc.boolean(), async (source, tooLarge, knownApproval, trusted) => {
        const enqueued: Injection[] = [];
        let artifacts = 0;
        const take = createMailIntake({
          store: memoryEmailStore(),
          artifacts: {
            put: (artifact) => {
              artifacts += 1;
              return Promise.resolve({ artifactId: `art-${artifacts}`, name: artifact.name, mimeType: artifact.mimeType, sizeBytes: artifact.bytes.length, sha256: '0'.repeat(64), createdAt: '2026-01-01T00:00:00.000Z' });
            },
          },
          approvals: { get: (approvalId) => Promise.resolve(knownApproval ? sampleApproval({ approvalId, status: 'pending' }) : undefined) },
          messageIds: createMessageIds({ secret: 'fuzz-secret', domain: 'example.com' }),
          botAddress: BOT,
          // Either DKIM and DMARC checked here (no DNS records), or the trusted server's Authentication-Results read.
          auth: trusted ? { trustedAuthservId: 'mx.example.com' } : { resolver: fakeDnsResolver({}) },
          normalise: (event) => normaliseEmailEvent(event, { people: FUZZ_PEOPLE, tenantId: 'tenant-1', botAddress: BOT }),
          enqueue: (injection) => {
            enqueued.push(injection);
            return Promise.resolve();
          },
          logger: quiet,
          clock: () => new Date('2026-11-24T10:00:00Z'),
        });
        await take({ uidValidity: 7, uid: 42, source, sizeBytes: source.length, tooLarge });
        expect(enqueued.length).toBeLessThanOrEqual(1);
        for (const injection of enqueued) {
          expectWellFormedInjection(injection, source);
          expect(injection.id).toBe('email:7-42');
          expect(injection.sender.id).not.toBe(BOT);
        }
      }),
      { numRuns: 300 },
    );
  });
});
