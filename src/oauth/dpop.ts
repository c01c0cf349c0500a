import {
  calculateJwkThumbprint,
  decodeProtectedHeader,
  EmbeddedJWK,
  jwtVerify,
  type JWK,
} from 'jose';
import { hash } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { AppError } from '../errors/index.js';
import type { Clock } from '../lib/clock.js';
import { ExpiringSet } from '../lib/expiring-set.js';
import type { Redis } from '../store/index.js';
import type { DpopNonces } from './dpop-nonce.js';

/** The proof algorithms accepted (asymmetric only), as the metadata and challenges say. */
export const DPOP_ALGS = ['ES256', 'ES384', 'EdDSA', 'Ed25519', 'PS256', 'RS256'] as const;
/** A proof's `iat` may be this far from the server's clock, either way. */
export const PROOF_WINDOW_S = 60;
/** A proof's `jti` is remembered for the whole window its `iat` could be accepted in. */
const REPLAY_TTL_MS = 2 * PROOF_WINDOW_S * 1000 + 1000;
const REMEMBERED_PROOFS = 100_000;
const MAX_PROOF_LENGTH = 8192;
const MAX_JTI_LENGTH = 256;
const REDIS_RETRY_AFTER = 1;

/** What of a request a proof is checked against (node's IncomingMessage has it). */
export interface ProofRequest {
  readonly method?: string | undefined;
  readonly url?: string | undefined;
  readonly headers: IncomingHttpHeaders;
}

/** Remembers proof ids; `claim` is true the first time a key is seen within REPLAY_TTL_MS. */
export interface ProofReplayGuard {
  claim(key: string, now: number): boolean | Promise<boolean>;
}

/** One process's memory: replay refused on this instance. */
export function memoryReplayGuard(max = REMEMBERED_PROOFS): ProofReplayGuard {
  const seen = new ExpiringSet(REPLAY_TTL_MS, max);
  return { claim: (key, now) => seen.add(key, now) };
}

/**
 * Redis `SET NX PX`: a proof used on one instance is refused on every other. The local memory
 * answers a replay on this instance without a round trip. Redis unreachable: 503 (a proof
 * cannot be known fresh, and accepting it would reopen replay across instances).
 */
export function redisReplayGuard(redis: Redis, prefix: string): ProofReplayGuard {
  const local = memoryReplayGuard();
  const unavailable = new AppError(
    'DEPENDENCY_UNAVAILABLE',
    'The DPoP replay check is unavailable (Redis unreachable); try again shortly.',
    {
      headers: { 'retry-after': REDIS_RETRY_AFTER },
      extensions: { retry_after: REDIS_RETRY_AFTER },
    },
  );
  return {
    claim(key, now) {
      if (!local.claim(key, now)) return false;
      return redis.set(`${prefix}dpop:${key}`, '1', 'PX', REPLAY_TTL_MS, 'NX').then(
        (answer) => answer === 'OK',
        () => {
          throw unavailable;
        },
      );
    },
  };
}

type Reason =
  | 'missing'
  | 'multiple'
  | 'malformed'
  | 'signature'
  | 'typ'
  | 'alg'
  | 'private key'
  | 'htm'
  | 'htu'
  | 'iat'
  | 'jti'
  | 'replayed'
  | 'ath'
  | 'key'
  | 'nonce';

const DETAILS: Record<Reason, string> = {
  missing: 'A DPoP proof (the DPoP header) is required with this token.',
  multiple: 'Send exactly one DPoP header.',
  malformed: 'The DPoP proof is not a compact JWS with a JSON header and claims.',
  signature: 'The DPoP proof is not signed by the key in its jwk header.',
  typ: 'The DPoP proof must have typ "dpop+jwt".',
  alg: `The DPoP proof must be signed with one of: ${DPOP_ALGS.join(', ')}.`,
  'private key': 'The jwk header of the DPoP proof must hold a public key only.',
  htm: 'The DPoP proof\'s "htm" is not the method of this request.',
  htu: 'The DPoP proof\'s "htu" is not the URL of this request (without query and fragment).',
  iat: `The DPoP proof's "iat" must be within ${PROOF_WINDOW_S} s of the server's clock.`,
  jti: `The DPoP proof needs a "jti" string of 1 to ${MAX_JTI_LENGTH} characters.`,
  replayed: 'This DPoP proof was used before: make a new proof (new jti) for every request.',
  ath: 'The DPoP proof\'s "ath" is not the SHA-256 hash of this access token.',
  key: 'The DPoP proof is signed with another key than the one this token is bound to.',
  nonce:
    'The DPoP proof needs a "nonce": the one in the DPoP-Nonce header of this response (it changes every minute).',
};

const CHALLENGE_ALGS = `algs="${DPOP_ALGS.join(' ')}"`;

/** The resource server's refusals (RFC 9449 §7.1), built once each. */
const RESOURCE_ERRORS = new Map<Reason, AppError>(
  (Object.keys(DETAILS) as Reason[]).map((reason) => [
    reason,
    new AppError('UNAUTHENTICATED', DETAILS[reason], {
      headers: {
        'www-authenticate': `DPoP realm="salary-api", error="invalid_dpop_proof", error_description="${DETAILS[reason].replaceAll('"', "'")}", ${CHALLENGE_ALGS}`,
      },
      extensions: { dpop_error: 'invalid_dpop_proof' },
    }),
  ]),
);

/** A DPoP-bound token sent as a bearer token, or a bearer token sent with the DPoP scheme. */
export const DPOP_SCHEME_REQUIRED = new AppError(
  'UNAUTHENTICATED',
  'This access token is bound to a key (DPoP): send it as "Authorization: DPoP <token>" with a DPoP proof.',
  {
    headers: {
      'www-authenticate': `DPoP realm="salary-api", error="invalid_token", ${CHALLENGE_ALGS}`,
    },
  },
);
export const DPOP_TOKEN_REQUIRED = new AppError(
  'UNAUTHENTICATED',
  'Only DPoP-bound access tokens are sent with the DPoP scheme: send this credential as "Authorization: Bearer <token>".',
  {
    headers: {
      'www-authenticate': `DPoP realm="salary-api", error="invalid_token", ${CHALLENGE_ALGS}`,
    },
  },
);
/** Any other invalid token presented with the DPoP scheme. */
export const DPOP_INVALID_TOKEN = new AppError(
  'UNAUTHENTICATED',
  'The credential is not valid: it is unknown, revoked or expired.',
  {
    headers: {
      'www-authenticate': `DPoP realm="salary-api", error="invalid_token", ${CHALLENGE_ALGS}`,
    },
  },
);

/** RFC 9449 §9: the resource server's "use this nonce" (401), for the nonce `nonce`. */
function useNonceError(nonce: string): AppError {
  return new AppError('UNAUTHENTICATED', DETAILS.nonce, {
    headers: {
      'www-authenticate': `DPoP realm="salary-api", error="use_dpop_nonce", error_description="${DETAILS.nonce.replaceAll('"', "'")}", ${CHALLENGE_ALGS}`,
      'dpop-nonce': nonce,
    },
    extensions: { dpop_error: 'use_dpop_nonce' },
  });
}

/** A refused proof: why, in words a client developer can act on. */
export class ProofRefused extends Error {
  constructor(readonly reason: Reason) {
    super(DETAILS[reason]);
    this.name = 'ProofRefused';
  }

  /** As the resource server answers it (401 with the DPoP challenge). */
  get resourceError(): AppError {
    return RESOURCE_ERRORS.get(this.reason)!;
  }
}

function refused(reason: Reason): never {
  throw new ProofRefused(reason);
}

/** The target URI as a proof states it: scheme, host and path (RFC 9449 §4.3, item 9). */
function targetOf(uri: string): string | undefined {
  try {
    const url = new URL(uri);
    return `${url.origin}${url.pathname}`;
  } catch {
    return undefined;
  }
}

/**
 * DPoP proofs (RFC 9449): checks one against the request it came with, and remembers its `jti`
 * so that it is refused if it comes again. The request URL is the public one: `issuer` (the
 * PUBLIC_BASE_URL) and the request's path.
 */
export class DpopProofs {
  /** Requests whose proof was accepted: the same request checked again is not a replay. */
  readonly #accepted = new WeakMap<object, string>();
  readonly #base: string;
  /** The resource server's use_dpop_nonce answer, built once per nonce window. */
  #useNonce: { nonce: string; error: AppError } | undefined;

  constructor(
    private readonly deps: {
      clock: Clock;
      issuer: string;
      replay: ProofReplayGuard;
      /** Server-provided nonces (RFC 9449 §8, §9); none required without. */
      nonces?: DpopNonces;
    },
  ) {
    this.#base = deps.issuer.replace(/\/$/, '');
  }

  /** The nonce to hand out in `DPoP-Nonce` where proofs at `where` need one; else undefined. */
  nonceFor(where: 'token' | 'resource'): string | undefined {
    const { nonces } = this.deps;
    return nonces?.required(where) === true ? nonces.current(this.deps.clock.now()) : undefined;
  }

  #resourceNonceError(): AppError {
    const nonce = this.nonceFor('resource')!;
    if (this.#useNonce?.nonce !== nonce) this.#useNonce = { nonce, error: useNonceError(nonce) };
    return this.#useNonce.error;
  }

  /**
   * Checks the request's proof for an access token bound to `jkt`; resolves when it is valid,
   * rejects with the 401 problem (or a 503 when the replay check is unavailable).
   */
  async checkResource(
    request: ProofRequest | undefined,
    token: string,
    jkt: string,
  ): Promise<void> {
    const header = request?.headers.dpop;
    if (
      request !== undefined &&
      typeof header === 'string' &&
      this.#accepted.get(request) === header
    )
      return;
    try {
      const proof = await this.#verify(header, request?.method, request?.url, token, 'resource');
      if (proof.jkt !== jkt) refused('key');
      if (!(await this.deps.replay.claim(proof.replayKey, this.deps.clock.now())))
        refused('replayed');
    } catch (error) {
      if (!(error instanceof ProofRefused)) throw error;
      throw error.reason === 'nonce' ? this.#resourceNonceError() : error.resourceError;
    }
    if (request !== undefined && typeof header === 'string') this.#accepted.set(request, header);
  }

  /**
   * The key thumbprint a token request's proof binds the token to; undefined when the request
   * has no proof. Throws ProofRefused (invalid_dpop_proof) or the 503 of the replay check.
   */
  async checkTokenRequest(
    header: string | string[] | undefined,
    method: string,
    url: string,
  ): Promise<string | undefined> {
    if (header === undefined) return undefined;
    const proof = await this.#verify(header, method, url, undefined, 'token');
    if (!(await this.deps.replay.claim(proof.replayKey, this.deps.clock.now())))
      refused('replayed');
    return proof.jkt;
  }

  async #verify(
    header: string | string[] | undefined,
    method: string | undefined,
    url: string | undefined,
    token: string | undefined,
    where: 'token' | 'resource',
  ): Promise<{ jkt: string; replayKey: string }> {
    if (header === undefined) refused('missing');
    if (typeof header !== 'string') refused('multiple');
    if (header.length > MAX_PROOF_LENGTH || header.split('.').length !== 3) refused('malformed');
    let jwk: JWK | undefined;
    try {
      const protectedHeader = decodeProtectedHeader(header);
      if (protectedHeader.typ !== 'dpop+jwt') refused('typ');
      if (!(DPOP_ALGS as readonly unknown[]).includes(protectedHeader.alg)) refused('alg');
      jwk = protectedHeader.jwk;
    } catch (error) {
      if (error instanceof ProofRefused) throw error;
      refused('malformed');
    }
    if (typeof jwk !== 'object' || jwk === null) refused('malformed');
    if ('d' in jwk || 'p' in jwk || 'q' in jwk || 'k' in jwk) refused('private key');
    let claims: Record<string, unknown>;
    try {
      ({ payload: claims } = await jwtVerify(header, EmbeddedJWK, {
        typ: 'dpop+jwt',
        algorithms: [...DPOP_ALGS],
        currentDate: new Date(this.deps.clock.now()),
      }));
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (code === 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED') refused('signature');
      refused('malformed');
    }
    if (typeof claims.htm !== 'string' || claims.htm !== method) refused('htm');
    const path = url === undefined ? undefined : url.split(/[?#]/, 1)[0];
    if (
      typeof claims.htu !== 'string' ||
      path === undefined ||
      targetOf(claims.htu) === undefined ||
      targetOf(claims.htu) !== targetOf(`${this.#base}${path}`)
    )
      refused('htu');
    const now = this.deps.clock.now() / 1000;
    if (typeof claims.iat !== 'number' || Math.abs(claims.iat - now) > PROOF_WINDOW_S)
      refused('iat');
    const { jti } = claims;
    if (typeof jti !== 'string' || jti.length === 0 || jti.length > MAX_JTI_LENGTH) refused('jti');
    if (token !== undefined && claims.ath !== hash('sha256', token, 'base64url')) refused('ath');
    const { nonces } = this.deps;
    if (nonces?.required(where) === true && !nonces.accepts(claims.nonce, this.deps.clock.now()))
      refused('nonce');
    const jkt = await calculateJwkThumbprint(jwk, 'sha256');
    return { jkt, replayKey: hash('sha256', `${jkt}.${jti}`, 'base64url') };
  }
}
