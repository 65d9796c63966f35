import { SwitchboardError } from '../../protocol/errors.ts';
import type { ModelClient } from './model-types.ts';

/**
 * The model client used when no model endpoint is configured: every call fails at once with a
 * message, shown to the person, that names what to set.
 */
export function createUnconfiguredModelClient(missing: readonly string[]): ModelClient {
  const userMessage = `No model is configured for this assistant. The operator must set ${missing.join(' or ')} and restart it.`;
  return {
    create() {
      return Promise.reject(new SwitchboardError('model.failed', userMessage, { details: { userMessage, missing } }));
    },
  };
}
