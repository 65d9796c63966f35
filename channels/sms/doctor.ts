/** `switchboard doctor` checks of the SMS channel: the credentials, and the sending number or service. */
import type { DoctorCheck } from '../channel.ts';
import type { SmsEnv } from '../../src/config/env-types.ts';
import { createTwilioClient, type TwilioClient } from './twilio-client.ts';

function reason(error: unknown): string {
  const failure = error as { status?: unknown; code?: unknown; message?: unknown };
  const message = typeof failure.message === 'string' ? failure.message : String(error);
  return typeof failure.code === 'number' || typeof failure.code === 'string' ? `${message} (Twilio ${failure.code})` : message;
}

async function accountCheck(client: TwilioClient, sms: SmsEnv): Promise<DoctorCheck> {
  try {
    const account = await client.account(sms.accountSid).fetch();
    const ok = account.status === 'active';
    return { name: 'sms account', status: ok ? 'ok' : 'fail', detail: `${sms.accountSid} at ${sms.apiUrl}: ${account.status}${account.friendlyName === '' ? '' : ` (${account.friendlyName})`}` };
  } catch (error) {
    return { name: 'sms account', status: 'fail', detail: `${sms.accountSid} at ${sms.apiUrl}: ${reason(error)}` };
  }
}

async function numberCheck(client: TwilioClient, sms: SmsEnv): Promise<DoctorCheck> {
  const { from } = sms;
  if (from === undefined) return { name: 'sms number', status: 'fail', detail: 'TWILIO_SMS_FROM is unset: answers cannot be sent' };
  if (from.startsWith('MG')) return { name: 'sms number', status: 'ok', detail: `sending through Messaging Service ${from}` };
  try {
    // Twilio's filter matches part of a number: only an exact match counts.
    const owned = (await client.incomingPhoneNumbers.list({ phoneNumber: from, limit: 20 })).filter((number) => number.phoneNumber === from);
    return owned.length === 0
      ? { name: 'sms number', status: 'fail', detail: `${from} is not a number of account ${sms.accountSid}` }
      : { name: 'sms number', status: 'ok', detail: `${from} belongs to the account; point its messaging webhook at /webhooks/twilio/sms` };
  } catch (error) {
    return { name: 'sms number', status: 'fail', detail: `${from}: ${reason(error)}` };
  }
}

/** Checks the Twilio credentials and the sending number, without the service running. */
export async function smsDoctor(sms: SmsEnv | undefined): Promise<readonly DoctorCheck[]> {
  if (sms === undefined) return [{ name: 'channel sms', status: 'off', detail: 'TWILIO_ACCOUNT_SID and TWILIO_AUTH_TOKEN unset' }];
  const client = createTwilioClient(sms);
  return [await accountCheck(client, sms), await numberCheck(client, sms)];
}
