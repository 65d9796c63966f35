import type { RegisteredTool, ToolArgs, ToolHandlerContext } from '../../protocol/tools/tool-definition.ts';

/** A routed tool call, as observers see it. */
export interface RoutedToolEvent {
  /** `actor:<actorName>`. */
  readonly source: string;
  /** `tool_call:<toolName>`. */
  readonly type: string;
  readonly tool: string;
  readonly args: ToolArgs;
  readonly context: ToolHandlerContext;
  /** Specialist calls are private to the calling actor: only audit observers see them. */
  readonly visibility: 'shared' | 'private';
}

/** Sees routed tool calls. Observers must not throw; a throw is caught and ignored. */
export type RouteObserver = (event: RoutedToolEvent) => void;

/**
 * The router that generalist and routed-specialist tool calls pass through: every call becomes an
 * event that observers see before the handler runs. Bypass-specialist tools do not come here.
 */
export interface ToolRouter {
  /** Routes one call and returns the handler's result (or its throw). */
  dispatch(tool: RegisteredTool, args: ToolArgs, context: ToolHandlerContext): Promise<unknown>;
  /** Adds an observer; `audit: true` observers also see private (specialist) calls. Returns a remover. */
  observe(observer: RouteObserver, options?: { audit?: boolean }): () => void;
}

/** An in-process {@link ToolRouter}. */
export function createToolRouter(): ToolRouter {
  const shared = new Set<RouteObserver>();
  const audit = new Set<RouteObserver>();
  const notify = (observers: Set<RouteObserver>, event: RoutedToolEvent): void => {
    for (const observer of observers) {
      try {
        observer(event);
      } catch {
        // an observer's failure must not change the call
      }
    }
  };
  return {
    async dispatch(tool, args, context) {
      const event: RoutedToolEvent = {
        source: `actor:${context.actorName}`,
        type: `tool_call:${tool.name}`,
        tool: tool.name,
        args,
        context,
        visibility: tool.scope === 'generalist' ? 'shared' : 'private',
      };
      notify(audit, event);
      if (event.visibility === 'shared') notify(shared, event);
      return await tool.handler(args, context);
    },
    observe(observer, options = {}) {
      const set = options.audit === true ? audit : shared;
      set.add(observer);
      return () => set.delete(observer);
    },
  };
}
