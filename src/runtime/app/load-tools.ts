/**
 * Finds the tool modules of an app folder (`tools/*.ts|.js|.mjs`), imports each and registers its
 * default export.
 */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { SwitchboardError } from '../../protocol/errors.ts';
import type { ToolDefinition } from '../../protocol/tools/tool-definition.ts';
import type { ToolRegistry } from '../../protocol/tools/tool-registry.ts';
import { messageOf, type AppProblems } from './app-problems.ts';

const TOOL_EXTENSIONS = ['.ts', '.js', '.mjs'];

/**
 * Whether a file in `tools/` is a tool module: a `.ts`, `.js` or `.mjs` file that is not a test
 * (`*.test.*`), not a declaration file (`*.d.ts`) and does not start with `_` (shared helpers).
 */
export function isToolModuleFile(fileName: string): boolean {
  if (fileName.startsWith('_') || fileName.startsWith('.')) return false;
  if (fileName.endsWith('.d.ts') || /\.test\.[cm]?[jt]s$/.test(fileName)) return false;
  return TOOL_EXTENSIONS.some((extension) => fileName.endsWith(extension));
}

async function toolModuleFiles(toolsDir: string, problems: AppProblems): Promise<string[]> {
  try {
    const entries = await readdir(toolsDir, { withFileTypes: true });
    return entries
      .filter((entry) => entry.isFile() && isToolModuleFile(entry.name))
      .map((entry) => entry.name)
      .sort();
  } catch (error) {
    if ((error as { code?: unknown }).code !== 'ENOENT') problems.add('tools/', undefined, `cannot be read: ${messageOf(error)}`);
    return [];
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function describe(value: unknown): string {
  if (value === undefined) return 'no default export';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return `a ${typeof value}`;
}

/**
 * Imports every tool module in `<dir>/tools` in file-name order and registers its default export
 * into `registry`. A missing `tools/` folder means no tools. Problems (a module that fails to
 * import, a missing or invalid default export, a name already taken) are recorded, naming the file.
 *
 * @returns the names of the tools registered.
 */
export async function loadTools(dir: string, registry: ToolRegistry, problems: AppProblems): Promise<string[]> {
  const toolsDir = join(dir, 'tools');
  const files = await toolModuleFiles(toolsDir, problems);
  const registered: string[] = [];
  const fileOfTool = new Map<string, string>();
  for (const fileName of files) {
    const file = `tools/${fileName}`;
    let module: Record<string, unknown>;
    try {
      module = (await import(pathToFileURL(join(toolsDir, fileName)).href)) as Record<string, unknown>;
    } catch (error) {
      problems.add(file, undefined, `cannot be imported: ${messageOf(error)}`);
      continue;
    }
    const definition = module['default'];
    if (!isRecord(definition)) {
      problems.add(
        file,
        'default export',
        `must be a tool definition object ({ name, description, inputSchema, handler, scope, ... }), found ${describe(definition)}`,
      );
      continue;
    }
    try {
      const tool = registry.register(definition as unknown as ToolDefinition);
      registered.push(tool.name);
      fileOfTool.set(tool.name, file);
    } catch (error) {
      problems.add(file, fieldOf(error), registrationMessage(error, fileOfTool));
    }
  }
  return registered;
}

function fieldOf(error: unknown): string | undefined {
  if (!(error instanceof SwitchboardError)) return undefined;
  const field = error.details['field'];
  return typeof field === 'string' ? field : undefined;
}

function registrationMessage(error: unknown, fileOfTool: ReadonlyMap<string, string>): string {
  const message = messageOf(error);
  if (!(error instanceof SwitchboardError) || error.code !== 'tool.duplicate') return message;
  const tool = error.details['tool'];
  const first = typeof tool === 'string' ? fileOfTool.get(tool) : undefined;
  return first === undefined
    ? `${message} (it was registered before the app was loaded)`
    : `${message} (first defined in ${first})`;
}
