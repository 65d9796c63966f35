import type { PartTypeDefinition } from './part-type-registry.ts';
import { PartTypeRegistry } from './part-type-registry.ts';

type Canonical = Omit<PartTypeDefinition, 'isCanonical'>;

/** The conversational signals every actor may emit. */
export const CORE_PART_TYPES: readonly Canonical[] = [
  {
    partType: 'ack',
    deliveryRules: { streaming: 'flush', buffered: 'drop' },
    description: 'Immediate, specific acknowledgement of what was understood and what happens next.',
  },
  {
    partType: 'thinking',
    deliveryRules: { streaming: 'flush', buffered: 'drop' },
    description: 'Progress note during a long tool-use loop.',
  },
  {
    partType: 'response',
    deliveryRules: { streaming: 'stream', buffered: 'render' },
    description: 'The substantive answer.',
  },
  {
    partType: 'clarify',
    deliveryRules: { streaming: 'flush', buffered: 'flush' },
    description: 'One clear question the actor needs answered before it can go on.',
  },
  {
    partType: 'error',
    deliveryRules: { streaming: 'flush', buffered: 'flush' },
    description: 'A failure the user needs to know about.',
  },
];

/** The envelope parts, for peer agents and UIs. */
export const ENVELOPE_PART_TYPES: readonly Canonical[] = [
  {
    partType: 'domain-data',
    deliveryRules: { streaming: 'once', buffered: 'at-settlement' },
    dataBearing: true,
    description: 'Structured domain data a peer reads programmatically.',
  },
  {
    partType: 'llm-context',
    deliveryRules: { streaming: 'at-settlement', buffered: 'at-settlement' },
    requiresPeerConsumes: true,
    description: 'Analytical prose for a peer LLM about the domain data.',
  },
  {
    partType: 'a2ui-surface',
    deliveryRules: { streaming: 'flush', buffered: 'final-state' },
    // Only restricts peers (agents): a peer gets surfaces only when its card lists a2ui-surface.
    requiresPeerConsumes: true,
    description: 'A2UI createSurface / updateDataModel / updateComponents messages.',
  },
  {
    partType: 'artifact',
    deliveryRules: { streaming: 'url-reference', buffered: 'attachment' },
    description: 'Reference to a binary asset: artifactId, mimeType, sizeBytes.',
  },
  {
    partType: 'reasoning-trace',
    deliveryRules: { streaming: 'audit-only', buffered: 'audit-only' },
    description: 'Captured model-native reasoning, kept for audit.',
  },
  {
    partType: 'citation',
    deliveryRules: { streaming: 'once', buffered: 'at-settlement' },
    description: 'Where a value in domain-data came from, bound to its path.',
  },
  {
    partType: 'approval-request',
    deliveryRules: { streaming: 'flush', buffered: 'flush' },
    description: 'A side-effecting tool call waits for a human decision.',
  },
  {
    partType: 'approval-response',
    deliveryRules: { streaming: 'inbound-only', buffered: 'inbound-only' },
    description: 'Inbound only: the decision that resumes a suspended turn.',
  },
  {
    partType: 'progress',
    deliveryRules: { streaming: 'flush', buffered: 'drop' },
    description: 'Structured progress of a long-running operation.',
  },
  {
    partType: 'setState',
    deliveryRules: { streaming: 'strip', buffered: 'strip' },
    description: 'A state-coordinate patch for the router; never delivered.',
  },
];

/** A registry holding the whole canonical set, ready for consumer registrations. */
export function createPartTypeRegistry(): PartTypeRegistry {
  const registry = new PartTypeRegistry();
  for (const definition of [...CORE_PART_TYPES, ...ENVELOPE_PART_TYPES]) registry.registerCanonical(definition);
  return registry;
}
