import { Ajv, type ErrorObject, type Format, type ValidateFunction } from 'ajv';
import { SwitchboardError } from '../errors.ts';
import type { JsonSchema, ToolIssue } from './tool-definition.ts';

/** Options of {@link SchemaCompiler}. */
export interface SchemaCompilerConfig {
  /**
   * Extra string formats by name (for example those of the `ajv-formats` package). Default: none,
   * so a schema using `format` fails to compile under strict mode unless its format is given here.
   */
  readonly formats?: Readonly<Record<string, Format>>;
}

/** Which schema of a tool is being compiled, for error messages. */
export interface SchemaSite {
  readonly tool: string;
  readonly field: 'inputSchema' | 'outputSchema';
}

/** A compiled schema: a frozen copy of the source and its validator. */
export interface CompiledSchema {
  /** A frozen deep copy of the schema that was compiled (later edits to the original do not matter). */
  readonly schema: JsonSchema;
  /** Every way `value` fails the schema; empty when it matches. Never throws on bad input. */
  readonly check: (value: unknown) => ToolIssue[];
}

/**
 * Compiles JSON Schemas (draft-07) with Ajv in strict mode, collecting all errors. One Ajv instance
 * per compiler; schemas are compiled once and never added to the instance by `$id`, so two tools
 * may reuse an `$id`. Union types (`type: ['string', 'number']`) are allowed.
 */
export class SchemaCompiler {
  readonly #ajv: Ajv;

  constructor(config: SchemaCompilerConfig = {}) {
    this.#ajv = new Ajv({ strict: true, allErrors: true, allowUnionTypes: true, addUsedSchema: false });
    for (const [name, format] of Object.entries(config.formats ?? {})) this.#ajv.addFormat(name, format);
  }

  /**
   * Copies, freezes and compiles `schema`.
   * @throws SwitchboardError `tool.invalid_schema` when the schema cannot be copied as JSON data or
   *   does not compile (unknown keyword or format, bad type name, `required` naming an undeclared
   *   property, ...).
   */
  compile(schema: unknown, site: SchemaSite): CompiledSchema {
    const copy = copySchema(schema, site);
    let validate: ValidateFunction;
    try {
      validate = this.#ajv.compile(copy);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new SwitchboardError(
        'tool.invalid_schema',
        `Tool "${site.tool}": ${site.field} is not a valid JSON Schema: ${reason}`,
        { details: { tool: site.tool, field: site.field, reason }, cause: error },
      );
    }
    return Object.freeze({ schema: copy, check: (value: unknown): ToolIssue[] => checkWith(validate, value) });
  }
}

/**
 * Every way `value` fails `validate`. Ajv's keywords assume JSON data: some throw on other values
 * (`uniqueItems` compares items with their `valueOf`, which an object without a prototype lacks),
 * so a throw is an issue too, never an exception.
 */
function checkWith(validate: ValidateFunction, value: unknown): ToolIssue[] {
  try {
    return validate(value) ? [] : toToolIssues(validate.errors ?? []);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return [{ path: '', message: `must be plain JSON data (it could not be checked: ${reason})` }];
  }
}

function copySchema(schema: unknown, site: SchemaSite): JsonSchema {
  if (typeof schema === 'boolean') return schema;
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) {
    throw new SwitchboardError(
      'tool.invalid_schema',
      `Tool "${site.tool}": ${site.field} must be a JSON Schema object or boolean.`,
      { details: { tool: site.tool, field: site.field } },
    );
  }
  let copy: unknown;
  try {
    copy = structuredClone(schema);
  } catch (error) {
    throw new SwitchboardError(
      'tool.invalid_schema',
      `Tool "${site.tool}": ${site.field} must be plain JSON data (no functions or class instances).`,
      { details: { tool: site.tool, field: site.field }, cause: error },
    );
  }
  return deepFreeze(copy) as Readonly<Record<string, unknown>>;
}

function deepFreeze(value: unknown): unknown {
  if (typeof value === 'object' && value !== null) {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}

function escapePointerToken(token: string): string {
  return token.replaceAll('~', '~0').replaceAll('/', '~1');
}

/**
 * Turns Ajv errors into {@link ToolIssue}s. For `required` and `additionalProperties` the path
 * points at the missing or extra property itself, so the model sees which key to fix.
 */
export function toToolIssues(errors: readonly ErrorObject[]): ToolIssue[] {
  return errors.map((error) => {
    const params = error.params as Record<string, unknown>;
    const property =
      error.keyword === 'required'
        ? params['missingProperty']
        : error.keyword === 'additionalProperties'
          ? params['additionalProperty']
          : undefined;
    const path =
      typeof property === 'string' ? `${error.instancePath}/${escapePointerToken(property)}` : error.instancePath;
    const base = error.message ?? `fails "${error.keyword}"`;
    const message =
      error.keyword === 'enum' && Array.isArray(params['allowedValues'])
        ? `${base}: ${JSON.stringify(params['allowedValues'])}`
        : base;
    return { path, message };
  });
}
