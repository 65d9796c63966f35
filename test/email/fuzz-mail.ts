/**
 * Raw mail for the property tests of the email intake path: random bytes, header blocks of real
 * and made-up fields with odd values, and MIME trees (alternatives, HTML, attachments, broken
 * encodings). Also an in-memory {@link EmailStore}, so thousands of mails need no Redis.
 */
import fc from 'fast-check';
import type { EmailStore } from '../../channels/email/email-store.ts';
import { nastyString } from '../support/fuzz-inputs.ts';

const HEADER_NAMES: readonly string[] = [
  'From', 'To', 'Cc', 'Subject', 'Message-ID', 'In-Reply-To', 'References', 'Date', 'Reply-To', 'Sender', 'MIME-Version',
  'Content-Type', 'Content-Transfer-Encoding', 'Content-Disposition', 'Auto-Submitted', 'Return-Path', 'Precedence', 'List-Id',
  'List-Unsubscribe', 'X-Loop', 'X-Autoreply', 'X-Auto-Response-Suppress', 'Authentication-Results', 'DKIM-Signature',
];

const HEADER_VALUES: readonly string[] = [
  '<a@b.c>', 'Ada <ada@example.com>', 'ada@example.com', '"Ada, L." <ADA@Example.COM>', '<>', '@', '"weird" <@>', 'undisclosed-recipients:;',
  'noreply@example.com', 'bot@example.com', 'multipart/mixed; boundary="b1"', 'multipart/alternative; boundary=b2', 'text/html; charset=unknown-8bit',
  'text/plain; charset=utf-16', 'base64', 'quoted-printable', '8bit', '=?utf-8?B?w6k=?=', '=?utf-8?Q?caf=C3=A9?=', '=?x?Q?broken', '=?utf-8?B?####?=',
  'auto-replied', 'no', 'bulk', 'OOF, AutoReply', 'Mon, 1 Jan 2024 10:00:00 +0000', 'not a date', 'mx.example.com; dkim=pass header.d=example.com; dmarc=pass', 'mx.example.com; dmarc=fail; dkim=pass (good) header.d=example.com header.i=@example.com', 'MX.EXAMPLE.COM;;; dkim=', 'mx.example.com; none', 'other.example; dmarc=pass',
  'v=1; a=rsa-sha256; d=example.com; s=sel; b=AAAA; bh=BBBB; h=from', '<sb.a.AAAAAAAAAAAAAAAAAAAAAA.tag.mac@example.com>', '[approval:AAAAAAAAAAAAAAAAAAAAAA] Re: Book?',
];

const headerName = fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...HEADER_NAMES) }, fc.stringMatching(/^[!-9;-~]{1,20}$/));
const headerValue = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...HEADER_VALUES) },
  { weight: 2, arbitrary: fc.emailAddress() },
  { weight: 2, arbitrary: nastyString.map((text) => text.slice(0, 2000)) },
);
const header = fc.tuple(headerName, headerValue).map(([name, value]) => `${name}: ${value}`);
const eol = fc.constantFrom('\r\n', '\n');

const html = fc
  .array(fc.oneof(nastyString.map((text) => text.slice(0, 500)), fc.constantFrom('<p>', '</p>', '<br>', '<blockquote>', '</blockquote>', '<pre>', '</pre>', '<li>', '<script>x', '</script>', '<!-- c', '-->', '<style>', '&amp;', '&constructor;', '&#x1F600;', '&#0;', '<a href="x>y">', '<', '<!DOCTYPE html>')), { maxLength: 20 })
  .map((parts) => parts.join(''));

/** One MIME leaf: a text, an HTML body or an attachment, with its own headers (sometimes wrong). */
const leaf = fc.oneof(
  nastyString.map((text) => `Content-Type: text/plain; charset=utf-8\n\n${text.slice(0, 4000)}`),
  html.map((text) => `Content-Type: text/html\n\n${text}`),
  fc.tuple(fc.uint8Array({ maxLength: 300 }), fc.constantFrom('a.pdf', '', '../../etc/passwd', '=?utf-8?B?w6k=?=.png', 'x'.repeat(300)), fc.constantFrom('base64', 'quoted-printable', 'x-unknown')).map(
    ([bytes, name, encoding]) => `Content-Type: application/octet-stream; name="${name}"\nContent-Disposition: attachment; filename="${name}"\nContent-Transfer-Encoding: ${encoding}\n\n${Buffer.from(bytes).toString('base64')}`,
  ),
  fc.constant('Content-Type: text/plain\nContent-Transfer-Encoding: base64\n\n!!! not base64 !!!'),
  fc.constant('Content-Type: text/plain\nContent-Transfer-Encoding: quoted-printable\n\n=ZZ=\n=E9=3'),
);

/** A multipart body of 0 to 4 parts under `boundary`, sometimes unterminated. */
const multipart = fc.tuple(fc.array(leaf, { maxLength: 4 }), fc.boolean()).map(([parts, closed]) => {
  const body = parts.map((part) => `--b1\n${part}\n`).join('');
  return `MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary="b1"\n\n${body}${closed ? '--b1--\n' : ''}`;
});

/**
 * Raw messages: random bytes, header blocks with a body, and MIME messages, each with an often
 * valid `From`.
 */
export const rawMail: fc.Arbitrary<Buffer> = fc.oneof(
  { weight: 1, arbitrary: fc.uint8Array({ maxLength: 1000 }).map((bytes) => Buffer.from(bytes)) },
  {
    weight: 3,
    arbitrary: fc
      .tuple(fc.option(fc.oneof(fc.emailAddress(), fc.constantFrom('Ada <ada@example.com>', 'bot@example.com', 'no-reply@example.com'))), fc.array(header, { maxLength: 12 }), eol, fc.oneof(nastyString, html))
      .map(([from, headers, end, body]) => Buffer.from(`${[...(from === null ? [] : [`From: ${from}`]), ...headers].join(end)}${end}${end}${body}`)),
  },
  {
    weight: 2,
    arbitrary: fc
      .tuple(fc.emailAddress(), fc.array(header, { maxLength: 6 }), multipart)
      .map(([from, headers, body]) => Buffer.from(`From: ${from}\n${headers.join('\n')}\n${body}`)),
  },
);

/** An {@link EmailStore} in memory: thread keys and seen ids in maps, the rate cap never reached. */
export function memoryEmailStore(): EmailStore {
  const threads = new Map<string, string>();
  const seen = new Set<string>();
  const key = (messageId: string): string => messageId.trim().toLowerCase();
  return {
    rememberThread(messageId, conversationKey) {
      threads.set(key(messageId), conversationKey);
      return Promise.resolve();
    },
    findThread(messageIds, accept) {
      return Promise.resolve(messageIds.map((id) => threads.get(key(id))).find((found): found is string => found !== undefined && accept(found)));
    },
    markSeen(messageId) {
      const fresh = !seen.has(key(messageId));
      seen.add(key(messageId));
      return Promise.resolve(fresh);
    },
    seen(messageId) {
      return Promise.resolve(seen.has(key(messageId)));
    },
    underRateCap() {
      return Promise.resolve(true);
    },
  };
}
