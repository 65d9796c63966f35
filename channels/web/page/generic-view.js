/* global document */
/**
 * The generic view of data no surface renders: domain data of a kind without a template, a
 * surface the A2UI renderer could not show, the arguments of an approval request.
 *
 * - a list of flat records is a table (columns in the order keys first appear, headers humanised);
 *   a list of one-field records (`[{ fullName }]`) or of plain values is a bulleted list;
 * - a record is a definition list, nested values indented under their key;
 * - money reads `236 GBP` where a record holds a money key (`totalCost`, `amount`, `price`…) and a
 *   `currency` (which is then not repeated);
 * - anything nested deeper than {@link STRUCTURED_DEPTH}, or too big to lay out, is pretty JSON in a
 *   collapsed `<details>`.
 *
 * Every value goes in as a text node (or an http(s) link's text): nothing is parsed as HTML.
 */
import { externalLink, httpUrl, isRecord, make } from './dom.js';

/** Levels laid out as lists and tables (0 is the value itself); deeper values are shown as JSON. */
const STRUCTURED_DEPTH = 2;
/** A value whose JSON is longer than this, in characters, is shown as JSON. */
const BIG_JSON_CHARS = 20_000;
/** A list longer than this is shown as JSON. */
const MAX_ITEMS = 200;
/** Words of a key that say it holds an amount of money (`totalCost`, `pricePerPerson`, `fee`). */
const MONEY_WORDS = new Set(['cost', 'amount', 'price', 'total', 'subtotal', 'fare', 'fee', 'charge']);

/** `checkInDate`, `check_in_date` and `check-in-date` all read `Check in date`. */
export function humanise(key) {
  const raw = String(key);
  const words = raw
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/[_\-.:/]+/g, ' ')
    .trim()
    .toLowerCase();
  return words === '' ? raw : words.charAt(0).toUpperCase() + words.slice(1);
}

function isMoneyKey(key) {
  return humanise(key).toLowerCase().split(' ').some((word) => MONEY_WORDS.has(word));
}

function isCurrencyKey(key) {
  const compact = key.toLowerCase().replace(/[_-]/g, '');
  return compact === 'currency' || compact === 'currencycode';
}

/** The three-letter currency code a record states, upper-cased, or `undefined`. */
function currencyOf(record) {
  for (const [key, value] of Object.entries(record)) {
    if (isCurrencyKey(key) && typeof value === 'string' && /^[A-Za-z]{3}$/.test(value.trim())) return value.trim().toUpperCase();
  }
  return undefined;
}

/** Whether `key` of `record` holds a finite number under a money key. */
function isMoneyField(record, key) {
  const value = record[key];
  return typeof value === 'number' && Number.isFinite(value) && isMoneyKey(key);
}

/** Whether the record's currency is shown with its money fields, so its own line can go. */
function currencyShownWithMoney(record) {
  return currencyOf(record) !== undefined && Object.keys(record).some((key) => isMoneyField(record, key));
}

/** `236 GBP`, `412.50 EUR`: the amount in the viewer's number format, then the code. */
function formatMoney(amount, currency) {
  const digits = Number.isInteger(amount) ? 0 : 2;
  const number = new Intl.NumberFormat(undefined, { minimumFractionDigits: digits, maximumFractionDigits: 2 }).format(amount);
  return number + ' ' + currency;
}

/** The text of a record that is only an amount and its currency (`{ amount, currency }`), else `undefined`. */
function moneyRecordText(value) {
  if (!isRecord(value)) return undefined;
  const keys = Object.keys(value);
  const currency = currencyOf(value);
  const amountKey = keys.find((key) => isMoneyField(value, key));
  if (keys.length !== 2 || currency === undefined || amountKey === undefined) return undefined;
  return formatMoney(value[amountKey], currency);
}

function isScalar(value) {
  return value === null || typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';
}

/** Nothing to show: no value, an empty string, an empty list or an empty record. */
export function isEmptyValue(value) {
  if (value === undefined || value === null || value === '') return true;
  if (Array.isArray(value)) return value.length === 0;
  return isRecord(value) && Object.keys(value).length === 0;
}

/** A record whose every field is a plain value (or an amount with its currency): one table row. */
function isFlatRecord(value) {
  return isRecord(value) && Object.keys(value).length > 0 && Object.values(value).every((inner) => isScalar(inner) || moneyRecordText(inner) !== undefined);
}

function scalarText(value) {
  if (value === null) return '—';
  if (typeof value === 'boolean') return value ? 'Yes' : 'No';
  return String(value);
}

/** A plain value as a node: text, or a link when the whole string is an http(s) address. */
function scalarNode(value) {
  const href = httpUrl(value);
  if (href !== undefined) return externalLink(href, String(value));
  return document.createTextNode(scalarText(value));
}

function jsonOf(value) {
  try {
    return JSON.stringify(value, null, 2) ?? String(value);
  } catch {
    return String(value);
  }
}

function isBig(value) {
  if (Array.isArray(value) && value.length > MAX_ITEMS) return true;
  return jsonOf(value).length > BIG_JSON_CHARS;
}

/** A collapsed `<details>` with the value as pretty JSON. */
function jsonDetails(value) {
  const details = make('details', 'generic-json');
  const size = Array.isArray(value) ? value.length : Object.keys(value).length;
  const noun = Array.isArray(value) ? (size === 1 ? 'item' : 'items') : size === 1 ? 'field' : 'fields';
  details.append(make('summary', '', String(size) + ' ' + noun + ' (JSON)'), make('pre', '', jsonOf(value)));
  return details;
}

/** A money field's text (`236 GBP`) when `record` states a currency, else `undefined`. */
function moneyFieldText(record, key) {
  const currency = currencyOf(record);
  return currency !== undefined && isMoneyField(record, key) ? formatMoney(record[key], currency) : undefined;
}

function cellNode(record, key) {
  if (!Object.hasOwn(record, key) || record[key] === undefined) return document.createTextNode('');
  const money = moneyFieldText(record, key) ?? moneyRecordText(record[key]);
  return money === undefined ? scalarNode(record[key]) : document.createTextNode(money);
}

function renderTable(rows) {
  const columns = [];
  for (const row of rows) for (const key of Object.keys(row)) if (!columns.includes(key)) columns.push(key);
  // A currency column goes when every row that states one shows it with its amounts already.
  const shown = columns.filter((key) => !(isCurrencyKey(key) && rows.every((row) => !Object.hasOwn(row, key) || currencyShownWithMoney(row))));
  const table = make('table', 'generic-table');
  const head = make('tr');
  for (const key of shown) {
    const th = make('th', '', humanise(key));
    th.scope = 'col';
    head.append(th);
  }
  const body = make('tbody');
  for (const row of rows) {
    const tr = make('tr');
    for (const key of shown) {
      const td = make('td');
      td.append(cellNode(row, key));
      tr.append(td);
    }
    body.append(tr);
  }
  const thead = make('thead');
  thead.append(head);
  table.append(thead, body);
  const wrap = make('div', 'generic-table-wrap');
  wrap.append(table);
  return wrap;
}

/** The single key every record of `rows` has, when each has only that one. */
function soleKey(rows) {
  const keys = new Set(rows.map((row) => Object.keys(row).join('\u0000')));
  const [only] = [...keys];
  return keys.size === 1 && only !== undefined && !only.includes('\u0000') ? only : undefined;
}

function renderList(items, depth) {
  const list = make('ul', 'generic-list');
  for (const item of items) {
    const li = make('li');
    li.append(renderValue(item, depth + 1));
    list.append(li);
  }
  return list;
}

function renderArray(items, depth) {
  if (items.every(isFlatRecord)) {
    const key = soleKey(items);
    return key === undefined ? renderTable(items) : renderList(items.map((item) => item[key]), depth);
  }
  return renderList(items, depth);
}

function renderRecord(record, depth) {
  const list = make('dl', 'generic-record');
  const hideCurrency = currencyShownWithMoney(record);
  for (const [key, inner] of Object.entries(record)) {
    if (inner === undefined || (hideCurrency && isCurrencyKey(key))) continue;
    const dd = make('dd');
    const money = moneyFieldText(record, key);
    if (money !== undefined) {
      dd.textContent = money;
    } else {
      const node = renderValue(inner, depth + 1);
      if (!isScalar(inner)) dd.className = 'generic-nested';
      dd.append(node);
    }
    list.append(make('dt', '', humanise(key)), dd);
  }
  return list;
}

/**
 * Renders any JSON value as readable DOM (see the module comment); `depth` is how deep the value
 * already sits (0 for a top-level value).
 */
export function renderValue(value, depth = 0) {
  if (value === undefined) return document.createTextNode('—');
  if (isScalar(value)) return scalarNode(value);
  const money = moneyRecordText(value);
  if (money !== undefined) return document.createTextNode(money);
  if (isEmptyValue(value)) return make('span', 'generic-empty', 'None');
  if (!Array.isArray(value) && !isRecord(value)) return document.createTextNode(String(value));
  if (depth > STRUCTURED_DEPTH || isBig(value)) return jsonDetails(value);
  return Array.isArray(value) ? renderArray(value, depth) : renderRecord(value, depth);
}

/** One kind of domain data: its humanised name as a heading, then its value. */
export function renderKind(kind, value) {
  const section = make('section', 'generic-kind');
  section.dataset.kind = kind;
  section.setAttribute('aria-label', humanise(kind));
  section.append(make('h3', 'generic-kind-title', humanise(kind)), renderValue(value, 0));
  return section;
}
