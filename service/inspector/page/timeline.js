/* global document, EventSource, CSS */
/**
 * The timeline page's live view: follows the conversation's log over Server-Sent Events and
 * appends each new entry's row under its turn, as the server renders rows (`timeline-html.ts`).
 * Every value goes into the page as a text node or a DOM property: no string is parsed as HTML.
 */

const timeline = document.getElementById('timeline');
const live = document.getElementById('live');

/** Creates an element with a class name and, optionally, text content. */
function make(tag, className, text) {
  const element = document.createElement(tag);
  if (className) element.className = className;
  if (text !== undefined) element.textContent = text;
  return element;
}

/** The element id of an entry's row (as `entryElementId` on the server). */
function entryElementId(id) {
  return `entry-${String(id).replace(/[^A-Za-z0-9_-]/g, '_')}`;
}

/** A path on this site or an in-page anchor; anything else is not made a link. */
function safeHref(href) {
  return typeof href === 'string' && /^(\/(?!\/)|#)[^\s\\]*$/.test(href) ? href : undefined;
}

function setLive(state, text) {
  if (!live) return;
  live.dataset.state = state;
  live.textContent = text;
}

/** The row of one entry view. */
function entryRow(view) {
  const row = make('li', `entry${view.tone ? ` tone-${view.tone}` : ''}`);
  row.id = entryElementId(view.id);
  row.dataset.id = String(view.id);
  row.dataset.type = String(view.type);
  if (view.turnId) row.dataset.turn = String(view.turnId);
  if (view.providerMessageId) row.dataset.providerMessageId = String(view.providerMessageId);
  const head = make('div', 'entry-head');
  const time = make('time', '', String(view.at ?? ''));
  time.dateTime = String(view.at ?? '');
  head.append(time, make('span', 'entry-title', String(view.title ?? view.type)));
  if (view.actor) head.append(make('span', 'muted', String(view.actor)));
  row.append(head);
  const fields = Array.isArray(view.fields) ? view.fields : [];
  if (fields.length > 0) {
    const list = make('dl', 'fields');
    for (const field of fields) {
      const value = make('dd');
      const href = safeHref(field.href);
      if (href) {
        const link = make('a', '', String(field.value));
        link.href = href;
        value.append(link);
      } else value.textContent = String(field.value);
      list.append(make('dt', '', String(field.label)), value);
    }
    row.append(list);
  }
  for (const block of Array.isArray(view.blocks) ? view.blocks : []) {
    const box = make('div', 'block');
    box.append(make('div', 'block-label', String(block.label)), make('pre', '', String(block.text)));
    row.append(box);
  }
  const raw = make('details');
  raw.append(make('summary', '', 'Raw entry'), make('pre', '', String(view.raw ?? '')));
  row.append(raw);
  return row;
}

/** A new section for a turn (or for entries of no turn), at the end of the timeline. */
function newSection(view, turnId) {
  const section = make('section', 'turn');
  if (turnId) section.dataset.turn = turnId;
  section.dataset.section = turnId || `between-${view.id}`;
  section.append(make('h2', '', turnId ? `Turn ${turnId}${view.actor ? ` · ${view.actor}` : ''}` : 'Outside any turn'), make('ol', 'entries'));
  timeline.querySelector('.empty')?.remove();
  timeline.append(section);
  return section;
}

/** The section an entry belongs in: its turn's, its delivery's (a provider status), or the last run of no turn. */
function sectionFor(view) {
  if (view.turnId) {
    return timeline.querySelector(`section[data-turn="${CSS.escape(String(view.turnId))}"]`) ?? newSection(view, String(view.turnId));
  }
  if (view.type === 'delivery_status' && view.providerMessageId) {
    const sent = timeline.querySelector(`li[data-type="delivery"][data-provider-message-id="${CSS.escape(String(view.providerMessageId))}"]`);
    const section = sent?.closest('section');
    if (section) return section;
  }
  const sections = timeline.querySelectorAll('section');
  const last = sections[sections.length - 1];
  return last && !last.dataset.turn ? last : newSection(view, undefined);
}

function append(view) {
  if (!view || typeof view !== 'object' || document.getElementById(entryElementId(view.id))) return;
  const section = sectionFor(view);
  const entries = section.querySelector('ol.entries') ?? section.appendChild(make('ol', 'entries'));
  entries.append(entryRow(view));
}

if (timeline && timeline.dataset.live === 'true') {
  const url = `${timeline.dataset.events}?after=${encodeURIComponent(timeline.dataset.after ?? '0')}`;
  const source = new EventSource(url);
  source.addEventListener('open', () => setLive('connected', 'Live: new entries appear as they are written.'));
  source.addEventListener('entry', (event) => {
    try {
      append(JSON.parse(event.data));
    } catch (error) {
      setLive('connected', `Live, but an entry could not be shown: ${error instanceof Error ? error.message : String(error)}`);
    }
  });
  source.addEventListener('end', () => {
    source.close();
    setLive('ended', 'Stopped following this conversation; reload the page to follow it again.');
  });
  source.addEventListener('error', () => {
    if (source.readyState === EventSource.CLOSED) setLive('closed', 'Live updates stopped; reload the page.');
    else setLive('reconnecting', 'Reconnecting to live updates…');
  });
}
