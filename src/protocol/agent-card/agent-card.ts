/**
 * The A2A Agent Card (A2A v1.0 types from `@a2a-js/sdk`) with switchboard's Beach extension, which
 * tells peers which envelope part types this agent accepts (`envelopeConsumes`).
 */

import type {
  AgentCapabilities,
  AgentCard,
  AgentExtension,
  AgentInterface,
  AgentProvider,
  AgentSkill,
  SecurityRequirement,
  SecurityScheme,
} from '@a2a-js/sdk';
import { SwitchboardError } from '../errors.ts';
import { beachExtension } from './beach-extension.ts';
import { validateAgentCard } from './validate-agent-card.ts';

/** A2A protocol version the built card's interface declares by default. */
export const DEFAULT_A2A_PROTOCOL_VERSION = '1.0';

/** Protocol binding the built card's interface declares by default. */
export const DEFAULT_PROTOCOL_BINDING = 'JSONRPC';

/** Media types used for `defaultInputModes` / `defaultOutputModes` when none are given. */
export const DEFAULT_MODES: readonly string[] = ['text/plain', 'application/json'];

/** A skill as given to {@link buildAgentCard}; list fields default to empty. */
export interface AgentSkillInput {
  readonly id: string;
  readonly name: string;
  readonly description: string;
  /** Keywords. Default `[]`. */
  readonly tags?: readonly string[];
  /** Example prompts. Default `[]`. */
  readonly examples?: readonly string[];
  /** Media types overriding the card's defaults. Default `[]` (use the card's). */
  readonly inputModes?: readonly string[];
  /** Media types overriding the card's defaults. Default `[]` (use the card's). */
  readonly outputModes?: readonly string[];
  /** Default `[]`. */
  readonly securityRequirements?: readonly SecurityRequirement[];
}

/** Options of {@link buildAgentCard}. */
export interface BuildAgentCardOptions {
  /** Human-readable agent name. */
  readonly name: string;
  /** What the agent does. */
  readonly description: string;
  /** Absolute http(s) URL of the agent's A2A endpoint; becomes the first (preferred) interface. */
  readonly url: string;
  /** The agent's own version, e.g. `0.1.0`. */
  readonly version: string;
  readonly skills: readonly AgentSkillInput[];
  /** Part types the agent accepts in envelopes; published in the Beach extension. */
  readonly envelopeConsumes: readonly string[];
  /** Binding of the interface at `url`. Default {@link DEFAULT_PROTOCOL_BINDING} (`JSONRPC`). */
  readonly protocolBinding?: string;
  /** A2A version of the interface at `url`. Default {@link DEFAULT_A2A_PROTOCOL_VERSION} (`1.0`). */
  readonly protocolVersion?: string;
  /** Further interfaces, listed after the one at `url`. Default none. */
  readonly additionalInterfaces?: readonly AgentInterface[];
  /** Default none. */
  readonly provider?: AgentProvider;
  readonly documentationUrl?: string;
  readonly iconUrl?: string;
  /** Whether the agent streams responses. Default: not declared. */
  readonly streaming?: boolean;
  /** Whether the agent sends push notifications. Default: not declared. */
  readonly pushNotifications?: boolean;
  /** Other protocol extensions, listed after the Beach extension. Default none. */
  readonly extensions?: readonly AgentExtension[];
  /** Default {@link DEFAULT_MODES}. */
  readonly defaultInputModes?: readonly string[];
  /** Default {@link DEFAULT_MODES}. */
  readonly defaultOutputModes?: readonly string[];
  /** Default `{}`. */
  readonly securitySchemes?: Readonly<Record<string, SecurityScheme>>;
  /** Default `[]`. */
  readonly securityRequirements?: readonly SecurityRequirement[];
}

/**
 * Builds an A2A v1.0 Agent Card carrying the Beach extension in `capabilities.extensions`
 * (`{ uri: BEACH_EXTENSION_URI, required: false, params: { envelopeConsumes } }`, see
 * {@link beachExtension}), and checks the result with {@link validateAgentCard}. `url` becomes the
 * first entry of `supportedInterfaces` (A2A v1.0 has no top-level `url`).
 *
 * @throws SwitchboardError `agent_card.invalid` (details: `issues`) when the result is not a valid card,
 *   e.g. an empty name, a relative URL or a duplicate in `envelopeConsumes`.
 * @example
 * const card = buildAgentCard({
 *   name: 'Concierge', description: 'Books things', url: 'https://bot.example.com/a2a', version: '0.1.0',
 *   skills: [{ id: 'book', name: 'Book', description: 'Books a table', tags: ['booking'] }],
 *   envelopeConsumes: ['domain-data', 'llm-context'],
 * });
 */
export function buildAgentCard(options: BuildAgentCardOptions): AgentCard {
  const capabilities: AgentCapabilities = {
    extensions: [beachExtension(options.envelopeConsumes), ...(options.extensions ?? [])],
  };
  if (options.streaming !== undefined) capabilities.streaming = options.streaming;
  if (options.pushNotifications !== undefined) capabilities.pushNotifications = options.pushNotifications;

  const card: AgentCard = {
    name: options.name,
    description: options.description,
    supportedInterfaces: [
      {
        url: options.url,
        protocolBinding: options.protocolBinding ?? DEFAULT_PROTOCOL_BINDING,
        tenant: '',
        protocolVersion: options.protocolVersion ?? DEFAULT_A2A_PROTOCOL_VERSION,
      },
      ...(options.additionalInterfaces ?? []),
    ],
    provider: options.provider,
    version: options.version,
    capabilities,
    securitySchemes: { ...(options.securitySchemes ?? {}) },
    securityRequirements: [...(options.securityRequirements ?? [])],
    defaultInputModes: [...(options.defaultInputModes ?? DEFAULT_MODES)],
    defaultOutputModes: [...(options.defaultOutputModes ?? DEFAULT_MODES)],
    skills: options.skills.map((skill) => ({
      id: skill.id,
      name: skill.name,
      description: skill.description,
      tags: [...(skill.tags ?? [])],
      examples: [...(skill.examples ?? [])],
      inputModes: [...(skill.inputModes ?? [])],
      outputModes: [...(skill.outputModes ?? [])],
      securityRequirements: [...(skill.securityRequirements ?? [])],
    })) satisfies AgentSkill[],
    signatures: [],
  };
  if (options.documentationUrl !== undefined) card.documentationUrl = options.documentationUrl;
  if (options.iconUrl !== undefined) card.iconUrl = options.iconUrl;

  const result = validateAgentCard(card);
  if (!result.ok) {
    throw new SwitchboardError('agent_card.invalid', `Agent Card "${options.name}" is invalid.`, {
      details: { issues: result.issues },
    });
  }
  return result.card;
}
