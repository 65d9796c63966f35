/**
 * The A2UI renderer the chat page loads (`/static/a2ui.js`, @a2ui/lit bundled by esbuild when the
 * web routes are made) in a real headless Chromium, under the page's own Content-Security-Policy:
 * it renders a surface's basic-catalog components bound to its data model, a Button's action comes
 * back with its context, a later message updates the surface in place, a surface it cannot render
 * throws (the page then shows its generic view), and HTML in the data stays text.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWebPageRoutes } from '../../channels/web/page-routes.ts';
import { useBrowser } from '../support/browser.ts';
import { startTestServer, type TestServer } from './http-test-server.ts';

const browser = useBrowser();
const shots = mkdtempSync(join(tmpdir(), 'sb-a2ui-shots-'));
let server: TestServer;

beforeAll(async () => {
  server = await startTestServer(createWebPageRoutes());
});
afterAll(async () => {
  await server.close();
});

/** A surface with a title bound to `/title`, a line of text, and a Book button carrying `context`. */
function flightSurface(title: string, context: Record<string, unknown>): Record<string, unknown> {
  return {
    version: 'v0.9',
    createSurface: { surfaceId: 'flight-results', catalogId: 'https://a2ui.org/specification/v0_9/catalogs/basic/catalog.json' },
    updateDataModel: { surfaceId: 'flight-results', path: '/', value: { title } },
    updateComponents: {
      surfaceId: 'flight-results',
      components: [
        { id: 'root', component: 'Card', child: 'body' },
        { id: 'body', component: 'Column', children: ['title', 'line', 'book'] },
        { id: 'title', component: 'Text', text: { path: '/title' }, variant: 'h3' },
        { id: 'line', component: 'Text', text: 'LHR 07:25 to CDG 09:40, nonstop' },
        { id: 'book-label', component: 'Text', text: 'Book' },
        { id: 'book', component: 'Button', child: 'book-label', variant: 'primary', action: { event: { name: 'book', context } } },
      ],
    },
  };
}

/** Opens the chat page (its CSP applies) with an empty container for surfaces. */
async function openPage(): Promise<{ page: Page; errors: string[] }> {
  const page = await browser().newPage();
  const errors: string[] = [];
  page.on('pageerror', (error) => { errors.push(error.message); });
  page.on('console', (message) => { if (message.text().includes('Content Security Policy')) errors.push(message.text()); });
  await page.goto(`${server.url}/`);
  await page.evaluate(`(() => {
    const container = document.createElement('div');
    container.id = 'surface-test';
    document.body.prepend(container);
  })()`);
  return { page, errors };
}

/**
 * Mounts `message` in the page's container through the served module, recording actions in
 * `window.surfaceActions` and the handle in `window.surfaceHandle`; resolves to `mounted` or the
 * error's message. (A script string: the test runner would rewrite an `import()` in a function.)
 */
async function mount(page: Page, message: unknown): Promise<string> {
  return page.evaluate(`(async () => {
    const { mountSurface } = await import('/static/a2ui.js');
    window.surfaceActions = window.surfaceActions ?? [];
    try {
      window.surfaceHandle = mountSurface(document.getElementById('surface-test'), ${JSON.stringify(message)}, (action) => { window.surfaceActions.push(action); });
      return 'mounted';
    } catch (error) {
      return error instanceof Error ? error.message : String(error);
    }
  })()`);
}

describe('the A2UI renderer of the web chat', () => {
  it('is served as one bundled module', async () => {
    const response = await fetch(`${server.url}/static/a2ui.js`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/javascript/);
    expect((await response.text()).length).toBeGreaterThan(10_000);
  });

  it('renders a surface bound to its data, sends the Button action back, and updates in place', async () => {
    const { page, errors } = await openPage();
    const context = { flightNumber: 'MW 304', date: '2026-12-18', passengers: 2, totalCost: 236, currency: 'GBP' };
    await mount(page, flightSurface('MW 304 · Meridian Airways', context));
    await page.getByText('MW 304 · Meridian Airways').waitFor({ timeout: 20_000 });
    await page.screenshot({ path: join(shots, 'surface.png') });
    await page.getByRole('button', { name: 'Book' }).click();
    await page.waitForFunction('window.surfaceActions.length === 1');
    const actions: unknown = await page.evaluate('window.surfaceActions');
    expect(actions).toEqual([{ surfaceId: 'flight-results', sourceComponentId: 'book', name: 'book', context }]);

    await page.evaluate(`window.surfaceHandle.update(${JSON.stringify({
      version: 'v0.9',
      updateDataModel: { surfaceId: 'flight-results', path: '/title', value: 'MW 304 · sold out' },
    })})`);
    await page.getByText('MW 304 · sold out').waitFor({ timeout: 10_000 });
    expect(await page.locator('a2ui-surface').count()).toBe(1);
    await page.screenshot({ path: join(shots, 'surface-updated.png') });
    expect(errors).toEqual([]);
    process.stdout.write(`A2UI screenshots: ${shots}\n`);
    await page.close();
  }, 60_000);

  it('throws for a surface it cannot render, and shows HTML in the data as text', async () => {
    const { page, errors } = await openPage();
    const thrown = await mount(page, { version: 'v0.7', createSurface: { surfaceId: 'x', catalogId: 'y' } });
    expect(thrown).not.toBe('no error');

    expect(await mount(page, flightSurface('<img src=x id=injected onerror="document.title=\'owned\'">', {}))).toBe('mounted');
    await page.getByText('<img src=x id=injected').waitFor({ timeout: 20_000 });
    expect(await page.locator('#injected').count()).toBe(0);
    expect(await page.title()).not.toBe('owned');
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);
});
