import { describe, expect, it } from 'vitest';
import type { PeerConfig } from '../../src/runtime/app/app-types.ts';
import { createPeerAuth } from './peer-auth.ts';

function peer(id: string, token: string): PeerConfig {
  return { id, name: id, toolName: `ask_${id}`, token, tokenVariable: `${id.toUpperCase()}_TOKEN`, actor: 'main', timeoutSeconds: 300 };
}

const alpha = peer('alpha', 'a'.repeat(32));
const beta = peer('beta', 'b-token-0123456789');
const auth = createPeerAuth([alpha, beta]);

describe('createPeerAuth', () => {
  it('names the peer whose token the bearer header carries', () => {
    expect(auth.authenticate(`Bearer ${'a'.repeat(32)}`)).toBe(alpha);
    expect(auth.authenticate('bearer b-token-0123456789')).toBe(beta);
    expect(auth.authenticate('BEARER   b-token-0123456789  ')).toBe(beta);
  });

  it('refuses a missing, malformed or unknown token', () => {
    for (const header of [
      undefined,
      '',
      'Bearer',
      'Bearer ',
      `Basic ${'a'.repeat(32)}`,
      'a'.repeat(32),
      `Bearer ${'a'.repeat(31)}`,
      `Bearer ${'a'.repeat(33)}`,
      `Bearer ${'a'.repeat(32)} extra`,
      'Bearer B-TOKEN-0123456789',
    ]) {
      expect(auth.authenticate(header), String(header)).toBeUndefined();
    }
  });

  it('knows nobody when there are no peers', () => {
    expect(createPeerAuth([]).authenticate(`Bearer ${'a'.repeat(32)}`)).toBeUndefined();
  });
});
