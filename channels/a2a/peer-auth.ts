/**
 * Who is calling: the peer whose token (`switchboard.yaml` `peers[].token`) the request presents as
 * `Authorization: Bearer <token>`.
 */
import type { PeerConfig } from '../../src/runtime/app/app-types.ts';
import { safeEqual } from '../../src/runtime/crypto/signing.ts';

/** Authenticates peers' requests; see {@link createPeerAuth}. */
export interface PeerAuth {
  /**
   * The peer whose token `authorizationHeader` carries (`Bearer <token>`, the scheme in any case),
   * or `undefined` when the header is absent, malformed or matches no peer.
   */
  authenticate(authorizationHeader: string | undefined): PeerConfig | undefined;
}

const BEARER = /^Bearer[ \t]+(\S+)[ \t]*$/i;

/**
 * Authenticates against `peers`. The presented token is compared with every peer's token, each
 * comparison hashing both sides with SHA-256 first ({@link safeEqual}), so neither the tokens'
 * contents, their lengths nor which peer matched leak through timing. Token values are never
 * logged or thrown.
 *
 * @example
 * const auth = createPeerAuth(app.peers);
 * const peer = auth.authenticate(req.headers.authorization);
 * if (peer === undefined) return unauthorized(res);
 */
export function createPeerAuth(peers: readonly PeerConfig[]): PeerAuth {
  const known = [...peers];
  return {
    authenticate: (authorizationHeader) => {
      const token = BEARER.exec(authorizationHeader ?? '')?.[1];
      if (token === undefined) return undefined;
      let found: PeerConfig | undefined;
      for (const peer of known) {
        if (safeEqual(token, peer.token) && found === undefined) found = peer;
      }
      return found;
    },
  };
}
