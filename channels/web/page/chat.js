/* global document, window, localStorage, fetch, EventSource, URL, setTimeout, DOMParser, Node */
/**
 * The web chat page. Plain browser JavaScript, no build step.
 *
 * - The browser's identity is the server's: `GET /api/chat/session` sets the signed, HttpOnly
 *   `sb_session` cookie and answers the CSRF token, sent in `x-csrf-token` on every POST. A
 *   browser signed in with a sign-in link is a person ("Signed in as …").
 * - The conversation id comes from `?c=`, else localStorage, else is made up and remembered. A
 *   conversation belongs to the browser that started it; another browser is refused it.
 * - Messages are POSTed with a client message id; a network error is retried once with the same
 *   id, so the server can drop the repeat.
 * - Replies arrive over Server-Sent Events; the browser resends Last-Event-ID when it reconnects,
 *   and events are also deduplicated here by stream id and by (turnId, partId).
 * - Model text is only ever put into the page as text nodes, never as HTML; so is every value of
 *   the envelope's parts (domain data, surfaces' fallbacks, files, sources, approval arguments).
 * - Envelope parts: `domain-data` in the generic view (`generic-view.js`) unless the turn has an A2UI
 *   surface for its kind (`surfaces.js`, `turn-envelope.js`), `artifact` as a download link and
 *   `citation` as numbered sources (`envelope-parts.js`), `approval-request` as a card
 *   (`approval-card.js`).
 */

import { appendText, make, randomId, serverProblem } from './dom.js';
import { createApprovalCards } from './approval-card.js';
import { artifactView } from './envelope-parts.js';
import { createSurfaces } from './surfaces.js';
import { createTurnEnvelope } from './turn-envelope.js';

const CONVERSATION_ID = /^[A-Za-z0-9_-]{1,64}$/;
const STORAGE_KEY = 'switchboard.web.conversationId';
/** Turn states after which a turn shows no working indicator. */
const SETTLED_STATES = new Set(['complete', 'clarifying', 'error', 'passed']);
/** Turn states that show the working indicator, with its wording. */
const WORKING_STATES = new Map([
  ['awaiting', 'Working…'],
  ['delegated', 'Working…'],
  ['suspended', 'Waiting for approval…'],
]);
const RECONNECT_AFTER_CLOSE_MS = 3000;
/** How long to wait after the server refused the stream as one too many, when it gave no Retry-After. */
const TOO_MANY_STREAMS_RETRY_MS = 10000;

const elements = {
  log: byId('log'),
  empty: byId('empty'),
  banner: byId('config-banner'),
  accessBanner: byId('access-banner'),
  identity: byId('identity'),
  connection: byId('connection'),
  form: byId('composer'),
  input: byId('message'),
  newConversation: byId('new-conversation'),
  conversationLabel: byId('conversation-label'),
};

const conversationId = chooseConversation();
const apiBase = '/api/chat/' + encodeURIComponent(conversationId);

/** Stream ids already handled. */
const seenEvents = new Set();
/** `turnId␀partId` of parts already rendered. */
const seenParts = new Set();
/** The person's messages by message id. */
const messages = new Map();
/** Reply containers by turn id. */
const turns = new Map();
let lastEventId = '';

/** The web session: its CSRF token and who the server says this browser is. */
const session = { csrfToken: '', identity: '', person: null };
/** The pending or done `GET /api/chat/session`, or null before the first and after a failure. */
let sessionReady = null;

function byId(id) {
  const element = document.getElementById(id);
  if (element === null) throw new Error('The page lacks #' + id);
  return element;
}

function remember(id) {
  try {
    localStorage.setItem(STORAGE_KEY, id);
  } catch {
    // Storage can be unavailable (private mode); the id then lives as long as the page.
  }
}

function chooseConversation() {
  const fromQuery = new URL(window.location.href).searchParams.get('c');
  if (fromQuery !== null && CONVERSATION_ID.test(fromQuery)) {
    remember(fromQuery);
    return fromQuery;
  }
  let stored;
  try {
    stored = localStorage.getItem(STORAGE_KEY);
  } catch {
    stored = null;
  }
  if (stored !== null && CONVERSATION_ID.test(stored)) return stored;
  const fresh = randomId();
  remember(fresh);
  return fresh;
}

/** Tags the server's safe HTML may hold; anything else is replaced by its text. */
const FORMATTED_TAGS = new Set(['P', 'H2', 'H3', 'H4', 'STRONG', 'EM', 'DEL', 'CODE', 'PRE', 'UL', 'OL', 'LI', 'BLOCKQUOTE', 'A', 'TABLE', 'THEAD', 'TBODY', 'TR', 'TH', 'TD', 'BR', 'HR']);

/**
 * Copies the server-rendered HTML of an answer into `container` node by node, keeping only the
 * allowed tags and, on links, only http(s)/mailto targets: never assigned as markup, so nothing in
 * it can run even if the server's renderer were wrong.
 */
function appendFormatted(container, html) {
  const parsed = new DOMParser().parseFromString(html, 'text/html');
  const copy = (from, to) => {
    for (const node of from.childNodes) {
      if (node.nodeType === Node.TEXT_NODE) {
        to.append(document.createTextNode(node.textContent || ''));
      } else if (node.nodeType === Node.ELEMENT_NODE && FORMATTED_TAGS.has(node.tagName)) {
        const element = document.createElement(node.tagName.toLowerCase());
        if (node.tagName === 'A') {
          const href = node.getAttribute('href') || '';
          if (/^(https?:|mailto:)/i.test(href)) {
            element.setAttribute('href', href);
            element.setAttribute('rel', 'noopener noreferrer nofollow');
            element.setAttribute('target', '_blank');
          }
        }
        copy(node, element);
        to.append(element);
      } else if (node.nodeType === Node.ELEMENT_NODE) {
        copy(node, to);
      }
    }
  };
  copy(parsed.body, container);
}

function isNearBottom() {
  const { scrollTop, scrollHeight, clientHeight } = elements.log;
  return scrollHeight - scrollTop - clientHeight < 80;
}

/** Adds a node at the end of the conversation, following it if the reader was at the bottom. */
function addToLog(node) {
  const follow = isNearBottom();
  elements.empty.hidden = true;
  elements.log.append(node);
  if (follow) elements.log.scrollTop = elements.log.scrollHeight;
}

/* ---------- the web session ---------- */

function showIdentity() {
  if (session.person !== null) {
    elements.identity.textContent = 'Signed in as ' + session.person.name;
    elements.identity.hidden = false;
  } else {
    elements.identity.textContent = '';
    elements.identity.hidden = true;
  }
}

async function loadSession() {
  const response = await fetch('/api/chat/session', { credentials: 'same-origin' });
  if (!response.ok) throw new Error('The session request answered ' + String(response.status));
  const body = await response.json();
  session.csrfToken = body && typeof body.csrfToken === 'string' ? body.csrfToken : '';
  session.identity = body && typeof body.identity === 'string' ? body.identity : '';
  const person = body && body.person && typeof body.person === 'object' ? body.person : null;
  session.person = person !== null && typeof person.name === 'string' ? { id: person.id, name: person.name } : null;
  showIdentity();
}

/** The session, loaded once; `renew` asks again (after a 401: the cookie expired or was revoked). */
function ensureSession(renew) {
  if (renew || sessionReady === null) {
    sessionReady = loadSession().catch((error) => {
      sessionReady = null;
      throw error;
    });
  }
  return sessionReady;
}

/** POSTs JSON with the CSRF token; after a 401 the session is renewed and the POST sent once more. */
async function postJson(url, body) {
  const send = () =>
    fetch(url, {
      method: 'POST',
      credentials: 'same-origin',
      headers: { 'content-type': 'application/json', 'x-csrf-token': session.csrfToken },
      body: JSON.stringify(body),
    });
  await ensureSession(false);
  const response = await send();
  if (response.status !== 401) return response;
  await ensureSession(true);
  return send();
}

function showAccessProblem() {
  const text = make('p', '', 'This conversation belongs to another browser, so it cannot be shown or continued here. ');
  text.append('Use “New conversation” to start your own.');
  elements.accessBanner.replaceChildren(text);
  elements.accessBanner.hidden = false;
}

/* ---------- the person's messages ---------- */

function setMessageState(entry, state, problem) {
  entry.element.dataset.state = state;
  const meta = entry.meta;
  meta.replaceChildren();
  if (state === 'sending') meta.append('Sending…');
  if (state === 'failed') {
    meta.append('Not sent' + (problem ? ': ' + problem : '') + '.');
    const retry = make('button', '', 'Retry');
    retry.type = 'button';
    retry.addEventListener('click', () => {
      void deliver(entry);
    });
    meta.append(retry);
  }
}

function renderMessage(messageId, text, clientId) {
  const existing = messages.get(messageId);
  if (existing) return existing;
  const element = make('article', 'message-person');
  element.dataset.messageId = messageId;
  element.setAttribute('aria-label', 'You');
  const bubble = make('div', 'bubble');
  appendText(bubble, text);
  const meta = make('p', 'message-meta');
  element.append(bubble, meta);
  const entry = { element, meta, text, clientId, state: 'sent' };
  messages.set(messageId, entry);
  addToLog(element);
  return entry;
}

async function postOnce(entry) {
  return postJson(apiBase + '/messages', { text: entry.text, id: entry.clientId });
}

/** Sends a message; a network error is retried once with the same client id. */
async function deliver(entry) {
  entry.state = 'sending';
  setMessageState(entry, 'sending');
  let response;
  try {
    response = await postOnce(entry);
  } catch {
    try {
      response = await postOnce(entry);
    } catch {
      entry.state = 'failed';
      setMessageState(entry, 'failed', 'no connection');
      return;
    }
  }
  if (response.status === 202) {
    entry.state = 'sent';
    setMessageState(entry, 'sent');
  } else {
    entry.state = 'failed';
    setMessageState(entry, 'failed', await serverProblem(response));
  }
}

function sendMessage(text) {
  const clientId = randomId();
  const entry = renderMessage('web:' + conversationId + ':' + clientId, text, clientId);
  elements.log.scrollTop = elements.log.scrollHeight;
  void deliver(entry);
}

/* ---------- replies ---------- */

/** Puts a node in a turn's body (after `after`, else at the end), following it if the reader was at the bottom. */
function placeInTurn(turn, node, after) {
  const follow = isNearBottom();
  if (after) after.after(node);
  else turn.body.append(node);
  if (follow) elements.log.scrollTop = elements.log.scrollHeight;
}

const approvals = createApprovalCards({ postJson, conversationId, viewer: () => session.identity });
const surfaces = createSurfaces({ postAction: (body) => postJson(apiBase + '/actions', body) });
const envelope = createTurnEnvelope({ surfaces, approvalShown: approvals.has, place: placeInTurn });

function turnFor(turnId) {
  let turn = turns.get(turnId);
  if (turn) return turn;
  const element = make('article', 'turn');
  element.dataset.turnId = turnId;
  element.setAttribute('aria-label', 'Reply');
  const body = make('div', 'turn-body');
  const status = make('p', 'turn-status');
  status.hidden = true;
  const working = make('p', 'working');
  working.hidden = true;
  working.append(make('span', 'spinner'), make('span', 'working-text'));
  element.append(body, status, working);
  turn = { element, body, status, working };
  turns.set(turnId, turn);
  addToLog(element);
  return turn;
}

function applyTurnState(turn, turnState) {
  turn.element.dataset.turnState = turnState;
  if (SETTLED_STATES.has(turnState)) {
    turn.working.hidden = true;
    turn.status.hidden = true;
    turn.status.textContent = '';
    return;
  }
  const wording = WORKING_STATES.get(turnState);
  if (wording !== undefined) {
    turn.working.lastChild.textContent = wording;
    turn.working.hidden = false;
  }
}

function summarise(value, limit) {
  let text;
  try {
    text = typeof value === 'string' ? value : JSON.stringify(value, null, 2);
  } catch {
    text = String(value);
  }
  if (text === undefined) return '';
  return text.length > limit ? text.slice(0, limit) + '…' : text;
}

function labelled(className, label, text) {
  const element = make('div', 'part ' + className);
  element.append(make('span', 'part-label', label));
  appendText(element, text);
  return element;
}

function renderPart(event, streamId) {
  const key = event.turnId + '\u0000' + event.partId;
  if (seenParts.has(key)) return;
  seenParts.add(key);
  const part = event.part || { metadata: {} };
  const partType = part.metadata && part.metadata.partType;
  const text = typeof part.text === 'string' ? part.text : '';
  const turn = turnFor(event.turnId);
  let node = null;
  switch (partType) {
    case 'ack':
      node = make('p', 'part part-ack', text);
      break;
    case 'thinking':
    case 'progress':
      // Transient: replaces the previous status line, cleared when the turn settles.
      turn.status.textContent = text || summarise(part.data, 200);
      turn.status.dataset.partType = partType;
      turn.status.hidden = false;
      break;
    case 'response':
      node = make('div', 'part part-response');
      if (typeof event.html === 'string') appendFormatted(node, event.html);
      else appendText(node, text);
      break;
    case 'clarify':
      node = labelled('part-clarify', 'Question', text);
      break;
    case 'error':
      node = labelled('part-error', 'Something went wrong', text);
      node.setAttribute('role', 'alert');
      break;
    case 'approval-request':
      node = approvals.render(part, text);
      break;
    case 'domain-data':
      envelope.domainData(turn, part, event.partId);
      break;
    case 'a2ui-surface':
      node = envelope.surface(turn, part);
      break;
    case 'artifact':
      node = artifactView(part, text);
      break;
    case 'citation':
      envelope.citation(turn, part, text, event.partId);
      break;
    default:
      break; // Not shown in the chat panel (llm-context, reasoning traces and the like).
  }
  if (node !== null) {
    node.dataset.partId = event.partId;
    node.dataset.partType = partType;
    if (streamId) node.dataset.streamId = streamId;
    placeInTurn(turn, node, null);
  }
  applyTurnState(turn, event.turnState);
}

function onEvent(kind, message) {
  const streamId = message.lastEventId;
  if (streamId) {
    if (seenEvents.has(streamId)) return;
    seenEvents.add(streamId);
    lastEventId = streamId;
    elements.log.dataset.lastEventId = streamId;
  }
  let event;
  try {
    event = JSON.parse(message.data);
  } catch {
    return;
  }
  if (!event || typeof event !== 'object') return;
  if (kind === 'message') {
    const entry = renderMessage(event.messageId, event.text, undefined);
    if (entry.state !== 'sent') {
      entry.state = 'sent';
      setMessageState(entry, 'sent');
    }
  } else if (kind === 'part') {
    renderPart(event, streamId);
  } else if (kind === 'approval') {
    if (typeof event.approvalId === 'string') approvals.settle(event.approvalId, event.status, event.decidedBy, event.decidedAt);
  } else if (kind === 'turn') {
    if (turns.has(event.turnId) || !SETTLED_STATES.has(event.turnState)) applyTurnState(turnFor(event.turnId), event.turnState);
  }
}

/* ---------- connection ---------- */

function setConnection(state, text) {
  elements.connection.dataset.state = state;
  elements.connection.textContent = text;
}

function connect() {
  // The browser sends Last-Event-ID on its own reconnects; `after` covers a fresh EventSource.
  const query = lastEventId ? '?after=' + encodeURIComponent(lastEventId) : '';
  const source = new EventSource(apiBase + '/events' + query);
  source.addEventListener('open', () => {
    setConnection('connected', 'Connected');
  });
  for (const kind of ['message', 'part', 'turn', 'approval']) {
    source.addEventListener(kind, (message) => {
      onEvent(kind, message);
    });
  }
  source.addEventListener('error', () => {
    if (source.readyState === EventSource.CLOSED) {
      // The browser gave up (the server answered an error, or is gone): learn why, then try again.
      setConnection('offline', 'Offline, retrying…');
      void recoverStream();
    } else {
      setConnection('reconnecting', 'Reconnecting…');
    }
  });
}

/**
 * After the stream was refused: a HEAD on it says why. 401 renews the session; 403 means the
 * conversation is another browser's, which no retry changes; 429 means too many streams are open
 * (this browser's other tabs, or the server is full): try again after the server's Retry-After.
 */
async function recoverStream() {
  let status;
  let retryAfterMs = TOO_MANY_STREAMS_RETRY_MS;
  try {
    const response = await fetch(apiBase + '/events', { method: 'HEAD', credentials: 'same-origin' });
    status = response.status;
    const seconds = Number(response.headers.get('retry-after'));
    if (Number.isFinite(seconds) && seconds > 0) retryAfterMs = seconds * 1000;
  } catch {
    status = 0;
  }
  if (status === 403) {
    setConnection('offline', 'Not your conversation');
    showAccessProblem();
    return;
  }
  if (status === 401) await ensureSession(true).catch(() => undefined);
  if (status === 429) {
    setConnection('offline', 'Too many open connections; retrying…');
    setTimeout(connect, retryAfterMs);
    return;
  }
  setTimeout(connect, RECONNECT_AFTER_CLOSE_MS);
}

/** Loads the session, then opens the stream (the stream needs the session cookie). */
async function start() {
  try {
    await ensureSession(false);
  } catch {
    setConnection('offline', 'Offline, retrying…');
    setTimeout(() => {
      void start();
    }, RECONNECT_AFTER_CLOSE_MS);
    return;
  }
  connect();
}

/* ---------- configuration banner ---------- */

async function showConfiguration() {
  let status;
  try {
    const response = await fetch('/api/chat/config');
    if (!response.ok) return;
    status = await response.json();
  } catch {
    return;
  }
  if (!status || status.modelConfigured !== false) return;
  const missing = Array.isArray(status.missing) ? status.missing.filter((name) => typeof name === 'string') : [];
  const first = make('p');
  first.append(make('strong', '', 'No model is configured, so nobody will answer yet. '));
  first.append('Set ', make('code', '', 'ANTHROPIC_API_KEY'), ' (and ', make('code', '', 'ANTHROPIC_BASE_URL'));
  first.append(' for an Anthropic-compatible server), then restart switchboard.');
  elements.banner.replaceChildren(first);
  if (missing.length > 0) {
    const second = make('p', '', 'Missing: ');
    missing.forEach((name, index) => {
      if (index > 0) second.append(', ');
      second.append(make('code', '', name));
    });
    elements.banner.append(second);
  }
  elements.banner.hidden = false;
}

/* ---------- composer ---------- */

function fitInput() {
  elements.input.style.height = 'auto';
  elements.input.style.height = String(elements.input.scrollHeight + 2) + 'px';
}

elements.form.addEventListener('submit', (event) => {
  event.preventDefault();
  const text = elements.input.value.trim();
  if (text.length === 0) return;
  elements.input.value = '';
  fitInput();
  sendMessage(text);
  elements.input.focus();
});

elements.input.addEventListener('keydown', (event) => {
  if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
    event.preventDefault();
    elements.form.requestSubmit();
  }
});

elements.input.addEventListener('input', fitInput);

elements.newConversation.addEventListener('click', () => {
  const url = new URL(window.location.href);
  url.searchParams.set('c', randomId());
  window.location.assign(url.toString());
});

elements.conversationLabel.textContent =
  'Conversation ' + (conversationId.length > 16 ? conversationId.slice(0, 8) + '…' : conversationId) + '.';
elements.conversationLabel.title = conversationId;
setConnection('connecting', 'Connecting…');
void start();
void showConfiguration();
elements.input.focus();
