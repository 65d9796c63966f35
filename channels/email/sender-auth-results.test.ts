import { describe, expect, it } from 'vitest';
import { splitOutsideQuotes, unquote, withoutComments } from './sender-auth-header-syntax.ts';
import { authenticationResults } from './sender-auth-results.ts';

function message(...headers: string[]): Buffer {
  return Buffer.from([...headers, 'From: grace@example.com', '', 'Authentication-Results: body.example; dkim=pass', ''].join('\r\n'));
}

describe('authenticationResults', () => {
  it('reads every field top first, unfolded, without comments, and not the body', () => {
    const raw = message(
      'Authentication-Results: MX.Example.com (Postfix);',
      '\tdkim=pass (2048-bit key) header.d=Example.com header.i=@example.com;',
      ' dmarc=pass (p=REJECT) header.from=example.com',
      'Authentication-Results: other.example; spf=fail smtp.mailfrom=x@y.example',
    );
    const parsed = authenticationResults(raw);
    expect(parsed.map((field) => field.authservId)).toEqual(['mx.example.com', 'other.example']);
    const [dkim, dmarc] = parsed[0]?.results ?? [];
    expect(dkim?.method).toBe('dkim');
    expect(Object.fromEntries(dkim?.properties ?? [])).toEqual({ 'header.d': 'Example.com', 'header.i': '@example.com' });
    expect(dmarc?.properties.get('header.from')).toBe('example.com');
  });

  it('drops the method version, lower-cases results, unquotes values and leaves out "none"', () => {
    const [field] = authenticationResults(message('Authentication-Results: "mx.example.com" 1; DKIM/1=PASS header.d="exa\\"mple.com"; none'));
    expect(field?.authservId).toBe('mx.example.com');
    expect(field?.results).toEqual([{ method: 'dkim', result: 'pass', properties: new Map([['header.d', 'exa"mple.com']]) }]);
  });

  it('reads a message without a body, and gives nothing for one without the header', () => {
    expect(authenticationResults(Buffer.from('Authentication-Results: mx.example.com; dmarc=fail'))[0]?.results[0]?.result).toBe('fail');
    expect(authenticationResults(Buffer.from('From: grace@example.com\n\nhello'))).toEqual([]);
  });
});

describe('header syntax', () => {
  it('removes nested comments but keeps parentheses in quoted strings and escaped ones', () => {
    expect(withoutComments('a (one (two) \\) three) b "(kept)" c\\(d')).toBe('a   b "(kept)" c\\(d');
  });

  it('splits outside quoted strings only', () => {
    expect(splitOutsideQuotes('a; b="x;y"; c\\;d', ';')).toEqual(['a', ' b="x;y"', ' c\\;d']);
  });

  it('unquotes quoted strings only', () => {
    expect(unquote('"a\\"b"')).toBe('a"b');
    expect(unquote('"')).toBe('"');
    expect(unquote('plain')).toBe('plain');
  });
});
