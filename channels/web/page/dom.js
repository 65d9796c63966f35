/* global document, URL, crypto */
/**
 * DOM helpers shared by the chat page's modules. Everything they put in the page is made with
 * createElement and text nodes: no string is ever parsed as HTML.
 */

/** Creates an element with a class name and, optionally, text content. */
export function make(tag, className, text) {
  const element = document.createElement(tag);
  if (className) element.className = className;
  if (text !== undefined) element.textContent = text;
  return element;
}

/** Appends text as paragraphs (blank lines) and line breaks (single newlines), as text nodes only. */
export function appendText(container, text) {
  const paragraphs = text.replace(/\r\n?/g, '\n').trim().split(/\n[ \t]*\n+/);
  for (const paragraph of paragraphs) {
    const p = make('p');
    paragraph.split('\n').forEach((line, index) => {
      if (index > 0) p.append(make('br'));
      p.append(document.createTextNode(line));
    });
    container.append(p);
  }
}

/** A plain JSON object (not an array, not null). */
export function isRecord(value) {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The first argument that is a non-empty string. */
export function firstString(...values) {
  return values.find((value) => typeof value === 'string' && value.trim().length > 0);
}

/** `text` as an absolute http(s) address, or `undefined`: the only links the page makes from data. */
export function httpUrl(text) {
  if (typeof text !== 'string' || !/^https?:\/\//i.test(text.trim())) return undefined;
  try {
    const url = new URL(text.trim());
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : undefined;
  } catch {
    return undefined;
  }
}

/** A link that opens in a new tab and tells the other site nothing about the page. */
export function externalLink(href, text) {
  const link = make('a', '', text);
  link.href = href;
  link.rel = 'noopener noreferrer';
  link.target = '_blank';
  return link;
}

/** The server's words for a refused request (`error.message` of its JSON), else its status. */
export async function serverProblem(response) {
  try {
    const body = await response.json();
    if (isRecord(body) && isRecord(body.error) && typeof body.error.message === 'string') return body.error.message;
  } catch {
    // Not JSON: fall through to the status.
  }
  return 'the server answered ' + String(response.status);
}

/** 32 hex digits from the browser's random source: ids of messages and actions. */
export function randomId() {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');
}
