/* global URL, window */
/**
 * The envelope parts that are neither text nor surfaces: `artifact` (a file the turn produced: a
 * download link, with a preview for images) and `citation` (numbered sources under the answer).
 * Every field is read defensively and put in the page as text or as an attribute set through the
 * DOM, never as HTML.
 */
import { externalLink, firstString, httpUrl, isRecord, make } from './dom.js';

/** Image types previewed inline (the page's CSP allows same-origin and `data:` images only). */
const PREVIEW_TYPES = /^image\/(png|jpe?g|gif|webp|avif|bmp)$/;
const DATA_IMAGE = /^data:image\/(png|jpe?g|gif|webp|avif|bmp)[;,]/i;

/** `40 KB`, `1.2 MB`, from a byte count. */
function sizeText(bytes) {
  if (typeof bytes !== 'number' || !Number.isFinite(bytes) || bytes < 0) return undefined;
  if (bytes < 1024) return String(bytes) + ' B';
  const units = ['KB', 'MB', 'GB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return (value >= 10 ? Math.round(value).toString() : value.toFixed(1)) + ' ' + (units[unit] ?? 'GB');
}

/**
 * Where the artifact's bytes are, as the page may use it: a same-origin or http(s) address (from
 * `url` or `href`), or a `data:` image; `undefined` when the part gives none (only an id).
 */
function artifactAddress(data) {
  const raw = firstString(data.url, data.href);
  if (raw === undefined) return undefined;
  if (DATA_IMAGE.test(raw)) return { href: raw, sameOrigin: true, dataUrl: true };
  let url;
  try {
    url = new URL(raw, window.location.href);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
  return { href: url.href, sameOrigin: url.origin === window.location.origin, dataUrl: false };
}

/** The file name to show: the part's, else the address's last path segment, else the id. */
function artifactName(data, address) {
  const given = firstString(data.name, data.fileName, data.filename, data.title);
  if (given !== undefined) return given;
  if (address !== undefined && !address.dataUrl) {
    const last = new URL(address.href).pathname.split('/').filter((segment) => segment !== '').at(-1);
    if (last !== undefined) {
      try {
        return decodeURIComponent(last);
      } catch {
        return last;
      }
    }
  }
  return firstString(data.artifactId) ?? 'Attachment';
}

/**
 * An `artifact` part: its name as a download link with type and size, an `<img>` preview for an
 * image the page may load, and the part's text as a caption. Without an address (a part that
 * carries only an artifact id) it says the file cannot be downloaded here.
 */
export function artifactView(part, text) {
  const data = isRecord(part.data) ? part.data : {};
  const address = artifactAddress(data);
  const name = artifactName(data, address);
  const mimeType = firstString(data.mimeType, data.contentType) ?? '';
  const element = make('figure', 'part part-artifact');
  element.setAttribute('aria-label', 'File');
  const image = address !== undefined && address.sameOrigin && (address.dataUrl || PREVIEW_TYPES.test(mimeType.toLowerCase()));
  if (image) {
    const img = make('img', 'artifact-preview');
    img.src = address.href;
    img.alt = firstString(data.alt, data.description, text) ?? name;
    img.loading = 'lazy';
    element.append(img);
  }
  const caption = make('figcaption', 'artifact-caption');
  if (address === undefined) {
    caption.append(make('span', 'artifact-name', name), make('span', 'artifact-note', ' (not available to download here)'));
  } else {
    // A same-origin file (a signed /artifacts/ link, a data: image) downloads under its name.
    const link = address.sameOrigin ? make('a', '', name) : externalLink(address.href, name);
    link.className = 'artifact-link';
    if (address.sameOrigin) {
      link.href = address.href;
      link.download = name;
    }
    caption.append(link);
  }
  const details = [mimeType, sizeText(data.sizeBytes ?? data.size)].filter((value) => typeof value === 'string' && value !== '');
  if (details.length > 0) caption.append(make('span', 'artifact-meta', ' ' + details.join(', ')));
  if (text) caption.append(make('span', 'artifact-text', text));
  element.append(caption);
  return element;
}

/** The sources a `citation` part names: `data.sources`, `data.citations`, or the data itself. */
function citationsOf(part, text) {
  const data = isRecord(part.data) ? part.data : {};
  const list = Array.isArray(data.sources) ? data.sources : Array.isArray(data.citations) ? data.citations : [data];
  return list.filter(isRecord).map((source) => ({
    title: firstString(source.title, source.name, source.label, source.source, source === data ? text : undefined),
    url: httpUrl(firstString(source.url, source.href, source.uri, source.link)),
    snippet: firstString(source.snippet, source.quote, source.excerpt),
    path: firstString(source.path, source.pointer),
  })).filter((source) => source.title !== undefined || source.url !== undefined);
}

/** A section holding a turn's numbered sources; `addCitations` fills it. */
export function citationsSection() {
  const section = make('section', 'part part-citations');
  section.setAttribute('aria-label', 'Sources');
  section.append(make('span', 'part-label', 'Sources'), make('ol', 'citation-list'));
  return section;
}

/** Adds the sources of a `citation` part to a turn's section; how many it added. */
export function addCitations(section, part, text) {
  const list = section.querySelector('ol');
  let added = 0;
  for (const source of citationsOf(part, text)) {
    const item = make('li', 'citation');
    const title = source.title ?? source.url ?? '';
    item.append(source.url === undefined ? make('span', 'citation-title', title) : externalLink(source.url, title));
    if (source.url !== undefined && source.title !== undefined) item.append(make('span', 'citation-host', ' ' + new URL(source.url).host));
    if (source.snippet !== undefined) item.append(make('q', 'citation-snippet', source.snippet));
    if (source.path !== undefined) {
      const path = make('span', 'citation-path', ' for ');
      path.append(make('code', '', source.path));
      item.append(path);
    }
    list.append(item);
    added += 1;
  }
  return added;
}
