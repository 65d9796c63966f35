/**
 * `switchboard init <dir>`: a new app folder from `templates/app/` (one actor, one tool with its
 * test, a commented `switchboard.yaml`), linked to this installation so that its imports of
 * `switchboard` and its `npm start` / `npm test` use it.
 */
import { cp, mkdir, readdir, stat, symlink, writeFile } from 'node:fs/promises';
import { basename, join, relative, resolve } from 'node:path';
import type { Writable } from 'node:stream';
import { SwitchboardError } from '../../src/protocol/errors.ts';

/** Where `init` copies from and links to. */
export interface InitPaths {
  /** The installation: its root holds `package.json`, `bin/switchboard.js` and `templates/app/`. */
  readonly installation: string;
  /** Folder relative paths are resolved against. */
  readonly cwd: string;
}

/** npm's rules for a package name, in short: lower case, URL-safe, at most 214 characters. */
function packageName(dir: string): string {
  const name = basename(dir).toLowerCase().replace(/[^a-z0-9._-]+/g, '-').replace(/^[._-]+/, '');
  return (name === '' ? 'switchboard-app' : name).slice(0, 214);
}

/**
 * The app's `package.json`: `switchboard` as a `file:` dependency on this installation (what
 * `npm install` keeps as a link), and scripts that run its commands on this folder.
 */
function appPackage(dir: string, installation: string): string {
  const app = 'SWITCHBOARD_APP=.';
  return `${JSON.stringify({
    name: packageName(dir),
    version: '0.1.0',
    private: true,
    type: 'module',
    engines: { node: '>=22.12' },
    scripts: {
      start: `${app} switchboard start`,
      test: 'switchboard test',
      doctor: `${app} switchboard doctor`,
      invite: `${app} switchboard invite`,
      approvals: `${app} switchboard approvals`,
    },
    dependencies: { switchboard: `file:${relative(dir, installation) || '.'}` },
  }, null, 2)}\n`;
}

async function isEmptyOrMissing(dir: string): Promise<boolean> {
  const found = await stat(dir).catch(() => undefined);
  if (found === undefined) return true;
  if (!found.isDirectory()) return false;
  return (await readdir(dir)).length === 0;
}

/**
 * Links `node_modules/switchboard` to the installation, and `node_modules/.bin/switchboard` to its
 * command, as `npm install` of the `file:` dependency would, without running npm.
 */
async function linkInstallation(dir: string, installation: string): Promise<void> {
  const modules = join(dir, 'node_modules');
  await mkdir(join(modules, '.bin'), { recursive: true });
  await symlink(relative(modules, installation) || '.', join(modules, 'switchboard'), 'dir');
  await symlink(join('..', 'switchboard', 'bin', 'switchboard.js'), join(modules, '.bin', 'switchboard'));
}

/**
 * Creates the app folder `args[0]` (missing or empty) and prints what it made and the two commands
 * to run it. Resolves to the exit code: 0, or 2 for a wrong use (no folder, a folder not empty).
 */
export async function runInitCommand(args: readonly string[], paths: InitPaths, out: Writable): Promise<number> {
  const [target, ...extra] = args;
  if (target === undefined || extra.length > 0) throw new SwitchboardError('config.invalid', 'usage: switchboard init <dir> (a new or empty folder for your app)');
  const dir = resolve(paths.cwd, target);
  if (!(await isEmptyOrMissing(dir))) throw new SwitchboardError('config.invalid', `${dir} is not empty: switchboard init makes a new app in a new or empty folder.`);
  await mkdir(dir, { recursive: true });
  await cp(join(paths.installation, 'templates', 'app'), dir, { recursive: true });
  await writeFile(join(dir, 'package.json'), appPackage(dir, paths.installation));
  await linkInstallation(dir, paths.installation);
  const shown = relative(paths.cwd, dir) || '.';
  out.write([
    `Created ${shown}/:`,
    '  switchboard.yaml        which actor answers, the people it knows, who approves what',
    '  actors/assistant.yaml   the actor: its prompt and its tools',
    '  tools/local_time.ts     a tool, with its test in tools/local_time.test.ts',
    `  package.json            scripts that run this installation (${paths.installation}) on the app`,
    '',
    'Run its tests (a scripted model, no API key needed), then the service on it:',
    `  cd ${shown} && npm test`,
    `  cd ${shown} && ANTHROPIC_API_KEY=sk-ant-... npm start`,
    '',
  ].join('\n'));
  return 0;
}
