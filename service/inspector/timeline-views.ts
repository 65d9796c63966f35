/**
 * The view of any event-log entry (see `entry-view.ts`), with every known type's maker.
 */
import type { StoredEventLogEntry } from '../../src/runtime/session/event-log.ts';
import { ACTION_VIEWS } from './action-views.ts';
import { viewOf, type EntryView, type ViewContext } from './entry-view.ts';
import { TURN_VIEWS } from './turn-views.ts';

const MAKERS = { ...TURN_VIEWS, ...ACTION_VIEWS };

/** The view of `entry`; never throws, whatever the entry holds. */
export function entryView(entry: StoredEventLogEntry, context: ViewContext): EntryView {
  return viewOf(entry, MAKERS, context);
}

/** `href` when it is a path on this site (`/…`, not `//…`) or an in-page anchor (`#…`); links nowhere else are made. */
export function safeHref(href: string | undefined): string | undefined {
  if (href === undefined) return undefined;
  return /^(\/(?!\/)|#)[^\s\\]*$/.test(href) ? href : undefined;
}
