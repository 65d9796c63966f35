/**
 * Reading the JSON of a Cloud API webhook (`object: 'whatsapp_business_account'`): each
 * `entry[].changes[]` of `field: 'messages'` with its business number, contacts, messages and
 * statuses. Pure; anything malformed is left out and counted, never thrown.
 */

/** A sender as `value.contacts[]` names them. */
export interface CloudContact {
  /** The WhatsApp id: the number, digits only. */
  readonly waId: string;
  /** `profile.name`, when given. */
  readonly name?: string;
}

/** One error Meta attached to a message or a status. */
export interface CloudError {
  readonly code?: number;
  readonly title?: string;
  /** `error_data.details`, when given. */
  readonly details?: string;
}

/** One message of `value.messages[]`. */
export interface CloudMessage {
  /** `wamid.…`. */
  readonly id: string;
  /** The sender's number, digits only. */
  readonly from: string;
  /** `text`, `image`, `audio`, `interactive`, `button`, `reaction`, `unsupported` … */
  readonly type: string;
  /** Unix time in seconds, as Meta's string, when given. */
  readonly timestamp?: string;
  /** `context.id`: the message this one replies to (a quote, or the message a button was on). */
  readonly contextId?: string;
  readonly errors: readonly CloudError[];
  /** The whole message object, for the type's own fields. */
  readonly fields: Readonly<Record<string, unknown>>;
}

/** One status of `value.statuses[]`. */
export interface CloudStatusUpdate {
  /** The sent message's `wamid.…`. */
  readonly id: string;
  /** `sent`, `delivered`, `read`, `failed` (others are possible and left to the caller). */
  readonly status: string;
  readonly timestamp?: string;
  /** The recipient's number, digits only. */
  readonly recipientId?: string;
  /** The `biz_opaque_callback_data` the send carried (our delivery's tag), echoed by Meta. */
  readonly callbackData?: string;
  readonly errors: readonly CloudError[];
}

/** One `messages` change of one business number. */
export interface CloudChange {
  /** `value.metadata.phone_number_id`. */
  readonly phoneNumberId: string;
  readonly contacts: readonly CloudContact[];
  readonly messages: readonly CloudMessage[];
  readonly statuses: readonly CloudStatusUpdate[];
}

/** A read webhook. */
export interface CloudWebhook {
  /** `object`, e.g. `whatsapp_business_account`. */
  readonly object: string | undefined;
  readonly changes: readonly CloudChange[];
  /** Changes of other fields, and entries, messages or statuses too malformed to read. */
  readonly skipped: number;
}

type Fields = Readonly<Record<string, unknown>>;

/** `value` as an object, or `undefined`. */
export function recordOf(value: unknown): Fields | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Fields) : undefined;
}

/** `value` as a non-empty string, or `undefined`. */
export function stringOf(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

const listOf = (value: unknown): readonly unknown[] => (Array.isArray(value) ? (value as unknown[]) : []);

/** `T` with its possibly-undefined properties made optional instead. */
type Present<T> = { [K in keyof T as undefined extends T[K] ? never : K]: T[K] } & { [K in keyof T as undefined extends T[K] ? K : never]?: Exclude<T[K], undefined> };

/** Only the defined entries of an object literal, for exact optional properties. */
function present<T extends object>(value: T): Present<T> {
  return Object.fromEntries(Object.entries(value).filter(([, item]) => item !== undefined)) as Present<T>;
}

function readErrors(value: unknown): CloudError[] {
  return listOf(value).flatMap((item) => {
    const error = recordOf(item);
    if (error === undefined) return [];
    const code = error['code'];
    return [present({ code: typeof code === 'number' ? code : undefined, title: stringOf(error['title']) ?? stringOf(error['message']), details: stringOf(recordOf(error['error_data'])?.['details']) })];
  });
}

function readContact(value: unknown): CloudContact | undefined {
  const contact = recordOf(value);
  const waId = stringOf(contact?.['wa_id']);
  return waId === undefined ? undefined : present({ waId, name: stringOf(recordOf(contact?.['profile'])?.['name']) });
}

function readMessage(value: unknown): CloudMessage | undefined {
  const fields = recordOf(value);
  const id = stringOf(fields?.['id']);
  const from = stringOf(fields?.['from']);
  const type = stringOf(fields?.['type']);
  if (fields === undefined || id === undefined || from === undefined || type === undefined) return undefined;
  return { id, from, type, errors: readErrors(fields['errors']), fields, ...present({ timestamp: stringOf(fields['timestamp']), contextId: stringOf(recordOf(fields['context'])?.['id']) }) };
}

function readStatus(value: unknown): CloudStatusUpdate | undefined {
  const fields = recordOf(value);
  const id = stringOf(fields?.['id']);
  const status = stringOf(fields?.['status']);
  if (fields === undefined || id === undefined || status === undefined) return undefined;
  return { id, status, errors: readErrors(fields['errors']), ...present({ timestamp: stringOf(fields['timestamp']), recipientId: stringOf(fields['recipient_id']), callbackData: stringOf(fields['biz_opaque_callback_data']) }) };
}

/** Reads the items of `list`, counting the ones that could not be read. */
function readAll<T>(list: unknown, read: (value: unknown) => T | undefined, skipped: { count: number }): T[] {
  return listOf(list).flatMap((item) => {
    const reading = read(item);
    if (reading !== undefined) return [reading];
    skipped.count += 1;
    return [];
  });
}

function readChange(value: unknown, skipped: { count: number }): CloudChange | undefined {
  const change = recordOf(value);
  const body = recordOf(change?.['value']);
  const phoneNumberId = stringOf(recordOf(body?.['metadata'])?.['phone_number_id']);
  if (change?.['field'] !== 'messages' || body === undefined || phoneNumberId === undefined) return undefined;
  return {
    phoneNumberId,
    contacts: readAll(body['contacts'], readContact, skipped),
    messages: readAll(body['messages'], readMessage, skipped),
    statuses: readAll(body['statuses'], readStatus, skipped),
  };
}

/**
 * Reads a parsed webhook body.
 *
 * @example
 * const { object, changes } = readCloudWebhook(JSON.parse(raw));
 * for (const change of changes) if (change.phoneNumberId === ours) ...
 */
export function readCloudWebhook(body: unknown): CloudWebhook {
  const skipped = { count: 0 };
  const root = recordOf(body);
  const changes = listOf(root?.['entry']).flatMap((entry) => readAll(recordOf(entry)?.['changes'], (change) => readChange(change, skipped), skipped));
  return { object: stringOf(root?.['object']), changes, skipped: skipped.count };
}
