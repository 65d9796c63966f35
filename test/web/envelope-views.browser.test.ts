/**
 * The envelope parts in the web chat page, in a real headless Chromium against the running service
 * (loop-app, a scripted model behind the fake Anthropic server): domain data of a kind with no
 * surface template in the generic view (a definition list for a record, a table for a list of
 * records), files as links with an image preview, sources as a numbered list, HTML in any of them
 * as text; and A2UI surfaces through the renderer module, stood in for here by a small module of
 * the same contract (`mountSurface`), or missing, when the page falls back to the generic view.
 */
import { fileURLToPath } from 'node:url';
import type { BrowserContext, Page, Route } from 'playwright-core';
import { afterEach, describe, expect, it } from 'vitest';
import { useBrowser, useScreenshots } from '../support/browser.ts';
import { useRedis } from '../support/redis.ts';
import { part, reply, respond, scenarioScript, toolCall } from '../support/scenario-model.ts';
import { useSwitchboard } from '../support/switchboard-harness.ts';

const appDir = fileURLToPath(new URL('../fixtures/loop-app/', import.meta.url));
const redisUrl = useRedis();
const sb = useSwitchboard({ appDir, redisUrl });
const browser = useBrowser();
const shoot = useScreenshots('envelope-views');

const UI_TIMEOUT_MS = 30_000;
/** Markup that would run if any of it were parsed as HTML. */
const HOSTILE = '<img src=x onerror="window.pwned=1">';
const SEATS = [
  { seat: '12A', cabin: 'Economy', price: 25, currency: 'GBP' },
  { seat: '1C', cabin: '<b>Business</b>', price: 180.5, currency: 'GBP', window: true },
];
/** A 1×1 PNG. */
const PIXEL = 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';
const CATALOG = 'https://a2ui.org/specification/v0_9/catalogs/basic/catalog.json';

/**
 * A stand-in for `/static/a2ui.js` with the renderer's contract: shows the data model's title and
 * a Book button (inside a shadow root, as Lit components are) that reports an action; throws for a
 * message without components; `update` changes the title in place.
 */
const STUB_RENDERER = `
export function mountSurface(container, message, onAction) {
  const surfaceId = message.createSurface.surfaceId;
  if (!Array.isArray(message.updateComponents?.components)) throw new Error('no components to render');
  const title = document.createElement('p');
  title.className = 'stub-title';
  const show = (next) => { title.textContent = next.updateDataModel?.value?.title ?? ''; };
  show(message);
  const host = document.createElement('div');
  const button = document.createElement('button');
  button.textContent = 'Book';
  button.addEventListener('click', () => onAction({ surfaceId, sourceComponentId: 'book', name: 'book', context: { seat: '12A' } }));
  host.attachShadow({ mode: 'open' }).append(button);
  container.append(title, host);
  return { surfaceId, update: show };
}
`;

const contexts: BrowserContext[] = [];
afterEach(async () => {
  for (const context of contexts.splice(0)) await context.close();
});

function dataPart(data: Record<string, unknown>): Record<string, unknown> {
  return { data, metadata: { partType: 'domain-data' } };
}

function surfacePart(surfaceId: string, title: string): Record<string, unknown> {
  return {
    data: {
      version: 'v0.9',
      createSurface: { surfaceId, catalogId: CATALOG },
      updateDataModel: { surfaceId, path: '/', value: { title } },
      updateComponents: { surfaceId, components: [{ id: 'root', component: 'Text', text: { path: '/title' } }] },
    },
    metadata: { partType: 'a2ui-surface' },
  };
}

interface Chat {
  readonly page: Page;
  /** Uncaught errors, console errors and CSP reports. */
  readonly problems: string[];
  readonly warnings: string[];
}

/** Opens a conversation in a fresh browser (British English, London time); `prepare` runs before the page loads. */
async function openChat(conversation: string, prepare?: (page: Page) => Promise<void>): Promise<Chat> {
  const context = await browser().newContext({ viewport: { width: 960, height: 1400 }, locale: 'en-GB', timezoneId: 'Europe/London' });
  contexts.push(context);
  const page = await context.newPage();
  page.setDefaultTimeout(UI_TIMEOUT_MS);
  const problems: string[] = [];
  const warnings: string[] = [];
  page.on('pageerror', (error) => problems.push(error.message));
  page.on('console', (message) => {
    if (message.type() === 'error' || /Content Security Policy/i.test(message.text())) problems.push(message.text());
    if (message.type() === 'warning') warnings.push(message.text());
  });
  if (prepare !== undefined) await prepare(page);
  await page.goto(`${sb().url}/?c=${conversation}`);
  await page.locator('#connection[data-state="connected"]').waitFor();
  return { page, problems, warnings };
}

async function ask(page: Page, text: string): Promise<void> {
  await page.fill('#message', text);
  await page.press('#message', 'Enter');
}

async function pwned(page: Page): Promise<unknown> {
  return page.evaluate('window.pwned');
}

describe('envelope parts in the web chat', { timeout: 120_000 }, () => {
  it("shows a tool's domain data with no template as a definition list, a list of records as a table, and HTML in them as text", async () => {
    sb().fake.respondWith(
      scenarioScript({
        data: [
          () => reply(respond([part('ack', 'Looking that up.')], 'awaiting'), toolCall('lookup', { q: HOSTILE })),
          () => reply(respond([part('response', 'Two seats are free.'), dataPart({ 'seat-map': SEATS })], 'complete')),
        ],
      }),
    );
    const { page, problems } = await openChat('env-generic');
    await ask(page, 'Which seats are free? #data');

    const data = page.locator('.turn .part-domain-data');
    const lookup = data.locator('.generic-kind[data-kind="lookup"]');
    const seats = data.locator('.generic-kind[data-kind="seat-map"]');
    await lookup.waitFor();
    await seats.waitFor();
    expect(await lookup.locator('.generic-kind-title').textContent()).toBe('Lookup');
    expect(await lookup.locator('dt').allTextContents()).toEqual(['Q', 'Answer']);
    expect(await lookup.locator('dd').allTextContents()).toEqual([HOSTILE, '42']);

    expect(await seats.locator('th').allTextContents()).toEqual(['Seat', 'Cabin', 'Price', 'Window']);
    const rows = seats.locator('tbody tr');
    expect(await rows.nth(0).locator('td').allTextContents()).toEqual(['12A', 'Economy', '25 GBP', '']);
    expect(await rows.nth(1).locator('td').allTextContents()).toEqual(['1C', '<b>Business</b>', '180.50 GBP', 'Yes']);

    // The markup is text: no element was made from it, and nothing ran.
    expect(await data.locator('img, b').count()).toBe(0);
    expect(await page.getByText(HOSTILE, { exact: true }).isVisible()).toBe(true);
    expect(await pwned(page)).toBeUndefined();
    console.info(`screenshot: ${await shoot(page, 'generic-data')}`);
    expect(problems).toEqual([]);
  });

  it('shows files as download links (an image with a preview) and sources as a numbered list under the answer', async () => {
    const artifact = (data: Record<string, unknown>, text?: string): Record<string, unknown> => ({
      ...(text === undefined ? {} : { text }),
      data,
      metadata: { partType: 'artifact' },
    });
    const citation = (data: Record<string, unknown>): Record<string, unknown> => ({ data, metadata: { partType: 'citation' } });
    sb().fake.respondWith(
      scenarioScript({
        files: [
          () =>
            reply(
              respond(
                [
                  part('response', 'Your ticket is attached; the fares come from the sources below.'),
                  artifact({ artifactId: 'tkt-1', name: 'ticket.pdf', mimeType: 'application/pdf', sizeBytes: 40_960, url: '/artifacts/tkt-1?expires=1&sig=abc' }),
                  artifact({ name: 'seat-plan.png', mimeType: 'image/png', url: PIXEL }, 'The seat plan.'),
                  artifact({ name: 'route-map.png', mimeType: 'image/png', url: 'https://maps.example.com/route-map.png' }),
                  artifact({ artifactId: 'rcpt-9', name: `receipt ${HOSTILE}.pdf`, mimeType: 'application/pdf' }),
                  citation({ title: 'Fare rules', url: 'https://example.com/rules', path: '/seat-map/1/price' }),
                  citation({
                    sources: [
                      { title: '<script>window.pwned=2</script>Timetable', url: 'https://example.org/timetable', snippet: 'Departs 06:15' },
                      { title: 'Not a link', url: 'javascript:window.pwned=3' },
                    ],
                  }),
                ],
                'complete',
              ),
            ),
        ],
      }),
    );
    const { page, problems } = await openChat('env-files');
    await ask(page, 'Send me the ticket #files');

    const sources = page.locator('.part-response + .part-citations');
    await sources.waitFor();
    const items = sources.locator('ol > li');
    expect(await items.count()).toBe(3);
    const first = items.nth(0).locator('a');
    expect(await first.textContent()).toBe('Fare rules');
    expect(await first.getAttribute('href')).toBe('https://example.com/rules');
    expect(await first.getAttribute('target')).toBe('_blank');
    expect(await first.getAttribute('rel')).toBe('noopener noreferrer');
    expect(await items.nth(0).locator('code').textContent()).toBe('/seat-map/1/price');
    expect(await items.nth(1).locator('a').textContent()).toBe('<script>window.pwned=2</script>Timetable');
    expect(await items.nth(1).textContent()).toContain('Departs 06:15');
    expect(await items.nth(2).locator('a').count()).toBe(0);
    expect(await items.nth(2).textContent()).toBe('Not a link');
    expect(await sources.locator('script').count()).toBe(0);

    const files = page.locator('.part-artifact');
    expect(await files.count()).toBe(4);
    const ticket = files.nth(0).locator('a.artifact-link');
    expect(await ticket.textContent()).toBe('ticket.pdf');
    expect(await ticket.getAttribute('href')).toBe(`${sb().url}/artifacts/tkt-1?expires=1&sig=abc`);
    expect(await ticket.getAttribute('download')).toBe('ticket.pdf');
    expect(await files.nth(0).textContent()).toContain('application/pdf, 40 KB');
    // The data: image is previewed (the CSP allows data: images) and loads.
    const preview = files.nth(1).locator('img.artifact-preview');
    await expect.poll(() => page.evaluate<number>("document.querySelector('.part-artifact img.artifact-preview').naturalWidth"), { timeout: UI_TIMEOUT_MS }).toBe(1);
    expect(await preview.getAttribute('alt')).toBe('The seat plan.');
    // Another site's image is a link only: the CSP would refuse to load it.
    expect(await files.nth(2).locator('img').count()).toBe(0);
    expect(await files.nth(2).locator('a').getAttribute('target')).toBe('_blank');
    // A file given only by id gets its signed link from the server, as a path of this service.
    const receipt = files.nth(3).locator('a.artifact-link');
    expect(await receipt.textContent()).toBe(`receipt ${HOSTILE}.pdf`);
    expect(await receipt.getAttribute('href')).toContain(`${sb().url}/artifacts/rcpt-9?`);
    expect(await files.locator('img').count()).toBe(1);

    expect(await pwned(page)).toBeUndefined();
    console.info(`screenshot: ${await shoot(page, 'files-and-sources')}`);
    expect(problems).toEqual([]);
  });

  it('falls back to the generic view, and says why, when the A2UI renderer cannot be loaded', async () => {
    sb().fake.respondWith(
      scenarioScript({
        unrendered: [() => reply(respond([part('response', 'The seat map:'), surfacePart('seat-map', 'Seats'), dataPart({ 'seat-map': SEATS })], 'complete'))],
      }),
    );
    const { page, problems, warnings } = await openChat('env-no-renderer', async (fresh) => {
      await fresh.route('**/static/a2ui.js', (route) => route.fulfill({ status: 503, contentType: 'text/javascript', body: '// not bundled\n' }));
    });
    await ask(page, 'Show the seat map #unrendered');
    await page.locator('.generic-kind[data-kind="seat-map"] table').waitFor();
    await expect.poll(() => warnings.some((text) => text.includes('surface "seat-map" is shown in its generic view')), { timeout: UI_TIMEOUT_MS }).toBe(true);
    expect(await page.locator('.part-surface').count()).toBe(0);
    console.info(`screenshot: ${await shoot(page, 'surface-fallback')}`);
    // The browser reports the refused module load itself; nothing else went wrong.
    expect(problems.filter((text) => !text.includes('status of 503'))).toEqual([]);
  });

  it('mounts a surface in place of its kind, updates it in place from a later turn, and posts its action', async () => {
    sb().fake.respondWith(
      scenarioScript({
        surface: [
          () =>
            reply(
              respond(
                [part('response', 'Pick a seat.'), surfacePart('seat-map', 'Seats on EJ4521'), dataPart({ 'seat-map': SEATS, 'fare-notes': { refundable: false, changeFee: 30, currency: 'GBP' } })],
                'complete',
              ),
            ),
        ],
        again: [() => reply(respond([part('response', 'Updated.'), surfacePart('seat-map', 'Seats on EJ4521, one left')], 'complete'))],
      }),
    );
    const posted: { body: unknown; csrf: string | undefined }[] = [];
    let answerWith: ((status: number, body: unknown) => void) | undefined;
    const { page, problems } = await openChat('env-surface', async (fresh) => {
      await fresh.route('**/static/a2ui.js', (route) => route.fulfill({ status: 200, contentType: 'text/javascript', body: STUB_RENDERER }));
      await fresh.route('**/api/chat/env-surface/actions', async (route: Route) => {
        posted.push({ body: route.request().postDataJSON() as unknown, csrf: await route.request().headerValue('x-csrf-token') ?? undefined });
        const answer = await new Promise<{ status: number; body: unknown }>((resolve) => {
          answerWith = (status, body) => {
            resolve({ status, body });
          };
        });
        await route.fulfill({ status: answer.status, contentType: 'application/json', body: JSON.stringify(answer.body) });
      });
    });
    await ask(page, 'Seats please #surface');
    const surface = page.locator('.part-surface[data-surface-id="seat-map"]');
    await surface.locator('.stub-title', { hasText: 'Seats on EJ4521' }).waitFor();
    const fareNotes = page.locator('.generic-kind[data-kind="fare-notes"]');
    await fareNotes.waitFor();
    // The kind with a surface is not shown twice; the other kind is, with its money read out.
    expect(await page.locator('.generic-kind[data-kind="seat-map"]').count()).toBe(0);
    expect(await fareNotes.locator('dt').allTextContents()).toEqual(['Refundable', 'Change fee']);
    expect(await fareNotes.locator('dd').allTextContents()).toEqual(['No', '30 GBP']);
    console.info(`screenshot: ${await shoot(page, 'surface-mounted')}`);

    await ask(page, 'Any change? #again');
    await page.locator('.part-response', { hasText: 'Updated.' }).waitFor();
    await surface.locator('.stub-title', { hasText: 'Seats on EJ4521, one left' }).waitFor();
    expect(await page.locator('.part-surface').count()).toBe(1);

    // A refused action: the button is disabled while the POST is under way, then the refusal shows.
    const book = surface.getByRole('button', { name: 'Book' });
    await book.click();
    await expect.poll(() => posted.length, { timeout: UI_TIMEOUT_MS }).toBe(1);
    await surface.locator('button:disabled').waitFor();
    expect(await surface.getAttribute('aria-busy')).toBe('true');
    answerWith?.(403, { error: { code: 'http.forbidden', message: 'This surface is not in this conversation.' } });
    await surface.locator('.surface-problem', { hasText: 'Not sent: This surface is not in this conversation.' }).waitFor();
    expect(await book.isEnabled()).toBe(true);
    console.info(`screenshot: ${await shoot(page, 'surface-action-refused')}`);

    const [first] = posted;
    expect(first?.csrf).toMatch(/.+/);
    expect(first?.body).toMatchObject({ surfaceId: 'seat-map', sourceComponentId: 'book', name: 'book', context: { seat: '12A' } });
    expect((first?.body as { id?: unknown }).id).toMatch(/^[A-Za-z0-9_-]{1,100}$/);

    // An accepted action clears the refusal.
    await book.click();
    await expect.poll(() => posted.length, { timeout: UI_TIMEOUT_MS }).toBe(2);
    answerWith?.(202, { accepted: true });
    await surface.locator('.surface-problem').waitFor({ state: 'hidden' });
    await surface.locator('button:enabled').waitFor();
    expect((posted[1]?.body as { id?: unknown }).id).not.toBe((first?.body as { id?: unknown }).id);
    expect(problems.filter((text) => !text.includes('status of 403'))).toEqual([]);
  });
});
