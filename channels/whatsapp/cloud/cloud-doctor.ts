/**
 * `switchboard doctor`'s Cloud API check: the token and the phone number id read the business
 * number (`GET /{phone-number-id}`), named with its display number, verified name and quality
 * rating; a clear reason when they do not (an expired token is Meta's error 190).
 */
import type { WhatsAppCloudEnv } from '../../../src/config/env-types.ts';
import type { DoctorCheck } from '../../channel.ts';
import { createGraphClient } from './graph-client.ts';
import { CLOUD_WEBHOOK_PATH } from './cloud-routes.ts';

const NAME = 'whatsapp cloud';

/** What to do about a Graph error code, when there is a known remedy. */
function remedy(providerCode: string | undefined): string {
  if (providerCode === '190') return ': the token is expired or invalid; create a new system-user token and set WHATSAPP_TOKEN';
  if (providerCode === '100') return ': check WHATSAPP_PHONE_NUMBER_ID (the id of the number, not the number itself)';
  if (providerCode === '10' || providerCode === '200') return ': the token lacks the whatsapp_business_management permission for this number';
  return '';
}

/**
 * Checks the Cloud API credentials without the service running. Only reads; sends nothing.
 *
 * @param fetchImpl - Default the global `fetch`.
 *
 * @example
 * await cloudDoctor(env.whatsapp) // [{ name: 'whatsapp cloud', status: 'ok', detail: '+1 555-078-3881 (Lucky Shrub), …' }]
 */
export async function cloudDoctor(env: WhatsAppCloudEnv, fetchImpl?: typeof fetch): Promise<readonly DoctorCheck[]> {
  const client = createGraphClient({ apiUrl: env.apiUrl, token: env.token, phoneNumberId: env.phoneNumberId, ...(fetchImpl === undefined ? {} : { fetch: fetchImpl }) });
  try {
    const number = await client.phoneNumber();
    const quality = number.qualityRating === undefined ? '' : `, quality ${number.qualityRating}`;
    const name = number.verifiedName === '' ? '' : ` (${number.verifiedName})`;
    return [{ name: NAME, status: 'ok', detail: `${number.displayPhoneNumber}${name}, number id ${env.phoneNumberId}${quality}; point the app's webhook at ${CLOUD_WEBHOOK_PATH}` }];
  } catch (error) {
    const code = typeof error === 'object' && error !== null && 'providerCode' in error && typeof error.providerCode === 'string' ? error.providerCode : undefined;
    const message = error instanceof Error ? error.message : String(error);
    return [{ name: NAME, status: 'fail', detail: `number id ${env.phoneNumberId} at ${env.apiUrl}: ${message}${remedy(code)}` }];
  }
}
