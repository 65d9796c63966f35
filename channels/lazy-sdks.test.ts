import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../', import.meta.url));

/** The npm packages a fresh Node process loads (imported or required, at any depth) when it imports `modules`. */
async function packagesLoadedBy(modules: readonly string[]): Promise<Set<string>> {
  const script = `
    import { registerHooks } from 'node:module';
    const urls = new Set();
    registerHooks({ resolve: (specifier, context, next) => { const resolved = next(specifier, context); urls.add(resolved.url); return resolved; } });
    for (const module of ${JSON.stringify(modules)}) await import(module);
    const names = [...urls].filter((url) => url.includes('/node_modules/')).map((url) => {
      const [scope = '', name = ''] = url.split('/node_modules/').at(-1).split('/');
      return scope.startsWith('@') ? scope + '/' + name : scope;
    });
    process.stdout.write(JSON.stringify([...new Set(names)]));`;
  const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], { cwd: ROOT });
  return new Set(JSON.parse(stdout) as string[]);
}

const CHANNEL_SDKS = ['twilio', '@slack/bolt', '@slack/web-api', '@slack/socket-mode', 'whatsapp-web.js', 'puppeteer-core', 'imapflow', 'mailparser', 'nodemailer', 'mailauth'];

describe('channel SDKs load only with their channel', () => {
  it('a service that runs no channel but the web chat loads none of them', async () => {
    const loaded = await packagesLoadedBy(['./service/create-service.ts', './channels/registry.ts']);
    expect(CHANNEL_SDKS.filter((name) => loaded.has(name))).toEqual([]);
    expect(loaded.has('ioredis')).toBe(true);
  });

  it('creating a channel loads its SDK', async () => {
    const loaded = await packagesLoadedBy(['./channels/sms/adaptor.ts', './channels/email/adaptor.ts']);
    expect(['twilio', 'imapflow', 'nodemailer'].filter((name) => loaded.has(name))).toEqual(['twilio', 'imapflow', 'nodemailer']);
  });
});
