import { describe, expect, it } from 'vitest';
import { createRedactor, isSecretName, REDACTED } from './redact.ts';

const SECRET = 'deployment-secret-0123456789';

describe('redactor', () => {
  const redactor = createRedactor({ secrets: [SECRET, undefined, 'short'] });

  it('removes configured secrets and credential-shaped text', () => {
    expect(redactor.text(`key is ${SECRET}.`)).toBe(`key is ${REDACTED}.`);
    expect(redactor.text('Authorization: Bearer abc.def.ghi0123')).toBe(`Authorization: ${REDACTED}`);
    expect(redactor.text('use Bearer abcdefgh12345678 now')).toBe(`use Bearer ${REDACTED} now`);
    expect(redactor.text('sk-ant-api03-AAAAbbbbCCCC and xoxb-1234-5678-abcdef')).toBe(`${REDACTED} and ${REDACTED}`);
    expect(redactor.text('redis://:hunter22@cache:6379/0')).toBe(`redis://:${REDACTED}@cache:6379/0`);
    expect(redactor.text('https://x.test/a?expires=1&sig=abcdef')).toBe(`https://x.test/a?expires=1&sig=${REDACTED}`);
    // Too short to look for: configured secrets under 8 characters are left alone.
    expect(redactor.text('short text')).toBe('short text');
  });

  it('replaces secret-named fields whole, at any depth, and leaves token counts alone', () => {
    const cleaned = redactor.value({ headers: { Authorization: 'x', cookie: 'y' }, args: { apiKey: 42, api_key: 'k', accessToken: 't' }, usage: { inputTokens: 5, tokens: 9 } });
    expect(cleaned).toEqual({ headers: { Authorization: REDACTED, cookie: REDACTED }, args: { apiKey: REDACTED, api_key: REDACTED, accessToken: REDACTED }, usage: { inputTokens: 5, tokens: 9 } });
    expect(isSecretName('x-api-key')).toBe(true);
    expect(isSecretName('maxTokens')).toBe(false);
  });

  it('keeps clean JSON text as it is and writes cleaned JSON that still parses', () => {
    const clean = '{"step":1,"usage":{"inputTokens":3}}';
    expect(redactor.json(clean)).toBe(clean);
    expect(JSON.parse(redactor.json('{"args":{"api_key":"k1","x-api-key":"k2","Set-Cookie":"c"}}'))).toEqual({ args: { api_key: REDACTED, 'x-api-key': REDACTED, 'Set-Cookie': REDACTED } });
    const dirty = JSON.stringify({ error: `401 with "Authorization: Bearer zzzzzzzz\\"quoted\\""`, password: 'p', nested: [SECRET] });
    const cleaned = JSON.parse(redactor.json(dirty)) as { error: string; password: string; nested: string[] };
    expect(cleaned.password).toBe(REDACTED);
    expect(cleaned.nested).toEqual([REDACTED]);
    expect(cleaned.error).not.toContain('zzzzzzzz');
  });

  it('finds a password in a URL and a secret member whatever its name holds before it, in JSON text', () => {
    const url = JSON.stringify({ endpoint: 'https://bot:hunter22@api.example.com/v1' });
    expect(redactor.json(url)).toBe(JSON.stringify({ endpoint: `https://bot:${REDACTED}@api.example.com/v1` }));
    const odd = JSON.stringify({ 'my "client" secret': 's3cr3t-value', 'Private_Key': 'k' });
    expect(JSON.parse(redactor.json(odd))).toEqual({ 'my "client" secret': REDACTED, Private_Key: REDACTED });
    const plain = JSON.stringify({ link: 'https://example.com/a:b', tokens: 12 });
    expect(redactor.json(plain)).toBe(plain);
  });
});
