/**
 * Web chat conversation ids: chosen by the browser, used as Redis key segments and URL segments,
 * so they are restricted to a short, URL-safe alphabet.
 */

const CONVERSATION_ID = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * Whether `value` is a valid web chat conversation id: 1 to 64 characters of `A-Z`, `a-z`, `0-9`,
 * `_` and `-`.
 */
export function isConversationId(value: string): boolean {
  return CONVERSATION_ID.test(value);
}
