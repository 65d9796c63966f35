import { afterAll, describe, expect, it } from 'vitest';
import type { SurfaceTemplateContext } from '../../protocol/envelope/a2ui.ts';
import { checkSurfaceMessage } from '../../protocol/envelope/surface-check.ts';
import type { ApprovalRequest } from '../../protocol/parts/approval-parts.ts';
import { createToolRegistry } from '../../protocol/tools/tool-registry.ts';
import { AppProblems } from './app-problems.ts';
import { createAppSurfaceRegistry, decidersText } from './app-surfaces.ts';
import { appProblems, removeApps, VALID_APP, writeApp, type AppFiles } from './app-test-fixtures.ts';
import { loadApp } from './load-app.ts';
import { loadSurfaces, surfaceExportProblem } from './load-surfaces.ts';

afterAll(removeApps);

/** A JavaScript surface module: one Text saying `text`, with the A2UI messages written out. */
function surfaceModule(text: string): string {
  return [
    'export default (data, context) => ({',
    "  version: 'v0.9',",
    "  createSurface: { surfaceId: context.surfaceId, catalogId: 'https://a2ui.org/specification/v0_9/catalogs/basic/catalog.json' },",
    "  updateDataModel: { surfaceId: context.surfaceId, path: '/', value: data },",
    `  updateComponents: { surfaceId: context.surfaceId, components: [{ id: 'root', component: 'Text', text: ${JSON.stringify(text)} }] },`,
    '});',
    '',
  ].join('\n');
}

const context = (kind: string): SurfaceTemplateContext => ({ surfaceId: kind, kind, sessionId: 's', turnId: 't', mergeStrategy: 'replace' });

const load = (files: AppFiles) => loadApp({ dir: writeApp(files), defaultModel: 'm', registry: createToolRegistry() });

describe('loading surfaces/', () => {
  it('loads each module as the template of the kind its file is named after, skipping tests and helpers', async () => {
    const app = await load({
      ...VALID_APP,
      'surfaces/flight-results.mjs': surfaceModule('Flights'),
      'surfaces/booking.ts': [
        'interface Booking { readonly reference: string }',
        'const template = (data: Booking, context: { surfaceId: string }) => ({',
        "  version: 'v0.9' as const,",
        "  createSurface: { surfaceId: context.surfaceId, catalogId: 'https://a2ui.org/specification/v0_9/catalogs/basic/catalog.json' },",
        "  updateComponents: { surfaceId: context.surfaceId, components: [{ id: 'root', component: 'Text', text: data.reference }] },",
        '});',
        'export default template;',
        '',
      ].join('\n'),
      'surfaces/_shared.mjs': "throw new Error('a helper module must not be loaded as a surface');\n",
      'surfaces/booking.test.ts': "throw new Error('a test file must not be loaded as a surface');\n",
      'surfaces/notes.md': '# not a surface\n',
    });
    expect(app.surfaces?.map(({ kind, file }) => ({ kind, file }))).toEqual([
      { kind: 'booking', file: 'surfaces/booking.ts' },
      { kind: 'flight-results', file: 'surfaces/flight-results.mjs' },
    ]);
    const booking = app.surfaces?.[0]?.template({ reference: 'SB12AB34' }, context('booking'));
    expect(checkSurfaceMessage(booking)).toEqual([]);
    expect(booking?.updateComponents.components[0]?.['text']).toBe('SB12AB34');
  });

  it('has no surfaces when the folder is missing', async () => {
    expect((await load(VALID_APP)).surfaces).toEqual([]);
  });

  it('reports a default export that is not a template, naming the file, with the other problems of the app', async () => {
    const problems = await appProblems(
      load({
        ...VALID_APP,
        'surfaces/object.mjs': 'export default { render: () => null };\n',
        'surfaces/none.mjs': 'export const template = () => null;\n',
        'surfaces/klass.mjs': 'export default class Surface {}\n',
        'surfaces/three.mjs': 'export default (data, context, extra) => extra;\n',
        'actors/helper.yaml': { name: 'helper', system: 'Help.', tools: ['missing_tool'] },
      }),
    );
    const ofSurfaces = problems.filter((problem) => problem.file.startsWith('surfaces/'));
    expect(ofSurfaces.map(({ file, field }) => ({ file, field }))).toEqual([
      { file: 'surfaces/klass.mjs', field: 'default export' },
      { file: 'surfaces/none.mjs', field: 'default export' },
      { file: 'surfaces/object.mjs', field: 'default export' },
      { file: 'surfaces/three.mjs', field: 'default export' },
    ]);
    expect(ofSurfaces.map((problem) => problem.message.split('; ')[1])).toEqual([
      'found a class',
      'found no default export',
      'found an object',
      'found a function of 3 parameters',
    ]);
    expect(problems.some((problem) => problem.file === 'actors/helper.yaml')).toBe(true);
  });

  it('reports a module that cannot be imported, naming the file and the error', async () => {
    const problems = await appProblems(
      load({ ...VALID_APP, 'surfaces/broken.mjs': "throw new Error('no such catalog');\n", 'surfaces/typo.mjs': 'export default (data => ;\n' }),
    );
    expect(problems).toEqual([
      { file: 'surfaces/broken.mjs', message: 'cannot be imported: no such catalog' },
      { file: 'surfaces/typo.mjs', message: expect.stringMatching(/^cannot be imported: /) as unknown },
    ]);
  });

  it('reports two files of one kind', async () => {
    const problems = new AppProblems();
    const surfaces = await loadSurfaces(writeApp({ 'surfaces/booking.js': surfaceModule('a'), 'surfaces/booking.mjs': surfaceModule('b') }), problems);
    expect(surfaces.map((surface) => surface.file)).toEqual(['surfaces/booking.js']);
    expect(problems.list()).toEqual([
      { file: 'surfaces/booking.mjs', message: 'shows the data kind "booking", which surfaces/booking.js already shows; keep one of them' },
    ]);
  });

  it('accepts any function of at most two parameters', () => {
    expect(surfaceExportProblem(() => null)).toBeUndefined();
    expect(surfaceExportProblem(function template(_data: unknown) {
      return null;
    })).toBeUndefined();
  });
});

describe('createAppSurfaceRegistry', () => {
  const tools = createToolRegistry();
  tools.register({
    name: 'pay',
    description: 'Pay an invoice from the company account. Needs approval.',
    scope: 'generalist',
    inputSchema: { type: 'object' },
    requiresApproval: true,
    handler: () => 'paid',
  });
  const people = [
    { id: 'sam', name: 'Sam Example', addresses: { web: [], email: [], sms: [], slack: [], whatsapp: [] }, roles: ['approver'] },
  ];
  const request: ApprovalRequest = { approvalId: 'apr_1', toolName: 'pay', toolCallId: 'c1', args: { amount: 12, currency: 'EUR' }, handler: 'helper', turn: 't', session: 's' };

  it('holds the approval surface, titled from the tool and saying who may decide, and the app templates', async () => {
    const app = await load({ ...VALID_APP, 'surfaces/flight-results.mjs': surfaceModule('Flights') });
    const registry = createAppSurfaceRegistry({ app: { ...app, people }, tools });
    expect(registry.kinds()).toEqual(['approval-request', 'flight-results']);
    const approval = registry.get('approval-request')?.(request, context('approval-request'));
    const texts = approval?.updateComponents.components.filter((component) => component.component === 'Text').map((component) => component['text']);
    expect(texts).toEqual(expect.arrayContaining(['Pay an invoice from the company account', 'Amount: EUR 12.00', 'May decide: Sam Example or anyone with the role approver.']));
  });

  it('lets an app template of the kind approval-request replace the built-in one', async () => {
    const app = await load({ ...VALID_APP, 'surfaces/approval-request.mjs': surfaceModule('Our own approval card') });
    const registry = createAppSurfaceRegistry({ app, tools });
    expect(registry.get('approval-request')?.(request, context('approval-request')).updateComponents.components[0]?.['text']).toBe('Our own approval card');
  });
});

describe('decidersText', () => {
  const people = [{ id: 'grace', name: 'Grace Hopper', addresses: { web: [], email: [], sms: [], slack: [], whatsapp: [] }, roles: [] }];

  it('names people, roles and the requester', () => {
    expect(decidersText({ tool: 'x', approvers: ['grace', 'role:travel-admin'], allowRequester: true, expiresInMinutes: 60 }, people)).toBe(
      'Grace Hopper, anyone with the role travel-admin or the person who asked',
    );
    expect(decidersText({ tool: 'x', approvers: [], allowRequester: true, expiresInMinutes: 60 }, people)).toBe('the person who asked');
    expect(decidersText({ tool: 'x', approvers: ['grace'], allowRequester: false, expiresInMinutes: 60 }, people)).toBe('Grace Hopper');
    expect(decidersText(undefined, people)).toBeUndefined();
  });
});
