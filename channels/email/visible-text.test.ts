import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { REPLY_CASES } from './fixtures/replies/cases.ts';
import { visibleReplyText } from './visible-text.ts';

function fixture(file: string): string {
  return readFileSync(new URL(`./fixtures/replies/${file}`, import.meta.url), 'utf8');
}

describe('visibleReplyText on the reply corpus', () => {
  it('has at least 20 reply shapes', () => {
    expect(REPLY_CASES.length).toBeGreaterThanOrEqual(20);
  });

  it.each(REPLY_CASES)('$shape ($file)', ({ file, expected }) => {
    expect(visibleReplyText({ text: fixture(file) })).toBe(expected);
  });

  it.each(REPLY_CASES)('gives the same with CRLF line ends: $file', ({ file, expected }) => {
    expect(visibleReplyText({ text: fixture(file).replace(/\n/g, '\r\n') })).toBe(expected);
  });
});

describe('visibleReplyText on HTML-only messages', () => {
  it('reads a Gmail HTML reply: the blockquote is history', () => {
    const html =
      '<div dir="ltr">APPROVE<br></div><br><div class="gmail_quote"><div dir="ltr" class="gmail_attr">On Tue, Jun 3, 2025 at 10:04 AM Switchboard &lt;<a href="mailto:bot@example.com">bot@example.com</a>&gt; wrote:<br></div>' +
      '<blockquote class="gmail_quote" style="margin:0px 0px 0px 0.8ex;border-left:1px solid rgb(204,204,204)">Approval needed: hotel in Lyon.<br>Reply APPROVE or DENY.</blockquote></div>';
    expect(visibleReplyText({ html })).toBe('APPROVE');
  });

  it('reads an Outlook HTML reply: the header block after the rule is history', () => {
    const html =
      '<html><head><style>p { margin: 0 }</style><title>RE: hotel</title></head><body><div>Deny &ndash; too expensive.</div><div><br></div>' +
      '<div id="appendonsend"></div><hr style="display:inline-block;width:98%" tabindex="-1"><div id="divRplyFwdMsg" dir="ltr"><font face="Calibri, sans-serif"><b>From:</b> Switchboard &lt;bot@example.com&gt;<br>' +
      '<b>Sent:</b> Tuesday, June 3, 2025 10:04 AM<br><b>To:</b> Grace Hopper &lt;grace@example.com&gt;<br><b>Subject:</b> Approval needed</font><div>&nbsp;</div></div><div>Approval needed: hotel in Lyon.</div></body></html>';
    expect(visibleReplyText({ html })).toBe('Deny – too expensive.');
  });

  it('drops scripts, styles and comments, decodes entities and keeps paragraphs', () => {
    const html =
      '<p>Fish &amp; chips for &#52; at 19&#x3a;30, &quot;Le Bistro&quot;.</p><!-- <p>hidden</p> --><script>alert("x")</script><style>.a{}</style>' +
      '<p>Caf&eacute; after. 1 &lt; 2 &unknown; <b>ok</b></p><ul><li>one</li><li>two</li></ul>';
    expect(visibleReplyText({ html })).toBe('Fish & chips for 4 at 19:30, "Le Bistro".\n\nCafé after. 1 < 2 &unknown; ok\n\n- one\n- two');
  });

  it('quotes nested blockquotes, so a bottom-posted HTML answer survives', () => {
    const html = '<blockquote><div>Shall I book it?</div><blockquote>Earlier</blockquote></blockquote><div>Yes, <i>please</i>.</div>';
    expect(visibleReplyText({ html })).toBe('Yes, please.');
  });

  it('keeps a "<" that starts no tag and survives unclosed markup', () => {
    expect(visibleReplyText({ html: '<p>a < b and 3<4</p><p title="x>y">end' })).toBe('a < b and 3<4\n\nend');
    expect(visibleReplyText({ html: 'before<script>never closed' })).toBe('before');
  });

  it('keeps the lines of <pre>', () => {
    expect(visibleReplyText({ html: '<pre>line one\n  line two</pre>' })).toBe('line one\n  line two');
  });
});

describe('visibleReplyText input handling', () => {
  it('prefers the text/plain part and falls back to HTML only when it is blank', () => {
    expect(visibleReplyText({ text: 'from text', html: '<p>from html</p>' })).toBe('from text');
    expect(visibleReplyText({ text: ' \n', html: '<p>from html</p>' })).toBe('from html');
    expect(visibleReplyText({ text: undefined, html: false })).toBe('');
    expect(visibleReplyText({})).toBe('');
  });

  it('removes control characters, byte-order marks and zero-width spaces, and turns no-break spaces into spaces', () => {
    expect(visibleReplyText({ text: '\ufeffAPP\u200bROVE\u0007\u00a0now' })).toBe('APPROVE now');
  });

  it('strips device signature lines in other languages', () => {
    expect(visibleReplyText({ text: 'Ja.\n\nVon meinem iPhone gesendet' })).toBe('Ja.');
    expect(visibleReplyText({ text: 'Oui.\n\nEnvoyé de mon iPhone' })).toBe('Oui.');
    expect(visibleReplyText({ text: 'Sí.\n\nEnviado desde mi iPhone' })).toBe('Sí.');
    expect(visibleReplyText({ text: 'Ja.\n\nSkickat från min iPhone' })).toBe('Ja.');
    expect(visibleReplyText({ text: 'Ja.\n\nVerstuurd vanaf mijn iPhone' })).toBe('Ja.');
    expect(visibleReplyText({ text: 'Yes.\n\nGet Outlook for Android<https://aka.ms/AAb9ysg>' })).toBe('Yes.');
  });

  it('keeps a sentence that merely starts like a device signature', () => {
    expect(visibleReplyText({ text: 'Sent from my phone, so approve it please.' })).toBe('Sent from my phone, so approve it please.');
  });

  it('keeps very long lines and stays fast on input built to make patterns backtrack', () => {
    const longLine = `APPROVE ${'x'.repeat(5_000)}`;
    expect(visibleReplyText({ text: `${longLine}\n\nOn Tue, 3 Jun 2025, Bot <bot@example.com> wrote:\n> q` })).toBe(longLine);
    const started = performance.now();
    for (const hostile of ['Op schreef x\n'.repeat(300), 'abc. skrev x\n'.repeat(300), 'Op schreef x\n'.repeat(5_000), `On ${'1 wrote '.repeat(49)}\n`.repeat(2_000)]) {
      visibleReplyText({ text: hostile });
    }
    expect(performance.now() - started).toBeLessThan(2_000);
  });
});
