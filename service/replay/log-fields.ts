/** Reading the untyped `data` of event-log entries: each helper answers `undefined` for a wrong shape. */

/** `value` when it is a string. */
export function stringField(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/** `value` when it is a finite number. */
export function numberField(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

/** `value` when it is a plain object. */
export function objectField(value: unknown): Readonly<Record<string, unknown>> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Readonly<Record<string, unknown>>) : undefined;
}

/** `value` when it is an array of plain objects. */
export function objectsField(value: unknown): readonly Readonly<Record<string, unknown>>[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const items = value.map(objectField);
  return items.every((item) => item !== undefined) ? items : undefined;
}

/** The text of an error's message, or the value as a string. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
