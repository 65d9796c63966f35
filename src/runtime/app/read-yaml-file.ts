/** Reads one YAML file of an app folder, recording a problem instead of throwing. */
import { readFile } from 'node:fs/promises';
import { parseDocument } from 'yaml';
import { messageOf, type AppProblems } from './app-problems.ts';

/** The outcome of {@link readYamlFile}: the parsed value, or nothing when a problem was recorded. */
export type YamlReadResult = { readonly ok: true; readonly value: unknown } | { readonly ok: false };

/**
 * Reads and parses `path`. Syntax errors (with line and column), duplicate keys and a missing or
 * unreadable file are recorded in `problems` under `file`.
 */
export async function readYamlFile(path: string, file: string, problems: AppProblems): Promise<YamlReadResult> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    problems.add(file, undefined, code === 'ENOENT' ? 'file not found' : `cannot be read: ${messageOf(error)}`);
    return { ok: false };
  }
  const document = parseDocument(text, { prettyErrors: true });
  if (document.errors.length > 0) {
    for (const error of document.errors) {
      const at = error.linePos?.[0];
      const where = at === undefined ? '' : ` (line ${at.line}, column ${at.col})`;
      problems.add(file, undefined, `is not valid YAML${where}: ${firstLine(error.message)}`);
    }
    return { ok: false };
  }
  return { ok: true, value: document.toJS() as unknown };
}

/** The first line of a yaml error message, without the position the message repeats at its end. */
function firstLine(text: string): string {
  return (text.split('\n')[0] ?? text).replace(/ at line \d+, column \d+:?$/, '');
}
