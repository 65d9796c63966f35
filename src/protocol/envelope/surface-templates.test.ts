import { describe, expect, it } from 'vitest';
import { A2UI_VERSION, BASIC_CATALOG_ID } from './a2ui.ts';
import type { SurfaceTemplate } from './a2ui.ts';
import { approvalSurfaceTemplate } from './approval-surface.ts';
import { createSurfaceTemplateRegistry, SurfaceTemplateRegistry } from './surface-templates.ts';

const template: SurfaceTemplate = (_data, context) => ({
  version: A2UI_VERSION,
  createSurface: { surfaceId: context.surfaceId, catalogId: BASIC_CATALOG_ID },
  updateComponents: { surfaceId: context.surfaceId, components: [{ id: 'root', component: 'Text', text: 'hi' }] },
});

describe('SurfaceTemplateRegistry', () => {
  it('registers and finds templates by kind', () => {
    const registry = new SurfaceTemplateRegistry();
    registry.register('flight-results', template);
    expect(registry.get('flight-results')).toBe(template);
    expect(registry.has('hotel-results')).toBe(false);
    expect(registry.get('hotel-results')).toBeUndefined();
    expect(registry.kinds()).toEqual(['flight-results']);
  });

  it('rejects a second template for a kind with surface.duplicate', () => {
    const registry = new SurfaceTemplateRegistry();
    registry.register('flight-results', template);
    expect(() => {
      registry.register('flight-results', template);
    }).toThrow(expect.objectContaining({ code: 'surface.duplicate', details: { kind: 'flight-results' } }));
  });

  it('replaces a template with override', () => {
    const registry = new SurfaceTemplateRegistry();
    const other: SurfaceTemplate = (data, context) => template(data, context);
    registry.register('flight-results', template);
    registry.override('flight-results', other);
    expect(registry.get('flight-results')).toBe(other);
  });

  it('refuses an empty kind', () => {
    expect(() => {
      new SurfaceTemplateRegistry().register('', template);
    }).toThrow(expect.objectContaining({ code: 'envelope.invalid' }));
  });

  it('createSurfaceTemplateRegistry holds the built-in approval template, which can be overridden but not re-registered', () => {
    const registry = createSurfaceTemplateRegistry();
    expect(registry.get('approval-request')).toBe(approvalSurfaceTemplate);
    expect(() => {
      registry.register('approval-request', template);
    }).toThrow(expect.objectContaining({ code: 'surface.duplicate' }));
    registry.override('approval-request', template);
    expect(registry.get('approval-request')).toBe(template);
    expect(createSurfaceTemplateRegistry().get('approval-request')).toBe(approvalSurfaceTemplate);
  });

  it('createSurfaceTemplateRegistry takes another approval template', () => {
    expect(createSurfaceTemplateRegistry({ approvalTemplate: template }).get('approval-request')).toBe(template);
  });
});
