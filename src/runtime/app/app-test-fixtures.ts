/** Shared fixtures of the app loader tests (not a test file itself): temporary app folders. */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { stringify } from 'yaml';
import { SwitchboardError } from '../../protocol/errors.ts';
import { formatProblem, type AppProblem } from './app-problems.ts';

/** Files of an app folder by relative path; objects are written as YAML, strings as they are. */
export type AppFiles = Readonly<Record<string, string | Readonly<Record<string, unknown>> | undefined>>;

const created: string[] = [];

/** Writes `files` into a new temporary folder and returns its path. `undefined` entries are skipped. */
export function writeApp(files: AppFiles): string {
  const dir = mkdtempSync(join(tmpdir(), 'switchboard-app-'));
  created.push(dir);
  for (const [path, content] of Object.entries(files)) {
    if (content === undefined) continue;
    const target = join(dir, path);
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, typeof content === 'string' ? content : stringify(content));
  }
  return dir;
}

/** Removes every folder {@link writeApp} created. */
export function removeApps(): void {
  for (const dir of created.splice(0)) rmSync(dir, { recursive: true, force: true });
}

/** A JavaScript tool module whose default export is a valid generalist tool called `name`. */
export function toolModule(name: string, extra = ''): string {
  return [
    'export default {',
    `  name: ${JSON.stringify(name)},`,
    `  description: 'Test tool ${name}.',`,
    "  scope: 'generalist',",
    "  inputSchema: { type: 'object', properties: {} },",
    "  handler: () => 'ok',",
    extra,
    '};',
    '',
  ].join('\n');
}

/** A small valid app: two actors, two tools (one TypeScript, one JavaScript), people and approvals. */
export const VALID_APP: AppFiles = {
  'switchboard.yaml': {
    app: 'demo',
    entryActor: 'helper',
    channels: { email: { actor: 'writer', midTurn: 'followup' } },
    people: [
      { id: 'sam', name: 'Sam Example', addresses: { email: ['Sam@Example.com'], sms: ['+447700900123'] }, roles: ['approver'] },
    ],
    approvals: [{ tool: 'pay', approvers: ['sam', 'role:approver'] }],
  },
  'actors/helper.yaml': { name: 'helper', model: 'custom-model', system: '  Help people.\n', tools: ['lookup', 'pay'] },
  'actors/writer.yaml': { name: 'writer', system: 'Write things.', midTurn: 'followup', limits: { maxModelCalls: 3 } },
  'tools/lookup.mjs': toolModule('lookup'),
  'tools/pay.ts': [
    'interface PayArgs { readonly amount?: number }',
    'const pay = {',
    "  name: 'pay',",
    "  description: 'Pay something.',",
    "  scope: 'generalist' as const,",
    "  inputSchema: { type: 'object' as const, properties: { amount: { type: 'number' } } },",
    '  requiresApproval: true,',
    '  handler: (args: PayArgs): string => `paid ${String(args.amount)}`,',
    '};',
    'export default pay;',
    '',
  ].join('\n'),
  'tools/_shared.mjs': "throw new Error('a helper module must not be loaded as a tool');\n",
  'tools/lookup.test.ts': "throw new Error('a test file must not be loaded as a tool');\n",
  'tools/README.md': '# not a tool\n',
};

/**
 * The `app.invalid` error `promise` rejects with, checked to list each problem on its own line;
 * fails the test when it resolves or rejects with something else.
 */
export async function appProblems(promise: Promise<unknown>): Promise<readonly AppProblem[]> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  if (error === undefined) throw new Error('expected loadApp to reject, it resolved');
  if (!(error instanceof SwitchboardError) || error.code !== 'app.invalid') {
    throw new Error(`expected an app.invalid SwitchboardError, got ${error instanceof Error ? error.message : typeof error}`, { cause: error });
  }
  const problems = error.details['problems'] as readonly AppProblem[];
  for (const problem of problems) {
    const line = formatProblem(problem);
    if (!error.message.includes(line)) throw new Error(`the message does not list "${line}":\n${error.message}`);
  }
  return problems;
}
