/**
 * From a raw RFC 5322 message to the facts the channel uses: who sent it, its thread headers, the
 * text the person wrote (quoted history and signatures stripped), its attachments, and its raw
 * header lines for the loop guards. Parsing is lenient: mail that `mailparser` cannot read at all
 * still gives its headers and a readable body, never an exception.
 */
import { simpleParser, type AddressObject, type ParsedMail } from 'mailparser';
import { headerFieldsFromLines, type HeaderField } from './loop-guards.ts';
import { visibleReplyText } from './visible-text.ts';

/** One attachment the person sent (inline images of the message body are left out). */
export interface MailAttachment {
  readonly name: string;
  readonly mimeType: string;
  readonly bytes: Buffer;
}

/** What the channel reads from one mail. */
export interface MailFacts {
  /** The Message-ID with `<>`; a stand-in built from the mailbox position when the mail has none. */
  readonly messageId: string;
  readonly inReplyTo?: string;
  readonly references: readonly string[];
  readonly subject: string;
  /** The `From` address, lower-case; absent when the mail has none that parses. */
  readonly from?: string;
  readonly fromName?: string;
  /** The visible text of the reply. */
  readonly text: string;
  readonly attachments: readonly MailAttachment[];
  readonly headers: readonly HeaderField[];
  /** Set when the MIME structure could not be parsed and the facts come from a plain reading. */
  readonly unparsed?: string;
}

/** Options of {@link readMail}. */
export interface ReadMailOptions {
  /** The Message-ID to use when the mail has none, e.g. `<uid-1700000000-42@imap.invalid>`. */
  readonly fallbackMessageId: string;
}

function firstAddress(from: AddressObject | AddressObject[] | undefined): { address?: string; name?: string } {
  const list = from === undefined ? [] : Array.isArray(from) ? from : [from];
  const entry = list.flatMap((item) => item.value).find((value) => typeof value.address === 'string' && value.address.includes('@'));
  if (entry?.address === undefined) return {};
  return { address: entry.address.trim().toLowerCase(), ...(entry.name === '' ? {} : { name: entry.name }) };
}

function asList(value: string | string[] | undefined): string[] {
  if (value === undefined) return [];
  return (Array.isArray(value) ? value : value.split(/\s+/)).filter((id) => id !== '');
}

function factsOf(parsed: ParsedMail, options: ReadMailOptions): MailFacts {
  const from = firstAddress(parsed.from);
  const html = parsed.html === false ? undefined : parsed.html;
  return {
    messageId: parsed.messageId ?? options.fallbackMessageId,
    ...(parsed.inReplyTo === undefined ? {} : { inReplyTo: parsed.inReplyTo }),
    references: asList(parsed.references),
    subject: parsed.subject ?? '',
    ...(from.address === undefined ? {} : { from: from.address }),
    ...(from.name === undefined ? {} : { fromName: from.name }),
    text: visibleReplyText({ ...(parsed.text === undefined ? {} : { text: parsed.text }), ...(html === undefined ? {} : { html }) }),
    attachments: parsed.attachments
      .filter((attachment) => !attachment.related)
      .map((attachment, index) => ({ name: attachment.filename ?? `attachment-${index + 1}`, mimeType: attachment.contentType, bytes: attachment.content })),
    headers: headerFieldsFromLines(parsed.headerLines),
  };
}

/** A plain reading for mail whose MIME structure breaks the parser: headers split by hand, body as text. */
function plainReading(raw: Buffer, options: ReadMailOptions, reason: string): MailFacts {
  const text = raw.toString('utf8');
  const split = text.search(/\r?\n\r?\n/);
  const head = split < 0 ? text : text.slice(0, split);
  const body = split < 0 ? '' : text.slice(split).trim();
  const headers = head.replace(/\r?\n[ \t]+/g, ' ').split(/\r?\n/).flatMap((line) => {
    const colon = line.indexOf(':');
    return colon <= 0 ? [] : [{ name: line.slice(0, colon).trim().toLowerCase(), value: line.slice(colon + 1).trim() }];
  });
  const header = (name: string): string | undefined => headers.find((line) => line.name === name)?.value;
  const address = /[^\s<>"]+@[^\s<>"]+/.exec(header('from') ?? '')?.[0]?.toLowerCase();
  const messageId = /<[^<>\s]+>/.exec(header('message-id') ?? '')?.[0];
  const inReplyTo = /<[^<>\s]+>/.exec(header('in-reply-to') ?? '')?.[0];
  return {
    messageId: messageId ?? options.fallbackMessageId,
    ...(inReplyTo === undefined ? {} : { inReplyTo }),
    references: [...(header('references') ?? '').matchAll(/<[^<>\s]+>/g)].map((match) => match[0]),
    subject: header('subject') ?? '',
    ...(address === undefined ? {} : { from: address }),
    text: visibleReplyText({ text: body }),
    attachments: [],
    headers,
    unparsed: reason,
  };
}

/**
 * Reads one raw message.
 *
 * @example
 * const facts = await readMail(source, { fallbackMessageId: `<uid-${uidValidity}-${uid}@imap.invalid>` });
 */
export async function readMail(raw: Buffer, options: ReadMailOptions): Promise<MailFacts> {
  try {
    const parsed = await simpleParser(raw, { skipImageLinks: true, maxHtmlLengthToParse: 2_000_000 });
    return factsOf(parsed, options);
  } catch (error) {
    return plainReading(raw, options, error instanceof Error ? error.message : String(error));
  }
}
