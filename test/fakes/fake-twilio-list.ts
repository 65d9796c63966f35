/**
 * The Messages list of the fake Twilio REST API (`fake-twilio.ts`):
 * `GET /2010-04-01/Accounts/{sid}/Messages.json`, in Twilio's wire format: the `To`, `From`,
 * `DateSent`, `DateSent<` and `DateSent>` filters (a day `YYYY-MM-DD` or an ISO time; a message
 * not sent yet has no `date_sent` and is left out by them), `PageSize` (default 50, at most 1000)
 * and `Page` / `PageToken`, with `next_page_uri` and the other page fields. Messages come newest
 * first (by creation).
 */

/** A stored message as the list filters it. */
export interface ListableMessage {
  readonly to: string;
  readonly from: string | undefined;
  readonly dateCreated: Date;
  readonly dateSent: Date | undefined;
}

/** What the list needs from the fake. */
export interface MessageListContext<M extends ListableMessage> {
  /** Every stored message, oldest first. */
  readonly messages: readonly M[];
  /** A message as Twilio answers it. */
  readonly resource: (message: M) => Record<string, unknown>;
  /** `/2010-04-01/Accounts/{sid}`. */
  readonly accountPath: string;
}

const FILTERS = ['To', 'From', 'DateSent', 'DateSent<', 'DateSent>'] as const;

/** Whether `sent` passes the date filter `name` with `value` (a day compares by day). */
function passesDate(sent: Date | undefined, name: string, value: string): boolean {
  if (sent === undefined) return false;
  const day = /^\d{4}-\d{2}-\d{2}$/.test(value);
  const left = day ? sent.toISOString().slice(0, 10) : sent.toISOString();
  const right = day ? value : new Date(value).toISOString();
  if (name === 'DateSent<') return left <= right;
  if (name === 'DateSent>') return left >= right;
  return left === right;
}

function matches(message: ListableMessage, query: URLSearchParams): boolean {
  const to = query.get('To');
  const from = query.get('From');
  if (to !== null && message.to !== to) return false;
  if (from !== null && message.from !== from) return false;
  return FILTERS.slice(2).every((name) => {
    const value = query.get(name);
    return value === null || passesDate(message.dateSent, name, value);
  });
}

/** One page of the list, as Twilio answers it. */
export function listMessages<M extends ListableMessage>(context: MessageListContext<M>, query: URLSearchParams): Record<string, unknown> {
  const pageSize = Math.min(Math.max(Number(query.get('PageSize') ?? '50') || 50, 1), 1000);
  const page = Math.max(Number(query.get('Page') ?? '0') || 0, 0);
  const matching = context.messages.filter((message) => matches(message, query)).toReversed();
  const start = page * pageSize;
  const records = matching.slice(start, start + pageSize).map(context.resource);
  const pageUri = (index: number): string => {
    const params = new URLSearchParams();
    for (const name of FILTERS) {
      const value = query.get(name);
      if (value !== null) params.set(name, value);
    }
    params.set('PageSize', String(pageSize));
    params.set('Page', String(index));
    if (index > 0) params.set('PageToken', `PA${String(index)}`);
    return `${context.accountPath}/Messages.json?${params.toString()}`;
  };
  return twilioPage({ listKey: 'messages', records, total: matching.length, page, pageSize, pageUri });
}

/** What {@link twilioPage} lays out. */
export interface TwilioPageParts {
  /** The list's field name (`messages`, `incoming_phone_numbers`). */
  readonly listKey: string;
  /** The records of this page. */
  readonly records: readonly unknown[];
  /** How many records match in all. */
  readonly total: number;
  readonly page: number;
  readonly pageSize: number;
  /** The URI of page `index` of the same list. */
  readonly pageUri: (index: number) => string;
}

/** One page of a Twilio list resource, with Twilio's paging fields. */
export function twilioPage(parts: TwilioPageParts): Record<string, unknown> {
  const { records, page, pageSize, pageUri } = parts;
  const start = page * pageSize;
  return {
    end: start + Math.max(records.length - 1, 0),
    first_page_uri: pageUri(0),
    [parts.listKey]: records,
    next_page_uri: parts.total > start + pageSize ? pageUri(page + 1) : null,
    page,
    page_size: pageSize,
    previous_page_uri: page > 0 ? pageUri(page - 1) : null,
    start,
    uri: pageUri(page),
  };
}
