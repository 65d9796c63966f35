/**
 * Cloud API webhook bodies for the WhatsApp property tests: valid ones with odd fields (every
 * message type, media with prototype-named types, approval buttons, statuses), broken ones, and
 * any JSON.
 */
import fc from 'fast-check';
import { anyJson, brokenFrom, nastyString, PROTOTYPE_KEYS } from '../support/fuzz-inputs.ts';

const digits = fc.oneof({ weight: 4, arbitrary: fc.stringMatching(/^[1-9][0-9]{6,14}$/) }, nastyString);
const TYPES = ['text', 'image', 'document', 'audio', 'video', 'sticker', 'interactive', 'button', 'location', 'contacts', 'reaction', 'system', 'request_welcome', 'unsupported', 'order', ...PROTOTYPE_KEYS];
const medium = fc.record({ id: fc.string(), mime_type: fc.oneof(fc.constantFrom('image/jpeg', 'audio/ogg; codecs=opus', 'constructor', '__proto__', 'toString'), nastyString), filename: nastyString, caption: nastyString, voice: fc.boolean() }, { requiredKeys: [] });
/** One message of `value.messages[]`: every type, with odd and prototype-named fields. */
export const cloudMessage = fc.record(
  {
    id: fc.oneof(fc.stringMatching(/^wamid\.[A-Za-z0-9=]{10,40}$/), nastyString),
    from: digits,
    type: fc.constantFrom(...TYPES),
    timestamp: fc.oneof(fc.nat({ max: 4_000_000_000 }).map(String), nastyString, fc.constantFrom('999999999999', '1e3', '-1')),
    context: fc.record({ id: nastyString }),
    text: fc.record({ body: nastyString }),
    image: medium, document: medium, audio: medium, video: medium, sticker: medium,
    interactive: fc.record({ type: fc.constantFrom('button_reply', 'list_reply', 'nfm_reply'), button_reply: fc.record({ id: fc.oneof(fc.constant(`apr:${'A'.repeat(22)}:a:${'0'.repeat(64)}`), nastyString), title: nastyString }, { requiredKeys: [] }) }, { requiredKeys: [] }),
    button: fc.record({ payload: fc.oneof(fc.constant(`apr:${'B'.repeat(22)}:d`), nastyString), text: nastyString }, { requiredKeys: [] }),
    location: fc.record({ latitude: fc.oneof(fc.double(), nastyString), longitude: fc.double(), name: nastyString, address: nastyString, url: nastyString }, { requiredKeys: [] }),
    contacts: fc.array(fc.record({ name: fc.record({ formatted_name: nastyString }), phones: fc.array(fc.record({ phone: nastyString })) }, { requiredKeys: [] }), { maxLength: 2 }),
    errors: fc.array(fc.record({ code: fc.oneof(fc.integer(), nastyString), title: nastyString, message: nastyString, error_data: fc.record({ details: nastyString }) }, { requiredKeys: [] }), { maxLength: 2 }),
  },
  { requiredKeys: ['id', 'from', 'type'] },
);
/** A webhook of the Cloud API, its fields often odd. */
const webhook = fc.record({
  object: fc.constantFrom('whatsapp_business_account', 'page'),
  entry: fc.array(
    fc.record({
      id: fc.string(),
      changes: fc.array(
        fc.record({
          field: fc.constantFrom('messages', 'message_template_status_update'),
          value: fc.record(
            {
              metadata: fc.record({ phone_number_id: fc.constantFrom('1000', '2000') }),
              contacts: fc.array(fc.record({ wa_id: digits, profile: fc.record({ name: nastyString }) }, { requiredKeys: ['wa_id'] }), { maxLength: 2 }),
              messages: fc.array(cloudMessage, { maxLength: 2 }),
              statuses: fc.array(fc.record({ id: fc.string(), status: fc.constantFrom('sent', 'delivered', 'read', 'failed', 'deleted', 'constructor'), timestamp: fc.nat().map(String), recipient_id: digits }, { requiredKeys: ['id', 'status'] }), { maxLength: 2 }),
            },
            { requiredKeys: ['metadata'] },
          ),
        }),
        { maxLength: 2 },
      ),
    }),
    { maxLength: 2 },
  ),
});

/** A webhook body: a valid one, one broken anywhere, or any JSON at all. */
export const cloudWebhookBody: fc.Arbitrary<unknown> = fc.oneof(webhook, brokenFrom(webhook), anyJson);
