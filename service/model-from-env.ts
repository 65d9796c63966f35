import Anthropic from '@anthropic-ai/sdk';
import type { SwitchboardEnv } from '../src/config/env-types.ts';
import { DEFAULT_ANTHROPIC_BASE_URL } from '../src/config/env.ts';
import { createAnthropicModelClient } from '../src/runtime/model/anthropic-model-client.ts';
import type { ModelClient } from '../src/runtime/model/model-types.ts';
import { createUnconfiguredModelClient } from '../src/runtime/model/unconfigured-model-client.ts';

/** The model client the environment configures, whether it is configured, and what is missing. */
export interface ModelFromEnv {
  readonly client: ModelClient;
  readonly configured: boolean;
  readonly missing: readonly string[];
}

/**
 * The Anthropic SDK client for `ANTHROPIC_API_KEY` / `ANTHROPIC_BASE_URL` (2 SDK retries), or a
 * client that explains what is missing when neither is set.
 */
export function modelFromEnv(env: SwitchboardEnv): ModelFromEnv {
  const customEndpoint = env.anthropic.baseUrl !== DEFAULT_ANTHROPIC_BASE_URL;
  if (env.anthropic.apiKey === undefined && !customEndpoint) {
    const missing = ['ANTHROPIC_API_KEY', 'ANTHROPIC_BASE_URL'];
    return { client: createUnconfiguredModelClient(missing), configured: false, missing };
  }
  const sdk = new Anthropic({ apiKey: env.anthropic.apiKey ?? 'not-needed', baseURL: env.anthropic.baseUrl, maxRetries: 2 });
  return { client: createAnthropicModelClient({ client: sdk }), configured: true, missing: [] };
}
