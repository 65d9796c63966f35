import { describe, expect, it } from 'vitest';
import { SwitchboardError } from '../src/protocol/errors.ts';
import { DeliveryError, retryAfterMsFromHeader, summarizeDeliveryError } from './delivery-error.ts';

describe('DeliveryError', () => {
  it('is a retryable delivery.failed by default', () => {
    const error = new DeliveryError('Service Unavailable', { status: 503 });
    expect(error).toBeInstanceOf(SwitchboardError);
    expect(error).toMatchObject({ code: 'delivery.failed', retryable: true, permanent: false, status: 503, retryAfterMs: undefined });
    expect(error.details).toEqual({ status: 503 });
    expect(error.name).toBe('DeliveryError');
  });

  it('is a non-retryable delivery.permanent when permanent', () => {
    const cause = new Error('400');
    const error = new DeliveryError('Invalid number', { permanent: true, cause, details: { to: '+1555' } });
    expect(error).toMatchObject({ code: 'delivery.permanent', retryable: false, permanent: true, cause });
    expect(error.details).toEqual({ to: '+1555' });
  });

  it('is delivery.rate_limited when rate limited, with a non-negative retryAfterMs', () => {
    const error = new DeliveryError('Too Many Requests', { rateLimited: true, retryAfterMs: 1500 });
    expect(error).toMatchObject({ code: 'delivery.rate_limited', retryable: true, retryAfterMs: 1500 });
    expect(new DeliveryError('x', { retryAfterMs: -5 }).retryAfterMs).toBe(0);
  });
});

describe('retryAfterMsFromHeader', () => {
  const now = Date.parse('2026-03-01T12:00:00Z');

  it('reads delay-seconds', () => {
    expect(retryAfterMsFromHeader('120', now)).toBe(120_000);
    expect(retryAfterMsFromHeader(' 0 ', now)).toBe(0);
  });

  it('reads an HTTP-date, never negative', () => {
    expect(retryAfterMsFromHeader('Sun, 01 Mar 2026 12:00:30 GMT', now)).toBe(30_000);
    expect(retryAfterMsFromHeader('Sun, 01 Mar 2026 11:00:00 GMT', now)).toBe(0);
  });

  it('ignores missing or unreadable values', () => {
    expect(retryAfterMsFromHeader(undefined, now)).toBeUndefined();
    expect(retryAfterMsFromHeader(null, now)).toBeUndefined();
    expect(retryAfterMsFromHeader('-3', now)).toBeUndefined();
    expect(retryAfterMsFromHeader('1.5', now)).toBeUndefined();
    expect(retryAfterMsFromHeader('soon', now)).toBeUndefined();
  });
});

describe('summarizeDeliveryError', () => {
  it('keeps the code, retry hint, provider code and status of a DeliveryError', () => {
    const error = new DeliveryError('Opted out', { permanent: true, status: 400, providerCode: '21610' });
    expect(error.providerCode).toBe('21610');
    expect(error.details).toEqual({ status: 400, providerCode: '21610' });
    expect(summarizeDeliveryError(error)).toEqual({ code: 'delivery.permanent', message: 'Opted out', status: 400, providerCode: '21610' });
    expect(summarizeDeliveryError(new DeliveryError('Slow down', { rateLimited: true, retryAfterMs: 900 }))).toEqual({
      code: 'delivery.rate_limited',
      message: 'Slow down',
      retryAfterMs: 900,
    });
  });

  it('keeps the code of another SwitchboardError and calls anything else delivery.failed', () => {
    expect(summarizeDeliveryError(new SwitchboardError('channel.unavailable', 'No token'))).toEqual({ code: 'channel.unavailable', message: 'No token' });
    expect(summarizeDeliveryError(new Error('socket hang up'))).toEqual({ code: 'delivery.failed', message: 'socket hang up' });
    expect(summarizeDeliveryError('boom')).toEqual({ code: 'delivery.failed', message: 'boom' });
  });
});
