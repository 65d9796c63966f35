import { describe, expect, it } from 'vitest';
import { DeliveryError } from '../../queues/delivery-error.ts';
import type { OutboundDelivery } from '../../queues/outbound-types.ts';
import { contractApproval } from '../kit/contract/channel-contract.ts';
import { createWhatsAppRender } from './render.ts';
import { createWhatsAppSender, type WhatsAppTemplates } from './send.ts';
import type { WhatsAppOut, WhatsAppTransport } from './transport.ts';
import type { WhatsAppPayload } from './whatsapp-payload.ts';

const GRACE = '+447700900123';
const TEMPLATES: WhatsAppTemplates = { approval: { name: 'approval_request', language: 'en' }, notice: { name: 'assistant_notice', language: 'en_GB' } };
const clock = (): Date => new Date('2030-01-01T10:00:00.000Z');
const render = createWhatsAppRender({ via: 'cloud', clock });

/**
 * A transport that records what it was asked to send, and with which keys; `refuse` makes free-form
 * sends fail with that error (by default like Meta outside the window), `failTemplates` template sends.
 */
function recording(options: { refuse?: boolean | DeliveryError; failTemplates?: DeliveryError; via?: 'cloud' | 'web' } = {}): WhatsAppTransport & { sent: WhatsAppOut[]; keys: string[] } {
  const sent: WhatsAppOut[] = [];
  const keys: string[] = [];
  const outsideWindow = new DeliveryError('Re-engagement message', { permanent: true, status: 400, providerCode: '131047' });
  return {
    via: options.via ?? 'cloud',
    sent,
    keys,
    send(message, idempotencyKey) {
      keys.push(idempotencyKey);
      if (options.refuse !== undefined && options.refuse !== false && message.kind !== 'template') return Promise.reject(options.refuse === true ? outsideWindow : options.refuse);
      if (options.failTemplates !== undefined && message.kind === 'template') return Promise.reject(options.failTemplates);
      sent.push(message);
      return Promise.resolve({ id: `wamid.${sent.length}` });
    },
  };
}

const asking = (record: ReturnType<typeof contractApproval>): Parameters<typeof render>[0] => ({ type: 'approval-request', record, partId: 't-1.0', part: { data: { approvalId: record.approvalId }, metadata: { partType: 'approval-request' } } });
const delivery = (payload: WhatsAppPayload): OutboundDelivery => ({ channel: 'whatsapp', destination: { channel: 'whatsapp', address: GRACE }, idempotencyKey: 'k-1', payload });
const answer = (): WhatsAppPayload => {
  const [payload] = render({ type: 'envelope', turnId: 't', turnState: 'complete', parts: [{ text: 'Your **summary**:\n\n- BA2043 tomorrow', metadata: { partType: 'response' } }] }, { channel: 'whatsapp', address: GRACE });
  if (payload === undefined) throw new Error('nothing rendered');
  return payload;
};
const approval = (): WhatsAppPayload => {
  const [payload] = render(asking(contractApproval({ channel: 'whatsapp', address: GRACE })), { channel: 'whatsapp', address: GRACE });
  if (payload === undefined) throw new Error('nothing rendered');
  return payload;
};

describe('the WhatsApp sender', () => {
  it('sends free text while the contact wrote in the last 24 hours', async () => {
    const transport = recording();
    const sender = createWhatsAppSender({ transport, windows: { isOpen: () => Promise.resolve(true) }, templates: TEMPLATES, clock });
    expect(await sender.send(delivery(answer()))).toEqual({ providerMessageId: 'wamid.1', details: { kind: 'text', via: 'cloud' } });
    expect(transport.sent[0]).toMatchObject({ kind: 'text', to: GRACE });
  });

  it('reads the window once when the outbound step prefetched it, and on demand when it did not', async () => {
    const transport = recording();
    let reads = 0;
    const sender = createWhatsAppSender({ transport, windows: { isOpen: () => { reads += 1; return Promise.resolve(true); } }, templates: TEMPLATES, clock });
    const first = delivery(answer());
    sender.prefetch?.(first);
    expect(reads).toBe(1);
    await sender.send(first);
    expect(reads).toBe(1);
    await sender.send(delivery(answer()));
    expect(reads).toBe(2);
    expect(transport.sent.map((message) => message.kind)).toEqual(['text', 'text']);
  });

  it('reads the window again when the send comes long after its prefetch, and sends the template once it closed', async () => {
    const transport = recording();
    let now = Date.parse('2030-01-01T10:00:00.000Z');
    let open = true;
    const sender = createWhatsAppSender({ transport, windows: { isOpen: () => Promise.resolve(open) }, templates: TEMPLATES, clock: () => new Date(now) });
    const late = delivery(answer());
    sender.prefetch?.(late);
    // The claim found an earlier send's outcome unknown and asked Meta first; the window closed meanwhile.
    open = false;
    now += 5000;
    await sender.send(late);
    expect(transport.sent.map((message) => message.kind)).toEqual(['template']);
  });

  it('sends the approval template with quick replies outside the window, and the notice template for other messages', async () => {
    const transport = recording();
    const sender = createWhatsAppSender({ transport, windows: { isOpen: () => Promise.resolve(false) }, templates: TEMPLATES, clock });
    await sender.send(delivery(approval()));
    await sender.send(delivery(answer()));
    const [asked, told] = transport.sent;
    expect(asked).toMatchObject({ kind: 'template', name: 'approval_request', language: 'en', quickReplies: approval().quickReplies });
    expect(told).toEqual({ kind: 'template', to: GRACE, name: 'assistant_notice', language: 'en_GB', bodyParams: ['Your *summary*: · - BA2043 tomorrow'] });
  });

  it('fails for good, naming the setting, when the window is closed and no template is configured', async () => {
    const transport = recording();
    const sender = createWhatsAppSender({ transport, windows: { isOpen: () => Promise.resolve(false) }, templates: {}, clock });
    const failure = await sender.send(delivery(answer())).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(DeliveryError);
    expect(failure).toMatchObject({ permanent: true, providerCode: '131047', message: expect.stringContaining('channels.whatsapp.templates.notice') as unknown });
    expect(transport.sent).toEqual([]);
  });

  it('sends the template when Meta refuses free text as outside the window, though our record said open', async () => {
    const transport = recording({ refuse: true });
    const sender = createWhatsAppSender({ transport, windows: { isOpen: () => Promise.resolve(true) }, templates: TEMPLATES, clock });
    const receipt = await sender.send(delivery(approval()));
    expect(receipt.details).toEqual({ kind: 'template', via: 'cloud' });
    expect(transport.sent.map((message) => message.kind)).toEqual(['template']);
    expect(transport.keys).toEqual(['k-1', 'k-1#template']);
  });

  it('fails with the template send\'s own error when that fails too, so the queue retries or gives up on it', async () => {
    const outage = new DeliveryError('Service unavailable', { status: 503, providerCode: '131016' });
    const transport = recording({ refuse: true, failTemplates: outage });
    const sender = createWhatsAppSender({ transport, windows: { isOpen: () => Promise.resolve(true) }, templates: TEMPLATES, clock });
    await expect(sender.send(delivery(answer()))).rejects.toBe(outage);
    expect(transport.keys).toEqual(['k-1', 'k-1#template']);
    expect(transport.sent).toEqual([]);
  });

  it('fails for good, naming the setting, when Meta says outside the window and no template is configured', async () => {
    const transport = recording({ refuse: true });
    const sender = createWhatsAppSender({ transport, windows: { isOpen: () => Promise.resolve(true) }, templates: {}, clock });
    await expect(sender.send(delivery(approval()))).rejects.toMatchObject({ permanent: true, providerCode: '131047', message: expect.stringContaining('channels.whatsapp.templates.approval (or .notice)') as unknown });
    expect(transport.keys).toEqual(['k-1']);
  });

  it('passes any other refusal on as it is, without trying a template', async () => {
    const refusal = new DeliveryError('Recipient phone number not in allowed list', { permanent: true, status: 400, providerCode: '131030' });
    const transport = recording({ refuse: refusal });
    const sender = createWhatsAppSender({ transport, windows: { isOpen: () => Promise.resolve(true) }, templates: TEMPLATES, clock });
    await expect(sender.send(delivery(answer()))).rejects.toBe(refusal);
    expect(transport.keys).toEqual(['k-1']);
  });

  it('does not send a second template when Meta refuses the template itself as outside the window', async () => {
    const outsideWindow = new DeliveryError('Re-engagement message', { permanent: true, status: 400, providerCode: '131047' });
    const transport = recording({ failTemplates: outsideWindow });
    const sender = createWhatsAppSender({ transport, windows: { isOpen: () => Promise.resolve(false) }, templates: TEMPLATES, clock });
    await expect(sender.send(delivery(answer()))).rejects.toBe(outsideWindow);
    expect(transport.keys).toEqual(['k-1']);
  });

  it('has no window in web mode', async () => {
    const transport = recording({ via: 'web' });
    const sender = createWhatsAppSender({ transport, windows: { isOpen: () => Promise.reject(new Error('not asked')) }, templates: {}, clock });
    await sender.send(delivery(answer()));
    expect(transport.sent.map((message) => message.kind)).toEqual(['text']);
    expect(sender.rateLimit).toEqual({ max: 1, durationMs: 1000 });
  });
});
