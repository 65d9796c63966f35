/**
 * Where a Slack destination points: the conversation (`address`), and from its thread facts the
 * workspace (`teamId`), the thread (`threadTs`) and, for answers meant for one person only (the
 * click on an approval card), that person (`ephemeralUser`).
 */
import type { Destination } from '../../src/runtime/injection.ts';

/** A destination read for the Slack renderer. */
export interface SlackWhere {
  /** The conversation id. */
  readonly channel: string;
  /** `{ teamId }` when the destination names its workspace, else `{}`: spread into payloads. */
  readonly team: { readonly teamId?: string };
  readonly threadTs?: string;
  /** The user id an answer goes to alone, as an ephemeral message. */
  readonly ephemeralUser?: string;
}

function fact(destination: Destination, key: string): string | undefined {
  const value = destination.thread?.[key];
  return value === undefined || value === '' ? undefined : value;
}

/** Reads `destination`'s address and thread facts (`teamId`, `threadTs`, `ephemeralUser`). */
export function whereOf(destination: Destination): SlackWhere {
  const [teamId, threadTs, ephemeralUser] = [fact(destination, 'teamId'), fact(destination, 'threadTs'), fact(destination, 'ephemeralUser')];
  return {
    channel: destination.address,
    team: teamId === undefined ? {} : { teamId },
    ...(threadTs === undefined ? {} : { threadTs }),
    ...(ephemeralUser === undefined ? {} : { ephemeralUser }),
  };
}

/** `{ threadTs }` of `where`, or `{}`: spread into payloads that may be threaded. */
export function inThread(where: SlackWhere): { readonly threadTs?: string } {
  return where.threadTs === undefined ? {} : { threadTs: where.threadTs };
}
