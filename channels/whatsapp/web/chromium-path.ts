/**
 * Finds the browser whatsapp-web.js drives: `CHROMIUM_PATH` as an absolute path, or a name
 * (default `chromium`) looked up on `PATH` like a shell would. No browser is ever downloaded.
 */
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';
import { SwitchboardError } from '../../../src/protocol/errors.ts';

function isExecutableFile(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/**
 * The absolute path of the browser named by `chromiumPath`.
 *
 * @param chromiumPath - `CHROMIUM_PATH`: an absolute path, or a command name such as `chromium`.
 * @param searchPath - The `PATH` to search a name in. Default `process.env.PATH`.
 * @throws {SwitchboardError} `config.invalid` when no executable file is found, saying where it looked.
 */
export function resolveChromiumPath(chromiumPath: string, searchPath: string = process.env['PATH'] ?? ''): string {
  if (isAbsolute(chromiumPath)) {
    if (isExecutableFile(chromiumPath)) return chromiumPath;
    throw new SwitchboardError('config.invalid', `CHROMIUM_PATH ${chromiumPath} is not an executable file. Install Debian's chromium or point CHROMIUM_PATH at the browser.`, {
      details: { variable: 'CHROMIUM_PATH', chromiumPath },
    });
  }
  const folders = searchPath.split(delimiter).filter((folder) => folder !== '');
  const found = folders.map((folder) => join(folder, chromiumPath)).find(isExecutableFile);
  if (found !== undefined) return found;
  throw new SwitchboardError('config.invalid', `No browser named ${chromiumPath} on PATH. Install Debian's chromium (apt-get install chromium) or set CHROMIUM_PATH to the browser's absolute path.`, {
    details: { variable: 'CHROMIUM_PATH', chromiumPath, searched: folders },
  });
}
