/**
 * The test kit settles turns with the app's own surface templates, as the service does: a surface
 * for each data kind of the app's `surfaces/`, and none (its data kept) for a template that throws.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answer, callTool } from './scripted-model.ts';
import { startTestBot } from './test-bot.ts';
import type { TestBot } from './test-bot-types.ts';

const appDir = mkdtempSync(join(tmpdir(), 'sb-test-kit-surfaces-'));

function write(path: string, text: string): void {
  mkdirSync(dirname(join(appDir, path)), { recursive: true });
  writeFileSync(join(appDir, path), text);
}

const SURFACE_HEAD = "export default (data, context) => { if (data.city === 'Atlantis') throw new Error('no such city');";
const SURFACE_BODY = [
  'return {',
  "  version: 'v0.9',",
  "  createSurface: { surfaceId: context.surfaceId, catalogId: 'https://a2ui.org/specification/v0_9/catalogs/basic/catalog.json' },",
  "  updateDataModel: { surfaceId: context.surfaceId, path: '/', value: data },",
  "  updateComponents: { surfaceId: context.surfaceId, components: [{ id: 'root', component: 'Text', text: { path: '/city' } }] },",
  '}; };',
].join('\n');

let bot: TestBot;
beforeAll(async () => {
  write('switchboard.yaml', 'app: weather\nentryActor: forecaster\n');
  write('actors/forecaster.yaml', 'name: forecaster\nsystem: Tell the weather.\ntools: [forecast]\n');
  write(
    'tools/forecast.mjs',
    [
      'export default {',
      "  name: 'forecast', description: 'The weather of a city.', scope: 'generalist',",
      "  inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },",
      "  handler: ({ city }) => ({ domainData: { kind: 'forecast', data: { city, celsius: 21 } } }),",
      '};',
      '',
    ].join('\n'),
  );
  write('surfaces/forecast.mjs', `${SURFACE_HEAD}\n${SURFACE_BODY}\n`);
  bot = await startTestBot({ app: appDir });
}, 30_000);

afterAll(async () => {
  await bot.close();
  rmSync(appDir, { recursive: true, force: true });
});

const partTypes = (parts: readonly { metadata: { partType: string } }[] | undefined) => parts?.map((part) => part.metadata.partType);

describe('the test kit and surfaces', () => {
  it("settles with a surface from the app's template for the kind of the tool's data", async () => {
    const turn = await bot.send('Weather in Lisbon?', { model: [callTool('forecast', { city: 'Lisbon' }), answer('21 degrees.')] });
    expect(partTypes(turn.envelope?.parts)).toEqual(['response', 'domain-data', 'a2ui-surface']);
    const surface = turn.envelope?.parts[2]?.data as { createSurface: { surfaceId: string }; updateDataModel: { value: unknown } };
    expect(surface.createSurface.surfaceId).toBe('forecast');
    expect(surface.updateDataModel.value).toEqual({ city: 'Lisbon', celsius: 21 });
    expect(turn.droppedSurfaces).toEqual([]);
  });

  it('settles without the surface, its data kept, when the template throws', async () => {
    const turn = await bot.send('Weather in Atlantis?', { model: [callTool('forecast', { city: 'Atlantis' }), answer('No idea.')] });
    expect(turn.settled).toBe(true);
    expect(partTypes(turn.envelope?.parts)).toEqual(['response', 'domain-data']);
    expect(turn.droppedSurfaces).toHaveLength(1);
    expect(turn.droppedSurfaces[0]).toMatchObject({ kind: 'forecast', surfaceId: 'forecast', reason: 'template-threw' });
    expect(turn.droppedSurfaces[0]?.['message']).toContain('no such city');
  });
});
