/**
 * Checks parsed YAML against a JSON Schema with Ajv and turns every failure into an
 * {@link AppProblem} naming the field (`people[0].addresses.sms[1]`).
 */
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import * as ajvFormats from 'ajv-formats';
import type { AppProblems } from './app-problems.ts';

/** A compiled schema: `check` records the problems of `value` and tells whether there were none. */
export interface YamlValidator {
  readonly check: (value: unknown, file: string, problems: AppProblems) => boolean;
}

/** Compiles `schema` (strict mode, all errors, the `email` format). */
export function createYamlValidator(schema: Record<string, unknown>): YamlValidator {
  const ajv = new Ajv({ strict: true, allErrors: true, verbose: true });
  ajvFormats.default(ajv, ['email']);
  const validate: ValidateFunction = ajv.compile(schema);
  return {
    check: (value, file, problems) => {
      if (validate(value)) return true;
      for (const error of validate.errors ?? []) {
        const { field, message } = describeError(error);
        problems.add(file, field, message);
      }
      return false;
    },
  };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `/people/0/name` → `people[0].name`; the root is `''`. */
export function fieldPath(pointer: string, extra?: string): string {
  const tokens = pointer === '' ? [] : pointer.slice(1).split('/').map((token) => token.replaceAll('~1', '/').replaceAll('~0', '~'));
  if (extra !== undefined) tokens.push(extra);
  let path = '';
  for (const token of tokens) {
    if (/^\d+$/.test(token)) path += `[${token}]`;
    else path += path === '' ? token : `.${token}`;
  }
  return path;
}

function describeError(error: ErrorObject): { field: string; message: string } {
  const params = error.params as Record<string, unknown>;
  const parent: unknown = error.parentSchema;
  const description = isRecord(parent) && typeof parent['description'] === 'string' ? parent['description'] : undefined;
  switch (error.keyword) {
    case 'required':
      return { field: fieldPath(error.instancePath, String(params['missingProperty'])), message: 'is required' };
    case 'additionalProperties': {
      const known = isRecord(parent) && isRecord(parent['properties']) ? Object.keys(parent['properties']) : [];
      return {
        field: fieldPath(error.instancePath, String(params['additionalProperty'])),
        message: `is not a known key; allowed: ${known.join(', ')}`,
      };
    }
    case 'enum':
      return {
        field: fieldPath(error.instancePath),
        message: `must be one of ${(params['allowedValues'] as unknown[]).map((value) => JSON.stringify(value)).join(', ')}`,
      };
    case 'pattern':
    case 'format':
      return {
        field: fieldPath(error.instancePath),
        message: description === undefined ? (error.message ?? 'is not valid') : `must be ${description}`,
      };
    default:
      return { field: fieldPath(error.instancePath), message: error.message ?? `fails "${error.keyword}"` };
  }
}
