import { readFileSync, readdirSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * The protocol core stays free of every channel SDK, queue library, Redis client and LLM SDK: it may
 * import only its own files, Node built-ins, and the small pure libraries listed here.
 */
const ALLOWED_PACKAGES: ReadonlySet<string> = new Set(['ajv', '@marcbachmann/cel-js', '@a2a-js/sdk', 'vitest', 'fast-check', 'typescript']);

const CORE_DIR = dirname(fileURLToPath(import.meta.url));

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** Every module specifier a file imports, re-exports or loads dynamically, in source order. */
export function importSpecifiers(source: string): string[] {
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier !== undefined) {
      if (ts.isStringLiteral(node.moduleSpecifier)) found.push(node.moduleSpecifier.text);
    } else if (ts.isCallExpression(node)) {
      const [first] = node.arguments;
      const isImport = node.expression.kind === ts.SyntaxKind.ImportKeyword;
      const isRequire = ts.isIdentifier(node.expression) && node.expression.text === 'require';
      if ((isImport || isRequire) && first !== undefined && ts.isStringLiteralLike(first)) found.push(first.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(ts.createSourceFile('scan.ts', source, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS));
  return found;
}

function packageName(specifier: string): string {
  const segments = specifier.split('/');
  return specifier.startsWith('@') ? segments.slice(0, 2).join('/') : (segments[0] ?? specifier);
}

/** Why a specifier may not appear in the core, or undefined when it may. */
export function boundaryViolation(file: string, specifier: string): string | undefined {
  if (specifier.startsWith('.')) {
    const target = resolve(dirname(file), specifier);
    return relative(CORE_DIR, target).startsWith('..') ? `reaches outside the protocol core (${specifier})` : undefined;
  }
  if (specifier.startsWith('node:') || builtinModules.includes(specifier)) return undefined;
  const name = packageName(specifier);
  return ALLOWED_PACKAGES.has(name) ? undefined : `imports the package "${name}"`;
}

describe('protocol core boundary', () => {
  it('imports no channel SDK, queue library, Redis client or LLM SDK, and nothing outside itself', () => {
    const violations = sourceFiles(CORE_DIR).flatMap((file) =>
      importSpecifiers(readFileSync(file, 'utf8')).flatMap((specifier) => {
        const why = boundaryViolation(file, specifier);
        return why === undefined ? [] : [`${relative(CORE_DIR, file)} ${why}`];
      }),
    );
    expect(violations).toEqual([]);
  });

  it('would catch each kind of forbidden import', () => {
    const file = join(CORE_DIR, 'respond', 'example.ts');
    const source = [
      "import { Queue } from 'bullmq';",
      "import type Redis from 'ioredis';",
      "import Anthropic from '@anthropic-ai/sdk';",
      "const bolt = await import('@slack/bolt');",
      "export { x } from '../../runtime/thing.ts';",
      "import 'twilio';",
      "import { readFileSync } from 'node:fs';",
      "import { Ajv } from 'ajv';",
    ].join('\n');
    const verdicts = importSpecifiers(source).map((specifier) => boundaryViolation(file, specifier));
    expect(verdicts.slice(0, 6).every((why) => why !== undefined)).toBe(true);
    expect(verdicts.slice(6)).toEqual([undefined, undefined]);
  });
});

/**
 * Channel SDKs and mail libraries belong to `channels/<id>/`: nothing under `src/` (the protocol
 * core and the runtime) may import one, so a channel can be removed without touching the core.
 */
const CHANNEL_PACKAGES: ReadonlySet<string> = new Set([
  'imapflow', 'mailparser', 'nodemailer', 'mailauth', 'email-reply-parser', 'smtp-server',
  'twilio', '@slack/bolt', '@slack/web-api', '@slack/socket-mode', 'whatsapp-web.js', 'puppeteer', 'puppeteer-core',
]);

/** The channel packages `source` imports. */
export function channelImports(source: string): string[] {
  return importSpecifiers(source).map(packageName).filter((name) => CHANNEL_PACKAGES.has(name));
}

describe('runtime boundary', () => {
  it('no file under src/ imports a channel SDK or mail library', () => {
    const srcDir = dirname(CORE_DIR);
    const violations = sourceFiles(srcDir).flatMap((file) => channelImports(readFileSync(file, 'utf8')).map((name) => `${relative(srcDir, file)} imports ${name}`));
    expect(violations).toEqual([]);
  });

  it('would catch a channel SDK import', () => {
    expect(channelImports("import { ImapFlow } from 'imapflow';\nimport type { App } from '@slack/bolt';\nimport { Redis } from 'ioredis';")).toEqual(['imapflow', '@slack/bolt']);
  });
});

/**
 * Layers point one way, from the bottom: `src/` (the protocol core and the runtime), `queues/`,
 * `channels/`, then `service/`, the assembly. No non-test source imports from a layer above its own.
 */
const ROOT = resolve(CORE_DIR, '..', '..');
const LAYERS = ['src', 'queues', 'channels', 'service'];

/** The non-test sources under `dir`. */
function sources(dir: string): string[] {
  return sourceFiles(dir).filter((file) => !file.endsWith('.test.ts'));
}

/** The layer above its own that `specifier`, imported by `file`, reaches into, if any. */
function reachesAbove(file: string, specifier: string): string | undefined {
  if (!specifier.startsWith('.')) return undefined;
  const own = LAYERS.indexOf(relative(ROOT, file).split('/')[0] ?? '');
  const top = relative(ROOT, resolve(dirname(file), specifier)).split('/')[0] ?? '';
  return LAYERS.indexOf(top) > own ? top : undefined;
}

describe('layers', () => {
  it.each(LAYERS)('%s/ imports nothing from a layer above it', (layer) => {
    const upward = sources(join(ROOT, layer)).flatMap((file) =>
      importSpecifiers(readFileSync(file, 'utf8')).flatMap((specifier) => (reachesAbove(file, specifier) === undefined ? [] : [`${relative(ROOT, file)} imports ${specifier}`])),
    );
    expect(upward).toEqual([]);
  });

  it('would catch an import that runs back up', () => {
    const file = join(ROOT, 'src', 'runtime', 'artifacts', 'example.ts');
    expect(reachesAbove(file, '../../../channels/kit/kept-secret.ts')).toBe('channels');
    expect(reachesAbove(file, '../../../service/create-service.ts')).toBe('service');
    expect(reachesAbove(file, '../redis/redis-client.ts')).toBeUndefined();
    expect(reachesAbove(join(ROOT, 'channels', 'a2a', 'x.ts'), '../../service/worker-role.ts')).toBe('service');
    expect(reachesAbove(join(ROOT, 'service', 'x.ts'), '../channels/registry.ts')).toBeUndefined();
  });
});
