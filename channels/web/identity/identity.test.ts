import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { useKeyPrefix, useRedis } from '../../../test/support/redis.ts';
import { useRedisClients } from '../../../test/support/redis-clients.ts';
import { checkOrigin, checkSessionPost, csrfTokenFor } from './request-guard.ts';
import { readSessionCookie, sessionCookieHeader } from './session-cookie.ts';
import { keptSecret, keptSecretKey } from '../../kit/kept-secret.ts';
import { SESSION_SECRET_PURPOSE } from './session-cookie.ts';
import { deciderOf, senderOf } from './web-principal.ts';

const redisUrl = useRedis();
const prefix = useKeyPrefix(redisUrl);
const connect = useRedisClients(redisUrl);
const SECRET = 'unit-test-secret-0123456789abcdefghij';
const SID = 'AAAAAAAAAAAAAAAAAAAAAw';

/** A request with only the headers the checks read. */
function request(headers: Record<string, string>): IncomingMessage {
  return { headers, socket: {} } as unknown as IncomingMessage;
}

function cookieOf(sid: string, secret = SECRET): string {
  return (sessionCookieHeader(sid, secret, { maxAgeMs: 1000, secure: false }).split(';')[0]) ?? '';
}

describe('the session secret', () => {
  it('is SESSION_SECRET when set, and nothing is stored', async () => {
    const redis = await connect();
    expect(await keptSecret({ redis, prefix: prefix(), purpose: SESSION_SECRET_PURPOSE, configured: SECRET })).toBe(SECRET);
    expect(await redis.exists(keptSecretKey(prefix(), SESSION_SECRET_PURPOSE))).toBe(0);
  });

  it('is generated once and kept in Redis when unset, so every process agrees', async () => {
    const [a, b] = await Promise.all([connect(), connect()]);
    const secrets = await Promise.all([
      keptSecret({ redis: a, prefix: prefix(), purpose: SESSION_SECRET_PURPOSE }),
      keptSecret({ redis: b, prefix: prefix(), purpose: SESSION_SECRET_PURPOSE }),
    ]);
    expect(secrets[0]).toBe(secrets[1]);
    expect(secrets[0].length).toBeGreaterThanOrEqual(32);
    expect(await a.get(keptSecretKey(prefix(), SESSION_SECRET_PURPOSE))).toBe(secrets[0]);
    expect(await keptSecret({ redis: a, prefix: prefix(), purpose: SESSION_SECRET_PURPOSE })).toBe(secrets[0]);
  });
});

describe('the session cookie', () => {
  it('verifies a cookie signed with the secret, and only that', () => {
    expect(readSessionCookie(request({ cookie: `theme=dark; ${cookieOf(SID)}` }), SECRET)).toEqual({ kind: 'sid', sid: SID });
    expect(readSessionCookie(request({ cookie: cookieOf(SID, 'another-secret-0123456789abcdefghijk') }), SECRET)).toEqual({ kind: 'forged' });
    expect(readSessionCookie(request({ cookie: `sb_session=${SID}` }), SECRET)).toEqual({ kind: 'forged' });
    expect(readSessionCookie(request({ cookie: 'theme=dark' }), SECRET)).toEqual({ kind: 'absent' });
    expect(readSessionCookie(request({}), SECRET)).toEqual({ kind: 'absent' });
  });

  it('takes the first cookie that verifies when several are sent', () => {
    const header = `sb_session=${SID}.${'C'.repeat(43)}; ${cookieOf(SID)}`;
    expect(readSessionCookie(request({ cookie: header }), SECRET)).toEqual({ kind: 'sid', sid: SID });
  });

  it('uses a CSRF token that is not the cookie mac', () => {
    const mac = cookieOf(SID).split('.')[1];
    expect(csrfTokenFor(SECRET, SID)).not.toBe(mac);
    expect(csrfTokenFor(SECRET, SID)).not.toBe(csrfTokenFor(SECRET, 'BAAAAAAAAAAAAAAAAAAAAw'));
  });
});

describe('the request guard', () => {
  const publicUrl = 'https://chat.example.com';
  const token = csrfTokenFor(SECRET, SID);
  const json = { 'content-type': 'application/json; charset=utf-8', host: 'internal:3000' };

  it('accepts no Origin, the public origin and the request own origin', () => {
    expect(() => {
      checkOrigin(request({ host: 'internal:3000' }), publicUrl);
    }).not.toThrow();
    expect(() => {
      checkOrigin(request({ host: 'internal:3000', origin: 'https://chat.example.com' }), publicUrl);
    }).not.toThrow();
    expect(() => {
      checkOrigin(request({ host: 'internal:3000', origin: 'http://internal:3000' }), publicUrl);
    }).not.toThrow();
  });

  it.each(['https://evil.example', 'null', 'http://chat.example.com', 'https://internal:3000'])('refuses Origin %s with 403', (origin) => {
    expect(() => {
      checkOrigin(request({ host: 'internal:3000', origin }), publicUrl);
    }).toThrow(expect.objectContaining({ code: 'http.forbidden' }) as Error);
  });

  it('needs the session CSRF token and a JSON body', () => {
    expect(() => {
      checkSessionPost(request({ ...json, 'x-csrf-token': token }), { secret: SECRET, sid: SID, publicUrl });
    }).not.toThrow();
    for (const bad of [{}, { 'x-csrf-token': '' }, { 'x-csrf-token': csrfTokenFor(SECRET, 'BAAAAAAAAAAAAAAAAAAAAw') }]) {
      expect(() => {
        checkSessionPost(request({ ...json, ...bad }), { secret: SECRET, sid: SID, publicUrl });
      }).toThrow(expect.objectContaining({ code: 'http.forbidden', details: { reason: 'csrf' } }) as Error);
    }
    expect(() => {
      checkSessionPost(request({ host: 'x', 'content-type': 'text/plain', 'x-csrf-token': token }), { secret: SECRET, sid: SID, publicUrl });
    }).toThrow(expect.objectContaining({ code: 'http.unsupported_media_type' }) as Error);
  });
});

describe('what a session is to the runtime', () => {
  const anonymous = { identity: 'b_AAAAAAAAAAAAAAAAAAAAAA', basis: 'web session cookie', createdAt: '2030-01-01T00:00:00.000Z' };
  const ada = { ...anonymous, personId: 'ada', basis: 'link sent to email ada@example.com' };

  it('sends as web:<identity>, verified, with the person only when signed in', () => {
    expect(senderOf(anonymous)).toEqual({ id: 'web:b_AAAAAAAAAAAAAAAAAAAAAA', verified: true });
    expect(senderOf(ada, 'Ada Lovelace')).toEqual({ id: 'web:b_AAAAAAAAAAAAAAAAAAAAAA', verified: true, personId: 'ada', displayName: 'Ada Lovelace' });
  });

  it('decides with the basis of the identity for the audit trail', () => {
    expect(deciderOf(anonymous)).toEqual({ channel: 'web', address: 'web:b_AAAAAAAAAAAAAAAAAAAAAA', verified: true, basis: 'web session cookie' });
    expect(deciderOf(ada)).toEqual({
      channel: 'web',
      address: 'web:b_AAAAAAAAAAAAAAAAAAAAAA',
      personId: 'ada',
      verified: true,
      basis: 'web session cookie; sign-in link: link sent to email ada@example.com',
    });
  });
});
