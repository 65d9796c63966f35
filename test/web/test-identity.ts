/**
 * A real {@link WebIdentity} for route tests: over the test Redis, with a fixed secret and the
 * given people.
 */
import type { Redis } from 'ioredis';
import { createWebIdentity, type WebIdentity, type WebPerson } from '../../channels/web/identity/web-identity.ts';

/** The session secret of route tests (never a real one). */
export const TEST_SESSION_SECRET = 'test-session-secret-0123456789abcdef';

/** Options of {@link createTestIdentity}. */
export interface TestIdentityOptions {
  readonly people?: readonly WebPerson[];
  /** Default `http://localhost:3000`. */
  readonly publicUrl?: string;
  readonly clock?: () => Date;
}

/** Creates the identity service for a test's Redis and prefix. */
export function createTestIdentity(redis: Redis, prefix: string, options: TestIdentityOptions = {}): WebIdentity {
  return createWebIdentity({
    redis,
    prefix,
    secret: TEST_SESSION_SECRET,
    publicUrl: options.publicUrl ?? 'http://localhost:3000',
    people: options.people ?? [],
    ...(options.clock === undefined ? {} : { clock: options.clock }),
  });
}
