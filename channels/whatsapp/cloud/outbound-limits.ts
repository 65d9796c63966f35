/**
 * Meta's limits on what the Cloud API accepts, checked before a send: a message over one is
 * refused here with a permanent {@link DeliveryError} instead of being sent for Meta to refuse.
 * Lengths are counted in UTF-16 code units, which is never less than Meta's count of characters.
 * The text and template-parameter limits live with the payload (`whatsapp-payload.ts`), which the
 * renderer fits to them.
 */
import { DeliveryError } from '../../../queues/delivery-error.ts';

/** Longest caption of an image or document, in characters. */
export const MAX_CAPTION_CHARS = 1024;
/** Longest interactive body, in characters. */
export const MAX_BUTTON_BODY_CHARS = 1024;
/** Longest interactive footer, in characters. */
export const MAX_FOOTER_CHARS = 60;
/** Most reply buttons on one message. */
export const MAX_BUTTONS = 3;
/** Longest reply-button title, in characters. */
export const MAX_BUTTON_TITLE_CHARS = 20;
/** Longest reply-button id, and longest quick-reply payload of a template, in characters. */
export const MAX_BUTTON_ID_CHARS = 256;
/** Longest template name, in characters. */
export const MAX_TEMPLATE_NAME_CHARS = 512;
/** Longest template language code (`en`, `en_US`, `zh_HK` …), in characters. */
export const MAX_LANGUAGE_CHARS = 16;
/** Most buttons on a template. */
export const MAX_TEMPLATE_BUTTONS = 10;

/** The permanent error for a message Meta would refuse. */
export function refused(reason: string): DeliveryError {
  return new DeliveryError(`Not sent: ${reason}, which WhatsApp does not accept.`, { permanent: true });
}

/** Throws {@link refused} unless `text` has 1 to `max` characters. */
export function checkLength(what: string, text: string, max: number): void {
  if (text.length === 0) throw refused(`the ${what} is empty`);
  if (text.length > max) throw refused(`the ${what} has ${text.length} characters, over ${max}`);
}

/**
 * A number for the Cloud API: E.164 without the `+` (`+447700900123` → `447700900123`).
 * @throws DeliveryError (permanent) for anything else, such as a web-mode group id.
 */
export function cloudRecipient(to: string): string {
  const match = /^\+?([1-9][0-9]{1,14})$/.exec(to);
  if (match?.[1] === undefined) throw refused(`the recipient ${JSON.stringify(to)} is not a phone number (the Cloud API cannot reach groups)`);
  return match[1];
}

/**
 * A template parameter as Meta takes it: new lines and tabs (with the spaces around them) become
 * one space, runs of more than four spaces become four, the ends are trimmed.
 *
 * @example
 * templateParam('Book MW 304?\n\nReply below.') // 'Book MW 304? Reply below.'
 */
export function templateParam(text: string): string {
  return text.replace(/ *[\r\n\t]+[ \r\n\t]*/g, ' ').replace(/ {5,}/g, '    ').trim();
}

/** Checks reply buttons: 1 to 3, titles of 1 to 20 characters, ids of 1 to 256, no id twice. */
export function checkButtons(buttons: readonly { readonly id: string; readonly title: string }[]): void {
  if (buttons.length === 0 || buttons.length > MAX_BUTTONS) throw refused(`a message has ${buttons.length} reply buttons, not 1 to ${MAX_BUTTONS}`);
  for (const button of buttons) {
    checkLength('button title', button.title, MAX_BUTTON_TITLE_CHARS);
    checkLength('button id', button.id, MAX_BUTTON_ID_CHARS);
  }
  if (new Set(buttons.map((button) => button.id)).size !== buttons.length) throw refused('two reply buttons share an id');
}
