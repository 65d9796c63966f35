import { readFileSync } from 'node:fs';
import type { Message } from '@anthropic-ai/sdk/resources/messages';
import type { ApiErrorBody } from '../fakes/anthropic-wire.ts';
import type { FakeSseEvent } from '../fakes/fake-anthropic-types.ts';

/** Folder of the recorded Anthropic payloads (fake identifiers, real shapes). */
const FIXTURES = new URL('../fixtures/anthropic/', import.meta.url);

function readFixture(file: string): unknown {
  return JSON.parse(readFileSync(new URL(file, FIXTURES), 'utf8')) as unknown;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * A recorded non-streaming Messages response: a text block then a `tool_use` block
 * (`lookup_order`), `stop_reason: tool_use`, usage with a cache read. A fresh copy on each call.
 */
export function recordedToolUseMessage(): Message {
  const value = readFixture('message-tool-use.json');
  if (!isObject(value) || value['type'] !== 'message' || !Array.isArray(value['content'])) {
    throw new Error('message-tool-use.json is not a Messages response');
  }
  return value as unknown as Message;
}

/** The same response as {@link recordedToolUseMessage}, recorded as a stream of SSE events. */
export function recordedToolUseStream(): FakeSseEvent[] {
  const value = readFixture('stream-tool-use.json');
  if (!Array.isArray(value) || !value.every((item) => isObject(item) && typeof item['event'] === 'string')) {
    throw new Error('stream-tool-use.json is not a list of { event, data }');
  }
  return value as FakeSseEvent[];
}

/** Recorded error bodies, by name: a 429 `rate_limit_error` and a 529 `overloaded_error`. */
export function recordedErrorBody(name: 'rate-limit' | 'overloaded'): ApiErrorBody {
  const value = readFixture(`error-${name}.json`);
  if (!isObject(value) || value['type'] !== 'error' || !isObject(value['error'])) {
    throw new Error(`error-${name}.json is not an API error body`);
  }
  return value as unknown as ApiErrorBody;
}
