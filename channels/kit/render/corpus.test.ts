import { describe, expect, it } from 'vitest';
import { chunkBlocks } from './chunk.ts';
import { ANSWERS } from './fixtures/answers.ts';
import { codeStrings, fencesBalanced, markdownArtefacts, sanitise, slackProblems, withoutCode } from './fixtures/checks.ts';
import { parseMarkdown } from './parse-markdown.ts';
import { renderHtml } from './render-html.ts';
import { renderPlain, renderPlainBlocks } from './render-plain.ts';
import { renderSlack, renderSlackBlocks } from './render-slack.ts';
import { renderWhatsApp, renderWhatsAppBlocks } from './render-whatsapp.ts';
import { smsSegmentCount, smsSegments } from './sms-segments.ts';

const corpus = ANSWERS.map((answer) => ({ ...answer, root: parseMarkdown(answer.markdown) }));

describe('the corpus of model answers', () => {
  it('holds at least 60 answers', () => {
    expect(corpus.length).toBeGreaterThanOrEqual(60);
  });

  it.each(corpus)('plain: no markdown or HTML artefacts ($name)', ({ root }) => {
    for (const gsm of [false, true]) {
      const text = withoutCode(renderPlain(root, { gsm }), codeStrings(root));
      expect(markdownArtefacts(text, { backticks: true })).toEqual([]);
    }
  });

  it.each(corpus)('whatsapp: no markdown or HTML artefacts ($name)', ({ root }) => {
    const text = withoutCode(renderWhatsApp(root), codeStrings(root));
    expect(markdownArtefacts(text, { backticks: false })).toEqual([]);
    expect(fencesBalanced(renderWhatsApp(root))).toBe(true);
  });

  it.each(corpus)('slack: valid mrkdwn ($name)', ({ root }) => {
    expect(slackProblems(renderSlack(root))).toEqual([]);
  });

  it.each(corpus)('html: unchanged by sanitize-html with the allow-list ($name)', ({ root }) => {
    const email = renderHtml(root);
    const web = renderHtml(root, { newWindowLinks: true });
    expect(sanitise(email)).toBe(email);
    expect(sanitise(web, true)).toBe(web);
    expect(email).not.toMatch(/<(?:script|img|iframe|style|div|span|u|b)\b/i);
  });

  it.each(corpus)('chunks stay within every limit ($name)', ({ root }) => {
    for (const maxSegments of [1, 2, 10]) {
      for (const chunk of chunkBlocks(renderPlainBlocks(root, { gsm: true }), { maxChars: maxSegments, countFn: smsSegmentCount })) {
        expect(smsSegments(chunk).segments).toBeLessThanOrEqual(maxSegments);
      }
    }
    for (const [blocks, limits] of [
      [renderWhatsAppBlocks(root), [4096, 300, 120]],
      [renderSlackBlocks(root), [3000, 300, 120]],
    ] as const) {
      for (const maxChars of limits) {
        for (const chunk of chunkBlocks(blocks, { maxChars })) {
          expect(chunk.length).toBeLessThanOrEqual(maxChars);
          expect(fencesBalanced(chunk)).toBe(true);
        }
      }
    }
    for (const maxChars of [400, 3000]) {
      for (const chunk of chunkBlocks(renderSlackBlocks(root), { maxChars })) expect(slackProblems(chunk)).toEqual([]);
    }
  });
});
