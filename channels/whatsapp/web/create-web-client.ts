/**
 * The production {@link WebClientFactory}: a real whatsapp-web.js `Client` driving the system's
 * Chromium headless (never a downloaded browser), its session kept by `LocalAuth` in
 * `WHATSAPP_SESSION_DIR` or by `RemoteAuth` in Redis (`redis-session-store.ts`).
 */
import wwebjs from 'whatsapp-web.js';
import { resolveChromiumPath } from './chromium-path.ts';
import type { WebAuth, WebClientFactory } from './web-client.ts';

/** Chromium flags for a headless browser in a container: no sandbox (no user namespaces there), no GPU, no background traffic. */
export const CHROMIUM_ARGS: readonly string[] = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-dev-shm-usage',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

function authStrategy(auth: WebAuth): wwebjs.LocalAuth | wwebjs.RemoteAuth {
  if (auth.kind === 'local') return new wwebjs.LocalAuth({ dataPath: auth.sessionDir });
  return new wwebjs.RemoteAuth({ store: auth.store, dataPath: auth.dataPath, backupSyncIntervalMs: auth.backupSyncIntervalMs });
}

/**
 * Constructs a real `Client` (not initialised: `initialize()` starts the browser).
 *
 * @throws {SwitchboardError} `config.invalid` when the browser is not found (see {@link resolveChromiumPath}).
 */
export const createWebClient: WebClientFactory = (options) =>
  new wwebjs.Client({
    puppeteer: { executablePath: resolveChromiumPath(options.chromiumPath), headless: true, args: [...CHROMIUM_ARGS] },
    authStrategy: authStrategy(options.auth),
  });
