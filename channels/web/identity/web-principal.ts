/**
 * What a web session is to the runtime: the sender of its messages and the decider of its
 * approval answers. Both are `web:<identity>`, verified (the server issued the identity), with the
 * configured person when the browser signed in as one.
 */
import type { ChannelIdentity } from '../../../src/runtime/approvals/approval-types.ts';
import type { Sender } from '../../../src/runtime/injection.ts';
import type { SessionRecord } from './session-store.ts';

/** The basis of a session no one signed in to: the server-issued cookie alone. */
export const COOKIE_BASIS = 'web session cookie';

/** The channel address of a browser identity: `web:<identity>`. */
export function webAddressOf(session: Pick<SessionRecord, 'identity'>): string {
  return `web:${session.identity}`;
}

/** The sender of a message posted by the session; `displayName` is the person's name when known. */
export function senderOf(session: SessionRecord, personName?: string): Sender {
  return {
    id: webAddressOf(session),
    verified: true,
    ...(session.personId === undefined ? {} : { personId: session.personId }),
    ...(session.personId === undefined || personName === undefined ? {} : { displayName: personName }),
  };
}

/** What a decision by this session rests on, for the audit trail. */
export function basisOf(session: SessionRecord): string {
  return session.personId === undefined ? COOKIE_BASIS : `${COOKIE_BASIS}; sign-in link: ${session.basis}`;
}

/** The decider of an approval answered by the session. */
export function deciderOf(session: SessionRecord): ChannelIdentity {
  return {
    channel: 'web',
    address: webAddressOf(session),
    ...(session.personId === undefined ? {} : { personId: session.personId }),
    verified: true,
    basis: basisOf(session),
  };
}
