/**
 * The Graph error table: which of Meta's codes are throttling, worth another try, or final, and
 * the DeliveryError each becomes (class, provider code, Retry-After, Meta's words).
 */
import { describe, expect, it } from 'vitest';
import { DeliveryError } from '../../../queues/delivery-error.ts';
import { classifyGraphError, graphDeliveryError, readGraphErrorBody } from './graph-errors.ts';

const metaError = (code: number, extra: Record<string, unknown> = {}) => ({ error: { message: `(#${code}) Something`, type: 'OAuthException', code, fbtrace_id: 'Atrace', ...extra } });

describe('classifyGraphError', () => {
  it.each([
    [429, undefined], [400, 4], [400, 80007], [400, 130429], [400, 131048], [400, 131056], [429, 131047],
  ])('HTTP %i with code %s is rate-limited', (status, code) => {
    expect(classifyGraphError(status, code)).toBe('rate-limited');
  });

  it.each([
    [500, undefined], [503, undefined], [408, undefined], [500, 131000], [400, 131000], [400, 131016], [400, 2], [400, 133004],
  ])('HTTP %i with code %s is retryable', (status, code) => {
    expect(classifyGraphError(status, code)).toBe('retryable');
  });

  it.each([
    [400, 131047], [400, 131026], [400, 131051], [400, 100], [401, 190], [400, 132000], [400, 132001], [400, 132015], [400, 132999], [400, undefined], [404, 131009], [500, 190],
  ])('HTTP %i with code %s is permanent', (status, code) => {
    expect(classifyGraphError(status, code)).toBe('permanent');
  });

  it('treats a template code as permanent even with a 5xx status, and a code outside 132xxx by its status', () => {
    expect(classifyGraphError(503, 132012)).toBe('permanent');
    expect(classifyGraphError(503, 133000)).toBe('retryable');
  });
});

describe('readGraphErrorBody', () => {
  it('reads Meta\'s error JSON, details from error_data', () => {
    expect(readGraphErrorBody({ error: { message: 'm', type: 'OAuthException', code: 190, error_subcode: 463, error_data: { details: 'd' }, fbtrace_id: 't' } }))
      .toEqual({ message: 'm', type: 'OAuthException', code: 190, subcode: 463, details: 'd', fbtraceId: 't' });
  });

  it('gives nothing for a body that is not one', () => {
    expect(readGraphErrorBody(undefined)).toEqual({});
    expect(readGraphErrorBody('<html>')).toEqual({});
    expect(readGraphErrorBody({ error: 'nope' })).toEqual({});
    expect(readGraphErrorBody({ error: { code: '131047' } })).toEqual({});
  });
});

describe('graphDeliveryError', () => {
  it('makes 131047 permanent with its provider code and Meta\'s details', () => {
    const error = graphDeliveryError({ status: 400, body: metaError(131047, { error_data: { details: 'More than 24 hours have passed.' } }), retryAfter: null, action: 'send a message' });
    expect(error).toBeInstanceOf(DeliveryError);
    expect(error).toMatchObject({ code: 'delivery.permanent', permanent: true, providerCode: '131047', status: 400, retryable: false });
    expect(error.message).toBe('WhatsApp Cloud API could not send a message (Graph 131047): (#131047) Something: More than 24 hours have passed.');
    expect(error.details['fbtraceId']).toBe('Atrace');
  });

  it('makes 130429 rate-limited and honours Retry-After', () => {
    const error = graphDeliveryError({ status: 400, body: metaError(130429), retryAfter: '7', action: 'send a message' });
    expect(error).toMatchObject({ code: 'delivery.rate_limited', permanent: false, retryAfterMs: 7000, providerCode: '130429' });
  });

  it('makes a 5xx without a JSON body retryable, named by its status', () => {
    const error = graphDeliveryError({ status: 502, body: undefined, retryAfter: null, action: 'upload a medium' });
    expect(error).toMatchObject({ code: 'delivery.failed', permanent: false, status: 502, providerCode: undefined, retryAfterMs: undefined });
    expect(error.message).toBe('WhatsApp Cloud API could not upload a medium (HTTP 502)');
  });

  it('names the subcode of a token error', () => {
    const error = graphDeliveryError({ status: 401, body: metaError(190, { error_subcode: 463 }), retryAfter: null, action: 'read the phone number' });
    expect(error.message).toContain('(Graph 190/463)');
    expect(error.permanent).toBe(true);
  });
});
