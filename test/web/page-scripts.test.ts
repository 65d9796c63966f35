/**
 * The chat page's scripts, read as source: none of them turns a string into markup or code (data is
 * put in the page with text nodes and DOM properties only), and every module they import is a file
 * of the page folder with a name the static route serves.
 */
import { readdir, readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';

const PAGE_DIR = new URL('../../channels/web/page/', import.meta.url);
/** The names `page-routes.ts` serves under `/static/`. */
const SERVED_NAME = /^[a-z0-9][a-z0-9-]*\.(html|js|css|svg)$/;
/** What would parse a string as HTML or run it as code, or set an inline handler or style. */
const MARKUP_SINKS = /\.(innerHTML|outerHTML)\s*=|insertAdjacentHTML|document\.write|\beval\(|new Function\(|setAttribute\(\s*['"](style|on)/;

async function pageScripts(): Promise<{ name: string; source: string }[]> {
  const names = (await readdir(PAGE_DIR)).filter((name) => name.endsWith('.js'));
  return Promise.all(names.map(async (name) => ({ name, source: await readFile(new URL(name, PAGE_DIR), 'utf8') })));
}

describe('the chat page scripts', () => {
  it('never parse data as markup or code', async () => {
    const scripts = await pageScripts();
    expect(scripts.map((script) => script.name)).toContain('chat.js');
    for (const { name, source } of scripts) expect({ name, sink: MARKUP_SINKS.exec(source)?.[0] }).toEqual({ name, sink: undefined });
  });

  it('import only page files the static route serves', async () => {
    const scripts = await pageScripts();
    const names = new Set(scripts.map((script) => script.name));
    for (const { name, source } of scripts) {
      for (const match of source.matchAll(/^import [^'"]*['"]([^'"]+)['"];$/gm)) {
        const target = match[1] ?? '';
        expect({ name, target, relative: target.startsWith('./') }).toEqual({ name, target, relative: true });
        const file = target.slice(2);
        expect({ name, file, served: SERVED_NAME.test(file), exists: names.has(file) }).toEqual({ name, file, served: true, exists: true });
      }
    }
  });
});
