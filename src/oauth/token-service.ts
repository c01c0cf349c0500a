import { createLocalJWKSet, jwtVerify, SignJWT, type JWTPayload } from 'jose';
import { randomBytes } from 'node:crypto';
import { addressBucket, SCOPES } from '../auth/index.js';
import { createAuditWriter, recordAudit } from '../audit/index.js';
import type { Clock } from '../lib/clock.js';
import { constantTimeEqual, sha256Hex } from '../lib/crypto.js';
import type { RateLimiter } from '../limits/index.js';
import type { Db } from '../store/index.js';
import { DPOP_ALGS, ProofRefused } from './dpop.js';
import { OAuthError } from './oauth-error.js';
import * as repo from './repo.js';
import { SIGNING_ALG } from './signing.js';
import { heldScopes, type OAuthCredentialResolver } from './credential-resolver.js';

export const TOKEN_PATH = '/oauth/token';
export const REVOKE_PATH = '/oauth/revoke';
export const INTROSPECT_PATH = '/oauth/introspect';
export const JWKS_PATH = '/.well-known/jwks.json';
export const AUTH_METHODS = [
  'client_secret_basic',
  'client_secret_post',
  'private_key_jwt',
] as const;
const ASSERTION_TYPE = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';
const ASSERTION_ALGS = ['ES256', 'ES384', 'PS256', 'RS256', 'EdDSA'];
/** Tokens a client may obtain per minute: a client asking for one per request is told so. */
export const TOKENS_PER_MINUTE = 60;
const TOKEN_RULE = { name: 'oauth-token', limit: TOKENS_PER_MINUTE, windowMs: 60_000 };
/** Failed client authentications one address may make a minute before it is told to wait. */
export const AUTH_FAILURES_PER_MINUTE = 20;
const AUTH_FAILURE_RULE = {
  name: 'oauth-client-auth-failures',
  limit: AUTH_FAILURES_PER_MINUTE,
  windowMs: 60_000,
};
/** The shape of every client id we issue (`prefixedId('ocl')`); nothing else is looked up. */
const CLIENT_ID = /^ocl_[A-Za-z0-9_-]{1,40}$/;
/** An assertion may not live longer than this (RFC 7523 §3: a short-lived JWT). */
const MAX_ASSERTION_LIFETIME_S = 600;

/** What the client sent to authenticate: the Authorization header and the form. */
export interface ClientCredentials {
  authorization: string | undefined;
  form: Readonly<Record<string, string>>;
  /** The DPoP header(s) of the request (RFC 9449), as node gives them. */
  dpop?: string | string[] | undefined;
}

export type OAuthTokenService = ReturnType<typeof createOAuthTokenService>;

export function createOAuthTokenService(deps: {
  db: Db;
  clock: Clock;
  limiter: RateLimiter;
  authority: OAuthCredentialResolver;
  lifetimeS: number;
}) {
  const { db, clock, limiter, authority } = deps;
  const tokenEndpoint = `${authority.issuer}${TOKEN_PATH}`;
  // Issued tokens' audit rows: concurrent token requests share one transaction (group commit).
  const issueAudit = createAuditWriter(db);

  function invalidClient(description: string, basic: boolean): OAuthError {
    return new OAuthError('invalid_client', description, 401, {
      'www-authenticate': basic
        ? 'Basic realm="salary-api"'
        : 'Bearer realm="salary-api", error="invalid_client"',
    });
  }

  /**
   * The client the request authenticates as (RFC 6749 §2.3, RFC 7523); throws invalid_client.
   * Failures are counted per source address: past AUTH_FAILURES_PER_MINUTE the address gets
   * 429 slow_down with Retry-After before anything is looked up.
   */
  async function authenticate(c: ClientCredentials, ip?: string | null): Promise<repo.ClientRow> {
    const bucket = ip ? `oauth-auth-failures:${addressBucket(ip)}` : undefined;
    if (bucket !== undefined) {
      const state = await limiter.peek(bucket, [AUTH_FAILURE_RULE], clock.now());
      if (!state.allowed) throw tooManyFailures(state.retryAfterSeconds);
    }
    try {
      return await identify(c);
    } catch (error) {
      if (bucket !== undefined && error instanceof OAuthError && error.status === 401) {
        const decision = await limiter.spend(bucket, [AUTH_FAILURE_RULE], clock.now());
        if (!decision.allowed) throw tooManyFailures(decision.retryAfterSeconds);
      }
      throw error;
    }
  }

  function tooManyFailures(retryAfterSeconds: number): OAuthError {
    return new OAuthError(
      'slow_down',
      `Too many failed client authentications from this address (at most ${AUTH_FAILURES_PER_MINUTE} a minute); retry later.`,
      429,
      { 'retry-after': String(Math.max(1, retryAfterSeconds)) },
    );
  }

  /**
   * Client `id` from the in-memory view of live clients (kept fresh by the change bus, like
   * keys), or undefined when it cannot exist: a malformed id (a NUL byte, wrong prefix) is
   * refused at once, and one the view does not hold (a client made elsewhere a moment ago) gets
   * one re-read of what changed, at most every 100 ms however many requests come. Issuing a
   * token so reads no client row from the database.
   */
  async function findLiveClient(id: unknown): Promise<repo.ClientRow | undefined> {
    if (typeof id !== 'string' || !CLIENT_ID.test(id) || !(await authority.knowsClient(id)))
      return undefined;
    return authority.client(id);
  }

  /**
   * `accepts(row)` for client `id`'s row in memory; when it refuses, once more for the row as
   * stored now if that differs (its secret or JWKS changed on another instance a moment ago).
   */
  async function withLiveClient(
    id: unknown,
    accepts: (row: repo.ClientRow) => Promise<boolean> | boolean,
  ): Promise<repo.ClientRow | undefined> {
    const row = await findLiveClient(id);
    if (row === undefined) return undefined;
    if (await accepts(row)) return row;
    const stored = await authority.rereadClient(row.id);
    if (stored === undefined || stored.updatedAt === row.updatedAt) return undefined;
    return (await accepts(stored)) ? stored : undefined;
  }

  async function identify(c: ClientCredentials): Promise<repo.ClientRow> {
    const basic = c.authorization?.match(/^Basic ([A-Za-z0-9+/=]+)$/i);
    const { form } = c;
    const methods = [
      basic !== undefined && basic !== null,
      form.client_secret !== undefined,
      form.client_assertion !== undefined,
    ].filter(Boolean).length;
    if (methods > 1)
      throw new OAuthError('invalid_request', 'Use exactly one client authentication method.');
    if (basic) {
      const decoded = Buffer.from(basic[1]!, 'base64').toString('utf8');
      const colon = decoded.indexOf(':');
      if (colon < 0) throw invalidClient('Malformed Basic credentials.', true);
      let id: string;
      let secret: string;
      try {
        id = decodeURIComponent(decoded.slice(0, colon).replaceAll('+', ' '));
        secret = decodeURIComponent(decoded.slice(colon + 1).replaceAll('+', ' '));
      } catch {
        throw invalidClient('Malformed Basic credentials.', true);
      }
      // The form may repeat the client's id (RFC 6749 §2.3.1 allows it), never name another.
      if (form.client_id !== undefined && form.client_id !== id)
        throw invalidClient('client_id does not match the Basic credentials.', true);
      return secretClient(id, secret, 'client_secret_basic', true);
    }
    if (form.client_secret !== undefined)
      return secretClient(form.client_id ?? '', form.client_secret, 'client_secret_post', false);
    if (form.client_assertion !== undefined) return assertionClient(form);
    throw invalidClient('Client authentication is required.', true);
  }

  async function secretClient(
    id: string,
    secret: string,
    method: repo.AuthMethod,
    basic: boolean,
  ): Promise<repo.ClientRow> {
    const hash = sha256Hex(secret);
    const now = clock.now();
    const row = await withLiveClient(
      id,
      (r) =>
        (r.secretHash !== null && constantTimeEqual(hash, r.secretHash)) ||
        (r.previousSecretHash !== null &&
          r.previousSecretExpiresAt !== null &&
          Date.parse(r.previousSecretExpiresAt) > now &&
          constantTimeEqual(hash, r.previousSecretHash)),
    );
    if (row === undefined) throw invalidClient('Unknown client or wrong secret.', basic);
    if (row.authMethod !== method)
      throw invalidClient(`This client is registered for ${row.authMethod}.`, basic);
    return row;
  }

  async function assertionClient(form: Readonly<Record<string, string>>): Promise<repo.ClientRow> {
    if (form.client_assertion_type !== ASSERTION_TYPE)
      throw new OAuthError('invalid_request', `client_assertion_type must be ${ASSERTION_TYPE}.`);
    const assertion = form.client_assertion!;
    const [, body] = assertion.split('.');
    let claimed: unknown;
    try {
      claimed = (
        JSON.parse(Buffer.from(body ?? '', 'base64url').toString('utf8')) as { sub?: unknown }
      ).sub;
    } catch {
      throw invalidClient('The client assertion is not a JWT.', false);
    }
    const row = await findLiveClient(claimed);
    if (row === undefined || row.authMethod !== 'private_key_jwt' || row.jwks === null)
      throw invalidClient('Unknown client, or not registered for private_key_jwt.', false);
    if (form.client_id !== undefined && form.client_id !== row.id)
      throw invalidClient('client_id does not match the assertion.', false);
    let payload: JWTPayload | undefined;
    // The signature against the JWKS in memory, or as stored now if that one refuses it.
    const verified = await withLiveClient(row.id, async (r) => {
      if (r.jwks === null) return false;
      payload = await jwtVerify(assertion, createLocalJWKSet(r.jwks), {
        issuer: r.id,
        subject: r.id,
        audience: [tokenEndpoint, authority.issuer],
        algorithms: ASSERTION_ALGS,
        requiredClaims: ['exp', 'jti'],
        currentDate: new Date(clock.now()),
        maxTokenAge: `${MAX_ASSERTION_LIFETIME_S} seconds`,
      }).then(
        (result) => result.payload,
        () => undefined,
      );
      return payload !== undefined;
    });
    try {
      if (verified === undefined || payload === undefined) throw new Error('not verified');
      // maxTokenAge refuses the assertion MAX_ASSERTION_LIFETIME_S after iat, so its jti need
      // not be kept longer; an exp further ahead than that is refused, not stored for years.
      if (payload.exp! - payload.iat! > MAX_ASSERTION_LIFETIME_S) throw new Error('too long');
      const fresh = await repo.claimAssertionJti(
        db,
        verified.id,
        String(payload.jti),
        new Date(
          Math.min(payload.exp!, payload.iat! + MAX_ASSERTION_LIFETIME_S) * 1000,
        ).toISOString(),
        new Date(clock.now()).toISOString(),
      );
      if (!fresh) throw new Error('replayed');
    } catch {
      throw invalidClient(
        `The client assertion is not valid (signature, iss, sub, aud, exp, an exp more than ${MAX_ASSERTION_LIFETIME_S} s after iat, or a reused jti).`,
        false,
      );
    }
    return verified;
  }

  /** The thumbprint a token request's DPoP proof binds the token to; undefined without one. */
  async function proofKey(header: string | string[] | undefined): Promise<string | undefined> {
    try {
      return await authority.dpop.checkTokenRequest(header, 'POST', TOKEN_PATH);
    } catch (error) {
      if (error instanceof ProofRefused && error.reason === 'nonce')
        throw new OAuthError('use_dpop_nonce', error.message, 400, {
          'dpop-nonce': authority.dpop.nonceFor('token')!,
        });
      if (error instanceof ProofRefused) throw new OAuthError('invalid_dpop_proof', error.message);
      throw error;
    }
  }

  /**
   * `authenticate`, then the client's and its account's IP allowlists: a client's credentials
   * work only from where the client may call, at every endpoint that takes them. RFC 6749 §5.2
   * has no access_denied for client authentication: the client may not authenticate from
   * here, so it is invalid_client.
   */
  async function authenticateFrom(
    c: ClientCredentials,
    ip: string | null,
  ): Promise<repo.ClientRow> {
    const client = await authenticate(c, ip);
    const allowlists = authority.clientAllowlists(client.id) ?? [];
    if (ip !== null && allowlists.some((list) => !list.matches(ip)))
      throw invalidClient(
        `This client may only be used from its IP allowlist; ${ip} is not on it.`,
        c.authorization !== undefined,
      );
    return client;
  }

  return {
    authenticate,

    /** RFC 6749 §4.4: an access token for an authenticated client. */
    async token(c: ClientCredentials, ip: string | null) {
      const { form } = c;
      if (form.grant_type === undefined)
        throw new OAuthError('invalid_request', 'grant_type is required.');
      const client = await authenticateFrom(c, ip);
      if (form.grant_type !== 'client_credentials')
        throw new OAuthError('unsupported_grant_type', 'Only client_credentials is supported.');
      const requested = form.scope?.split(' ').filter((s) => s.length > 0);
      const scopes = requested === undefined || requested.length === 0 ? client.scopes : requested;
      const beyond = scopes.filter((s) => !client.scopes.includes(s));
      if (beyond.length > 0)
        throw new OAuthError('invalid_scope', `The client does not hold: ${beyond.join(', ')}.`);
      const resource = form.resource ?? authority.defaultResource;
      if (!authority.isResource(resource))
        throw new OAuthError(
          'invalid_target',
          `resource is the absolute URI of one of this server's resources: ${authority.resources.map((r) => r.uri).join(' or ')}.`,
        );
      const jkt = await proofKey(c.dpop);
      if (client.dpopBound && jkt === undefined)
        throw new OAuthError(
          'invalid_request',
          'This client is registered with dpop_bound: send a DPoP proof (the DPoP header, RFC 9449).',
        );
      const now = clock.now();
      const decision = await limiter.spend(`oauth-client:${client.id}`, [TOKEN_RULE], now);
      if (!decision.allowed)
        throw new OAuthError(
          'slow_down',
          `At most ${TOKENS_PER_MINUTE} tokens a minute per client: reuse a token until it expires.`,
          429,
          { 'retry-after': String(decision.retryAfterSeconds) },
        );
      const { kid, key } = await authority.signer();
      const iat = Math.floor(now / 1000);
      const jti = randomBytes(16).toString('base64url');
      const scope = [...new Set(scopes)].join(' ');
      const claims =
        jkt === undefined
          ? { client_id: client.id, scope }
          : { client_id: client.id, scope, cnf: { jkt } };
      const accessToken = await new SignJWT(claims)
        .setProtectedHeader({ alg: SIGNING_ALG, kid, typ: 'at+jwt' })
        .setIssuer(authority.issuer)
        .setSubject(client.id)
        .setAudience(resource)
        .setIssuedAt(iat)
        .setExpirationTime(iat + deps.lifetimeS)
        .setJti(jti)
        .sign(key);
      // The token is handed out only once its audit row is committed.
      await issueAudit.record({
        accountId: client.accountId,
        actor: `oauth_client:${client.id}`,
        action: 'oauth.token_issue',
        data: {
          client_id: client.id,
          jti,
          scope,
          kid,
          aud: resource,
          ...(jkt === undefined ? {} : { jkt }),
        },
        ip,
        at: new Date(now),
      });
      return {
        access_token: accessToken,
        token_type: jkt === undefined ? 'Bearer' : 'DPoP',
        expires_in: deps.lifetimeS,
        scope,
      };
    },

    /** RFC 7009: the token is refused from now on; unknown or foreign tokens are ignored. */
    async revoke(c: ClientCredentials, ip: string | null): Promise<void> {
      const client = await authenticateFrom(c, ip);
      const token = c.form.token;
      if (token === undefined) throw new OAuthError('invalid_request', 'token is required.');
      const hint = c.form.token_type_hint;
      if (hint !== undefined && hint !== 'access_token' && hint !== 'refresh_token')
        throw new OAuthError('unsupported_token_type', 'Only access tokens are issued here.');
      const verified = await authority.verify(token, { ignoreExpiry: true });
      if (verified === undefined || verified.clientId !== client.id) return;
      if (verified.exp <= clock.now() || authority.isRevoked(verified.jti)) return;
      const at = new Date(clock.now());
      await db.transaction(async (tx) => {
        await repo.insertRevocation(tx, {
          jti: verified.jti,
          clientId: client.id,
          expiresAt: new Date(verified.exp).toISOString(),
          revokedAt: at.toISOString(),
        });
        await recordAudit(tx, {
          accountId: client.accountId,
          actor: `oauth_client:${client.id}`,
          action: 'oauth.token_revoke',
          data: { client_id: client.id, jti: verified.jti },
          ip,
          at,
        });
      });
      authority.applyRevocation(verified.jti, verified.exp);
    },

    /** RFC 7662: what a token of the same account is; `active: false` for anything else. */
    async introspect(c: ClientCredentials, ip?: string | null): Promise<Record<string, unknown>> {
      const client = await authenticateFrom(c, ip ?? null);
      const token = c.form.token;
      if (token === undefined) throw new OAuthError('invalid_request', 'token is required.');
      const verified = await authority.verify(token);
      const owner = verified === undefined ? undefined : authority.client(verified.clientId);
      if (
        verified === undefined ||
        owner === undefined ||
        owner.accountId !== client.accountId ||
        authority.isRevoked(verified.jti) ||
        verified.exp <= clock.now()
      )
        return { active: false };
      return {
        active: true,
        scope: [...heldScopes(verified.scopes, owner)].join(' '),
        client_id: verified.clientId,
        sub: verified.clientId,
        token_type: verified.jkt === undefined ? 'Bearer' : 'DPoP',
        ...(verified.jkt === undefined ? {} : { cnf: { jkt: verified.jkt } }),
        exp: Math.floor(verified.exp / 1000),
        iat: Math.floor(verified.iat / 1000),
        iss: authority.issuer,
        aud: verified.aud,
        jti: verified.jti,
      };
    },

    metadata() {
      const issuer = authority.issuer;
      return {
        issuer,
        token_endpoint: `${issuer}${TOKEN_PATH}`,
        jwks_uri: `${issuer}${JWKS_PATH}`,
        revocation_endpoint: `${issuer}${REVOKE_PATH}`,
        introspection_endpoint: `${issuer}${INTROSPECT_PATH}`,
        grant_types_supported: ['client_credentials'],
        response_types_supported: [],
        token_endpoint_auth_methods_supported: AUTH_METHODS,
        token_endpoint_auth_signing_alg_values_supported: ASSERTION_ALGS,
        revocation_endpoint_auth_methods_supported: AUTH_METHODS,
        introspection_endpoint_auth_methods_supported: AUTH_METHODS,
        scopes_supported: SCOPES,
        dpop_signing_alg_values_supported: DPOP_ALGS,
        revocation_endpoint_auth_signing_alg_values_supported: ASSERTION_ALGS,
        introspection_endpoint_auth_signing_alg_values_supported: ASSERTION_ALGS,
        service_documentation: `${issuer}/docs`,
      };
    },
  };
}
