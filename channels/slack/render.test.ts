import { describe, expect, it } from 'vitest';
import { collectDomainData } from '../../src/protocol/envelope/collect-domain-data.ts';
import type { Part } from '../../src/protocol/parts/part.ts';
import type { ChannelMessage, RenderInput } from '../channel.ts';
import { ANSWERS } from '../kit/render/fixtures/answers.ts';
import { fencesBalanced } from '../kit/render/fixtures/checks.ts';
import { BOOKING, FLIGHT_RESULTS } from '../kit/render/fixtures/flight-data.ts';
import { parseMarkdown } from '../kit/render/parse-markdown.ts';
import { renderSlack } from '../kit/render/render-slack.ts';
import { escapeProblems, markdownLeft, mrkdwnTexts, sectionTexts } from './render-checks.ts';
import { MESSAGE_MAX_CHARS } from './render-messages.ts';
import { createSlackRender } from './render.ts';
import { MAX_BLOCKS, MAX_SECTION_CHARS, readSlackPayload, type SlackPayload } from './slack-payload.ts';

const THREAD = { teamId: 'T0001', threadTs: '1712345678.000100' };
const DEST = { channel: 'slack', address: 'C0123ABC', thread: THREAD };
const render = createSlackRender({ clock: () => new Date('2030-01-01T10:00:00.000Z') });
const part = (partType: string, text?: string, data?: Record<string, unknown>): Part => ({
  ...(text === undefined ? {} : { text }),
  ...(data === undefined ? {} : { data }),
  metadata: { partType },
});
const partInput = (value: Part, turnState = 'awaiting'): RenderInput => ({ type: 'part', turnId: 't-1', partId: 't-1.0', turnState, part: value });
const posts = (value: Part): SlackPayload[] => render(partInput(value), DEST);
const fences = (text: string): string[] => text.match(/```\n[\s\S]*?\n```/g) ?? [];

/** The checks every post of an answer passes. */
function expectWellFormed(payloads: readonly SlackPayload[]): void {
  expect(payloads.length).toBeGreaterThan(0);
  for (const payload of payloads) {
    expect(readSlackPayload(payload)).toBe(payload);
    expect(payload).toMatchObject({ op: 'post', channel: DEST.address, ...THREAD });
    const sections = sectionTexts(payload);
    expect(sections.length).toBeGreaterThan(0);
    expect(sections.length).toBeLessThanOrEqual(MAX_BLOCKS);
    for (const text of sections) {
      expect(text.length).toBeLessThanOrEqual(MAX_SECTION_CHARS);
      expect(fencesBalanced(text)).toBe(true);
    }
    for (const text of mrkdwnTexts(payload)) {
      expect(escapeProblems(text)).toEqual([]);
      expect(markdownLeft(text)).toEqual([]);
    }
  }
}

describe('Slack rendering of the corpus of model answers', () => {
  it.each(ANSWERS)('$name: sections of escaped mrkdwn within every limit', ({ markdown }) => {
    const payloads = posts(part('response', markdown));
    expectWellFormed(payloads);
    const sections = payloads.flatMap(sectionTexts);
    for (const code of fences(renderSlack(parseMarkdown(markdown)))) {
      if (code.length < MAX_SECTION_CHARS - 20) expect(sections.some((text) => text.includes(code))).toBe(true);
    }
  });

  it('splits a long answer into numbered messages, code blocks whole', () => {
    const markdown = ANSWERS.map((answer) => answer.markdown).join('\n\n');
    const payloads = posts(part('response', markdown));
    expectWellFormed(payloads);
    expect(payloads.length).toBeGreaterThan(1);
    payloads.forEach((payload, index) => {
      const text = payload.op === 'post' ? payload.text : '';
      expect(text).toMatch(new RegExp(`^\\(${index + 1}/${payloads.length}\\)[ \\n]`));
      expect(text.length).toBeLessThanOrEqual(MESSAGE_MAX_CHARS);
      expect(sectionTexts(payload).join('\n\n')).toBe(text);
    });
    const sections = payloads.flatMap(sectionTexts);
    for (const code of fences(renderSlack(parseMarkdown(markdown)))) expect(sections.some((text) => text.includes(code))).toBe(true);
  });

  it('cuts a code block only when it alone is over a section, fencing each piece', () => {
    const code = Array.from({ length: 200 }, (_, line) => `line ${line} <tag> & more text here`).join('\n');
    const payloads = posts(part('response', `Log:\n\n\`\`\`\n${code}\n\`\`\``));
    expectWellFormed(payloads);
    expect(payloads.flatMap(sectionTexts).length).toBeGreaterThan(2);
  });
});

describe('Slack rendering of other parts', () => {
  it('renders clarify, error and domain data through the kit, headings as bold lines', () => {
    const data = collectDomainData({ events: [{ kind: 'flight-results', data: FLIGHT_RESULTS }, { kind: 'booking', data: BOOKING }] });
    if (data === undefined) throw new Error('no domain data');
    for (const value of [part('clarify', '## Which day?\n\nFriday **or** Saturday?'), part('error', undefined, { message: 'Fares < £100 & more are gone.' }), data]) {
      expectWellFormed(posts(value));
    }
    expect(sectionTexts(posts(part('clarify', '## Which day?'))[0] as SlackPayload)).toEqual(['*Which day?*']);
    expect(posts(part('error', undefined, { message: 'A & B' }))[0]).toMatchObject({ text: 'A &amp; B' });
  });

  it('posts an artifact as a link line, or a line naming a file known by id only', () => {
    const linked = posts(part('artifact', undefined, { url: 'https://files.example/t.pdf?a=1&b=2', name: 'Ticket <PDF>' }));
    expect(linked[0]).toMatchObject({ op: 'post', text: ':paperclip: <https://files.example/t.pdf?a=1&amp;b=2|Ticket &lt;PDF&gt;>' });
    expect(posts(part('artifact', undefined, { artifactId: 'art_1', name: 'boarding-pass.pdf' }))[0]).toMatchObject({ text: ':paperclip: boarding-pass.pdf' });
    expect(posts(part('artifact', undefined, {}))).toEqual([]);
  });

  it('shows nothing for internal parts and blank text', () => {
    for (const value of [part('llm-context', 'For the peer.'), part('reasoning-trace', 'hmm'), part('response', '   ')]) expect(posts(value)).toEqual([]);
  });

  it('posts a notice in the thread, or to the one person a card click came from', () => {
    expect(render({ type: 'notice', id: 'n-1', text: 'Booked: **MW 304**.' }, DEST)).toEqual([
      { op: 'post', channel: 'C0123ABC', ...THREAD, text: 'Booked: *MW 304*.', blocks: [{ type: 'section', text: { type: 'mrkdwn', text: 'Booked: *MW 304*.' } }] },
    ]);
    const clicker = { ...DEST, thread: { ...THREAD, ephemeralUser: 'U0GRACE' } };
    const [ephemeral] = render({ type: 'notice', id: 'n-2', text: 'Approved K7QX2M.' }, clicker);
    expect(ephemeral).toEqual({ op: 'ephemeral', channel: 'C0123ABC', ...THREAD, user: 'U0GRACE', text: 'Approved K7QX2M.' });
    expect(readSlackPayload(ephemeral as SlackPayload)).toBe(ephemeral);
  });

  it('posts without a thread or team when the destination has none', () => {
    const messages: readonly ChannelMessage[] = render(partInput(part('response', 'Hi')), { channel: 'slack', address: 'D0123' });
    expect(messages).toEqual([
      { op: 'post', channel: 'D0123', text: 'Hi', blocks: [{ type: 'section', text: { type: 'mrkdwn', text: 'Hi' } }] },
    ]);
  });
});

describe('Slack assistant status', () => {
  const statusOf = (value: Part): string | undefined => posts(value).flatMap((payload) => (payload.op === 'status' ? [payload.status] : []))[0];

  it('sets a short status from ack, thinking and progress parts', () => {
    expect(posts(part('ack', 'Looking up flights to Rome.'))).toEqual([{ op: 'status', channel: 'C0123ABC', ...THREAD, status: 'is looking up flights to Rome…' }]);
    expect(statusOf(part('thinking', "I'm comparing fares across three airlines for both dates you gave"))).toBe('is comparing fares across three airlines for both…');
    expect(statusOf(part('progress', undefined, { message: 'Searching hotels' }))).toBe('is searching hotels…');
    expect(statusOf(part('ack', 'On it!'))).toBe('is on it…');
    expect(statusOf(part('thinking', 'Something odd came back.'))).toBe('is thinking…');
    expect(statusOf(part('progress'))).toBe('is working on it…');
    for (const text of ['Checking ' + 'x'.repeat(80), `Booking ${'seat '.repeat(30)}`]) {
      const status = statusOf(part('ack', text)) ?? '';
      expect(status.length).toBeLessThanOrEqual(50);
      expect(status.endsWith('…')).toBe(true);
    }
  });

  it('clears the status when the turn settles, and only then', () => {
    for (const turnState of ['complete', 'clarifying', 'error', 'passed']) {
      expect(render({ type: 'turn', turnId: 't-1', turnState }, DEST)).toEqual([{ op: 'status', channel: 'C0123ABC', ...THREAD, status: '' }]);
    }
    for (const turnState of ['awaiting', 'suspended', 'delegated']) expect(render({ type: 'turn', turnId: 't-1', turnState }, DEST)).toEqual([]);
  });

  it('leaves the clearing to Slack when a message followed the status (Slack clears it on a post)', () => {
    expect(render({ type: 'turn', turnId: 't-1', turnState: 'complete', settled: true, signalShowing: false }, DEST)).toEqual([]);
    expect(render({ type: 'turn', turnId: 't-1', turnState: 'complete', settled: true, signalShowing: true }, DEST)).toEqual([{ op: 'status', channel: 'C0123ABC', ...THREAD, status: '' }]);
  });

  it('sets no status outside a thread', () => {
    expect(render(partInput(part('ack', 'Looking.')), { channel: 'slack', address: 'C0123ABC' })).toEqual([]);
    expect(render({ type: 'turn', turnId: 't-1', turnState: 'complete' }, { channel: 'slack', address: 'C0123ABC' })).toEqual([]);
  });
});
