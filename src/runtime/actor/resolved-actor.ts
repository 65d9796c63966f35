import type { RegisteredTool } from '../../protocol/tools/tool-definition.ts';
import type { ToolRegistry } from '../../protocol/tools/tool-registry.ts';
import type { ModelTool } from '../model/model-types.ts';
import type { ActorConfig } from './actor-config.ts';

/** An actor with its tools resolved from the registry, ready to run. */
export interface ResolvedActor {
  readonly config: ActorConfig;
  /** The actor's tools by name (respond() is not among them). */
  readonly tools: ReadonlyMap<string, RegisteredTool>;
  /** The same tools in the model's shape. */
  readonly modelTools: readonly ModelTool[];
  /** The terminal ones, for the system prompt. */
  readonly terminalTools: readonly { name: string; description: string }[];
}

/**
 * Resolves each actor's tool names against the registry. An unknown name fails here, at start-up,
 * with an error naming it and the known tools.
 */
export function resolveActors(configs: readonly ActorConfig[], registry: ToolRegistry): Map<string, ResolvedActor> {
  const resolved = new Map<string, ResolvedActor>();
  for (const config of configs) {
    const tools = registry.resolveForActor(config.name, config.tools);
    resolved.set(config.name, {
      config,
      tools: new Map(tools.map((tool) => [tool.name, tool])),
      modelTools: tools.map((tool) => registry.toModelTool(tool)),
      terminalTools: tools.filter((tool) => tool.terminal).map((tool) => ({ name: tool.name, description: tool.description })),
    });
  }
  return resolved;
}
