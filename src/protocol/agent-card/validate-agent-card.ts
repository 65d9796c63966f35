/**
 * JSON Schema check of an A2A v1.0 Agent Card plus the Beach extension's `params` shape. The schema
 * is compiled once, when this module loads.
 *
 * What is required follows the A2A v1.0 definition (the fields the SDK's `AgentCard` type cannot do
 * without): `name`, `description`, `supportedInterfaces` (at least one, each with `url`,
 * `protocolBinding`, `protocolVersion`), `version`, `capabilities`, `defaultInputModes`,
 * `defaultOutputModes`, `skills` (each with `id`, `name`, `description`, `tags`). List and map
 * fields that the A2A JSON form leaves out when empty (`securitySchemes`, `securityRequirements`,
 * `signatures`, `capabilities.extensions`, a skill's `examples`, ...) may be absent; the returned card
 * has them filled with empty values, so it satisfies the SDK type. Unknown fields are kept (A2A asks
 * readers to ignore what they do not know).
 */

import type { AgentCard, AgentExtension, AgentInterface, AgentSkill, SecurityScheme } from '@a2a-js/sdk';
import { Ajv } from 'ajv';
import type { ErrorObject } from 'ajv';
import { BEACH_EXTENSION_URI } from './beach-extension.ts';

/** One reason a value is not a valid card; `path` is a JSON Pointer into the value (`''` = root). */
export interface AgentCardIssue {
  readonly path: string;
  readonly message: string;
}

/** Result of {@link validateAgentCard}. */
export type AgentCardValidation =
  | { readonly ok: true; readonly card: AgentCard }
  | { readonly ok: false; readonly issues: readonly AgentCardIssue[] };

const nonEmptyString = { type: 'string', minLength: 1 } as const;
const absoluteUrl = { type: 'string', format: 'absolute-url' } as const;
const mediaTypes = { type: 'array', items: nonEmptyString } as const;
const objectList = { type: 'array', items: { type: 'object' } } as const;

const extensionSchema = {
  type: 'object',
  required: ['uri'],
  properties: {
    uri: nonEmptyString,
    description: { type: 'string' },
    required: { type: 'boolean' },
    params: { type: 'object' },
  },
  if: { type: 'object', required: ['uri'], properties: { uri: { const: BEACH_EXTENSION_URI } } },
  then: {
    type: 'object',
    required: ['params'],
    properties: {
      params: {
        type: 'object',
        required: ['envelopeConsumes'],
        properties: { envelopeConsumes: { type: 'array', uniqueItems: true, items: nonEmptyString } },
      },
    },
  },
} as const;

const skillSchema = {
  type: 'object',
  required: ['id', 'name', 'description', 'tags'],
  properties: {
    id: nonEmptyString,
    name: nonEmptyString,
    description: { type: 'string' },
    tags: { type: 'array', items: { type: 'string' } },
    examples: { type: 'array', items: { type: 'string' } },
    inputModes: mediaTypes,
    outputModes: mediaTypes,
    securityRequirements: objectList,
  },
} as const;

/** The JSON Schema (draft-07) every card is checked against. Exported for documentation and tests. */
export const AGENT_CARD_SCHEMA = {
  type: 'object',
  required: [
    'name',
    'description',
    'supportedInterfaces',
    'version',
    'capabilities',
    'defaultInputModes',
    'defaultOutputModes',
    'skills',
  ],
  properties: {
    name: nonEmptyString,
    description: nonEmptyString,
    supportedInterfaces: {
      type: 'array',
      minItems: 1,
      items: {
        type: 'object',
        required: ['url', 'protocolBinding', 'protocolVersion'],
        properties: {
          url: absoluteUrl,
          protocolBinding: nonEmptyString,
          tenant: { type: 'string' },
          protocolVersion: nonEmptyString,
        },
      },
    },
    provider: {
      type: 'object',
      required: ['url', 'organization'],
      properties: { url: absoluteUrl, organization: nonEmptyString },
    },
    version: nonEmptyString,
    documentationUrl: absoluteUrl,
    iconUrl: absoluteUrl,
    capabilities: {
      type: 'object',
      properties: {
        streaming: { type: 'boolean' },
        pushNotifications: { type: 'boolean' },
        extendedAgentCard: { type: 'boolean' },
        extensions: { type: 'array', items: extensionSchema },
      },
    },
    securitySchemes: { type: 'object', additionalProperties: { type: 'object' } },
    securityRequirements: objectList,
    defaultInputModes: mediaTypes,
    defaultOutputModes: mediaTypes,
    skills: { type: 'array', items: skillSchema },
    signatures: {
      type: 'array',
      items: {
        type: 'object',
        required: ['protected', 'signature'],
        properties: { protected: nonEmptyString, signature: nonEmptyString, header: { type: 'object' } },
      },
    },
  },
} as const;

/** The shape the schema guarantees; optional where the A2A JSON form may leave a field out. */
interface CheckedCard {
  readonly [key: string]: unknown;
  readonly name: string;
  readonly description: string;
  readonly supportedInterfaces: readonly (Omit<AgentInterface, 'tenant'> & { readonly tenant?: string })[];
  readonly version: string;
  readonly capabilities: {
    readonly [key: string]: unknown;
    readonly extensions?: readonly (Pick<AgentExtension, 'uri'> & Partial<AgentExtension>)[];
  };
  readonly securitySchemes?: Readonly<Record<string, SecurityScheme>>;
  readonly securityRequirements?: AgentCard['securityRequirements'];
  readonly defaultInputModes: readonly string[];
  readonly defaultOutputModes: readonly string[];
  readonly skills: readonly (Pick<AgentSkill, 'id' | 'name' | 'description' | 'tags'> & Partial<AgentSkill>)[];
  readonly signatures?: AgentCard['signatures'];
}

const ajv = new Ajv({ allErrors: true, strict: true });
ajv.addFormat('absolute-url', {
  type: 'string',
  validate: (value: string) => /^https?:\/\//i.test(value) && URL.canParse(value),
});
const checkCard = ajv.compile<CheckedCard>(AGENT_CARD_SCHEMA);

function toIssue(error: ErrorObject): AgentCardIssue {
  const missing: unknown = error.params['missingProperty'];
  const path = typeof missing === 'string' ? `${error.instancePath}/${missing}` : error.instancePath;
  if (error.keyword === 'format') return { path, message: 'must be an absolute http(s) URL' };
  return { path, message: error.message ?? `fails "${error.keyword}"` };
}

/** Fills the fields the A2A JSON form may omit, so the result satisfies the SDK's `AgentCard`. */
function toAgentCard(checked: CheckedCard): AgentCard {
  const copy = structuredClone(checked);
  return {
    ...copy,
    supportedInterfaces: copy.supportedInterfaces.map((entry) => ({ ...entry, tenant: entry.tenant ?? '' })),
    provider: copy['provider'] as AgentCard['provider'],
    capabilities: {
      ...copy.capabilities,
      extensions: (copy.capabilities.extensions ?? []).map((extension) => ({
        ...extension,
        description: extension.description ?? '',
        required: extension.required ?? false,
        params: extension.params,
      })),
    },
    securitySchemes: { ...(copy.securitySchemes ?? {}) },
    securityRequirements: [...(copy.securityRequirements ?? [])],
    defaultInputModes: [...copy.defaultInputModes],
    defaultOutputModes: [...copy.defaultOutputModes],
    skills: copy.skills.map((skill) => ({
      ...skill,
      tags: [...skill.tags],
      examples: skill.examples ?? [],
      inputModes: skill.inputModes ?? [],
      outputModes: skill.outputModes ?? [],
      securityRequirements: skill.securityRequirements ?? [],
    })),
    signatures: [...(copy.signatures ?? [])],
  };
}

/**
 * Checks `value` (a card object, or the parsed JSON of `/.well-known/agent-card.json`) against the
 * A2A v1.0 Agent Card schema and the Beach extension shape: when an extension has
 * `uri: BEACH_EXTENSION_URI` it must carry `params.envelopeConsumes`, a list of distinct non-empty
 * strings, and a card may declare the Beach extension at most once. Every issue is listed, not only
 * the first. On success `card` is a normalised deep copy of `value`.
 */
export function validateAgentCard(value: unknown): AgentCardValidation {
  if (!checkCard(value)) {
    const issues = (checkCard.errors ?? []).filter((error) => error.keyword !== 'if').map(toIssue);
    return { ok: false, issues };
  }
  const beachEntries = (value.capabilities.extensions ?? []).flatMap((extension, index) =>
    extension.uri === BEACH_EXTENSION_URI ? [index] : [],
  );
  if (beachEntries.length > 1) {
    return {
      ok: false,
      issues: beachEntries.slice(1).map((index) => ({
        path: `/capabilities/extensions/${index}`,
        message: 'the Beach extension must be declared at most once',
      })),
    };
  }
  return { ok: true, card: toAgentCard(value) };
}
