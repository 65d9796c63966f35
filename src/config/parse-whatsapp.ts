import { isAbsolute } from 'node:path';
import type { EnvReader } from './env-reader.ts';
import type { EnvVariable } from './env-variables.ts';
import { DEFAULT_WHATSAPP_API_URL, type WhatsAppEnv } from './env-types.ts';
import { parseHttpUrl } from './parse-url.ts';

const CLOUD_VARIABLES = ['WHATSAPP_TOKEN', 'WHATSAPP_PHONE_NUMBER_ID', 'WHATSAPP_APP_SECRET', 'WHATSAPP_VERIFY_TOKEN', 'WHATSAPP_API_URL'] as const;

/** Records a problem for each of `names` that is set although `mode` does not read it. */
function unread(reader: EnvReader, names: readonly EnvVariable[], mode: string): void {
  for (const name of names) {
    if (reader.get(name) !== undefined) reader.fail(name, `is set but ${mode}; unset it, or set WHATSAPP_MODE to the mode that reads it.`);
  }
}

/** Each required variable of the Cloud API, or a problem naming the missing one. */
function required(reader: EnvReader, name: EnvVariable): string | undefined {
  const value = reader.get(name);
  if (value === undefined) reader.fail(name, 'is required when WHATSAPP_MODE=cloud.');
  return value;
}

function parseCloud(reader: EnvReader): WhatsAppEnv | undefined {
  unread(reader, ['WHATSAPP_SESSION_DIR'], 'WHATSAPP_MODE=cloud keeps no linked-device session');
  const token = required(reader, 'WHATSAPP_TOKEN');
  const phoneNumberId = required(reader, 'WHATSAPP_PHONE_NUMBER_ID');
  const appSecret = required(reader, 'WHATSAPP_APP_SECRET');
  const verifyToken = required(reader, 'WHATSAPP_VERIFY_TOKEN');
  if (phoneNumberId !== undefined && !/^[0-9]{5,20}$/.test(phoneNumberId)) {
    reader.fail('WHATSAPP_PHONE_NUMBER_ID', `must be the number's id (digits, from the WhatsApp Manager), not the phone number${reader.got('WHATSAPP_PHONE_NUMBER_ID', phoneNumberId)}.`);
    return undefined;
  }
  const apiUrlValue = reader.get('WHATSAPP_API_URL');
  const apiUrl = apiUrlValue === undefined ? DEFAULT_WHATSAPP_API_URL : parseHttpUrl(reader, 'WHATSAPP_API_URL', apiUrlValue, 'strip');
  if (token === undefined || phoneNumberId === undefined || appSecret === undefined || verifyToken === undefined || apiUrl === undefined) return undefined;
  return { mode: 'cloud', token, phoneNumberId, appSecret, verifyToken, apiUrl };
}

function parseWeb(reader: EnvReader): WhatsAppEnv | undefined {
  unread(reader, CLOUD_VARIABLES, 'WHATSAPP_MODE=web links a personal number instead of the Cloud API');
  const sessionDir = reader.get('WHATSAPP_SESSION_DIR');
  if (sessionDir !== undefined && !isAbsolute(sessionDir)) {
    reader.fail('WHATSAPP_SESSION_DIR', `must be an absolute path${reader.got('WHATSAPP_SESSION_DIR', sessionDir)}.`);
    return undefined;
  }
  return { mode: 'web', sessionDir, chromiumPath: reader.get('CHROMIUM_PATH') ?? 'chromium' };
}

/**
 * The WhatsApp channel from `WHATSAPP_MODE` and the variables of its mode; `undefined` when off or
 * invalid. Variables of the other mode, or of no mode, are refused so a typo cannot go unnoticed.
 */
export function parseWhatsApp(reader: EnvReader): WhatsAppEnv | undefined {
  const mode = reader.get('WHATSAPP_MODE');
  if (mode === 'cloud') return parseCloud(reader);
  if (mode === 'web') return parseWeb(reader);
  if (mode !== undefined) {
    reader.fail('WHATSAPP_MODE', `must be "web" (whatsapp-web.js, a linked device) or "cloud" (the WhatsApp Business Cloud API)${reader.got('WHATSAPP_MODE', mode)}.`);
    return undefined;
  }
  unread(reader, [...CLOUD_VARIABLES, 'WHATSAPP_SESSION_DIR'], 'the WhatsApp channel is off (WHATSAPP_MODE unset)');
  return undefined;
}
