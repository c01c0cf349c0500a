import { Refresher } from '../lib/refresher.js';
import { errors, jwtVerify, type CryptoKey, type JWTPayload } from 'jose';
import { hash } from 'node:crypto';
import {
  AddressMatcher,
  type CredentialRequest,
  type CredentialResolver,
  type CredentialScheme,
  type Principal,
} from '../auth/index.js';
import { AppError } from '../errors/index.js';
import type { Clock } from '../lib/clock.js';
import { ExpiringSet } from '../lib/expiring-set.js';
import type { Logger } from '../lib/logger.js';
import type { SecretBox } from '../lib/secret-box.js';
import type { Plan } from '../plans/index.js';
import type { Db } from '../store/index.js';
import { DPOP_SCHEME_REQUIRED, DPOP_TOKEN_REQUIRED, type DpopProofs } from './dpop.js';
import { clientsChangedSince, revocationsSince, signingKeys, type ClientRow } from './repo.js';
import {
  rotateSigningKey,
  privateKeyOf,
  publishedKey,
  SIGNING_ALG,
  type PublishedKey,
} from './signing.js';

/** The refusal of a token issued for another resource than the request's. */
function wrongAudience(resource: OAuthResource): AppError {
  return new AppError(
    'UNAUTHENTICATED',
    `This access token was issued for another resource: requests to ${resource.path} need a token requested with resource=${resource.uri} (RFC 8707).`,
    {
      headers: {
        'www-authenticate': `Bearer realm="salary-api", error="invalid_token", error_description="The access token's audience is not this resource."`,
      },
    },
  );
}

/** What the verifier needs of an account: as the credential cache holds it. */
export interface AccountView {
  readonly row: { readonly id: string; readonly responseSchema: Principal['responseSchema'] };
  readonly plan: Plan;
  readonly allowlist: AddressMatcher | null;
}

/**
 * A protected resource (RFC 8707): the absolute URI a token is issued for (its `aud`), and the
 * path prefix of the requests it serves.
 */
export interface OAuthResource {
  readonly uri: string;
  readonly path: string;
}

interface ClientEntry {
  readonly row: ClientRow;
  readonly allowlist: AddressMatcher | null;
}

/** A token whose signature and claims were verified once, remembered until it expires. */
interface VerifiedToken {
  readonly exp: number;
  readonly jti: string;
  readonly kid: string;
  readonly clientId: string;
  readonly scopes: ReadonlySet<string>;
  readonly iat: number;
  /** The thumbprint of the key a DPoP-bound token is bound to (`cnf.jkt`). */
  readonly jkt: string | undefined;
  /** The resource the token was issued for (its `aud`). */
  readonly aud: string;
  /** The principal as last built, and the client and account entries it was built from. */
  principal: Principal | undefined;
  client: ClientEntry | undefined;
  account: AccountView | undefined;
}

/** The claims of an access token issued here, once verified. */
export interface AccessClaims extends JWTPayload {
  readonly jti: string;
  readonly exp: number;
  readonly client_id: string;
  readonly scope: string;
  readonly cnf?: { readonly jkt?: unknown };
}

const OVERLAP_MS = 5_000;
const REREAD_MS = 100;
const REMEMBERED_TOKENS = 100_000;
/** Tokens refused (by SHA-256): a bad token sent again is refused with no signature check. */
const REFUSED_TTL_MS = 60_000;
const REFUSED_TOKENS = 10_000;
/** An ES256 signature: 64 bytes, 86 base64url characters. */
const ES256_SIGNATURE_CHARS = 86;
/** Looks like a JWS in compact form: three base64url parts, a JSON header first. */
const JWT_SHAPE = /^eyJ[A-Za-z0-9_-]*\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;

/** "e": every JWT starts with eyJ (a JSON header, base64url). */
const E = 0x65;

export function looksLikeJwt(token: string): boolean {
  return JWT_SHAPE.test(token);
}

/**
 * The `kid` of a token whose header could be one of ours (ES256, at+jwt, a 64-byte signature);
 * undefined for anything else. Costs a base64url decode and a JSON parse of the header, no crypto.
 */
function ownKidOf(token: string): string | undefined {
  if (token.length - token.lastIndexOf('.') - 1 !== ES256_SIGNATURE_CHARS) return undefined;
  try {
    const header = JSON.parse(
      Buffer.from(token.slice(0, token.indexOf('.')), 'base64url').toString('utf8'),
    ) as unknown;
    if (typeof header !== 'object' || header === null) return undefined;
    const { alg, typ, kid } = header as Record<string, unknown>;
    if (alg !== SIGNING_ALG || typ !== 'at+jwt' || typeof kid !== 'string') return undefined;
    return kid;
  } catch {
    return undefined;
  }
}

/**
 * Resolves every credential a request presents: OAuth access tokens itself, API keys and
 * sessions through its `fallback`. It is the resource server's view of OAuth: live clients, the
 * published signing keys and the revoked token ids in memory, and every verified access token
 * until it expires. A request
 * with a token seen before is decided from memory with no signature check and no database
 * round trip; the first sight costs one ES256 verification. Changes made here apply at once and
 * are announced (`onChange`); other instances' changes arrive through the change bus (refresh)
 * or the poll.
 */
export class OAuthCredentialResolver implements CredentialResolver {
  readonly #clients = new Map<string, ClientEntry>();
  /** Deleted clients and the time of their deletion, so that no older row brings one back. */
  readonly #deleted = new Map<string, string>();
  readonly #keys = new Map<string, PublishedKey>();
  readonly #revoked = new Map<string, number>();
  readonly #tokens = new Map<string, VerifiedToken>();
  /** SHA-256 (base64) of tokens refused for good lately (bad signature or claims, expired). */
  readonly #refused = new ExpiringSet(REFUSED_TTL_MS, REFUSED_TOKENS);
  /** Refusals decided from memory (the refused-token cache or the header alone), for tests. */
  cheapRefusals = 0;
  #since = new Date(0).toISOString();
  #signer: { kid: string; key: CryptoKey } | undefined;
  #findingSigner: Promise<{ kid: string; key: CryptoKey }> | undefined;
  #nextRereadAt = 0;
  /** Each resource's refusal of a token issued for another, built once. */
  readonly #wrongAudience: ReadonlyMap<string, AppError>;

  constructor(
    private readonly deps: {
      db: Db;
      clock: Clock;
      box: SecretBox;
      logger: Logger;
      issuer: string;
      /** The resources tokens are issued for; the first is the one of a request naming none. */
      resources: readonly [OAuthResource, ...OAuthResource[]];
      /** Access token lifetime, seconds. */
      lifetimeS: number;
      account: (id: string) => AccountView | undefined;
      /** Every other credential (API keys, sessions). */
      fallback: CredentialResolver;
      /** DPoP proofs (RFC 9449) of requests with sender-constrained tokens. */
      dpop: DpopProofs;
      onChange?: () => void;
    },
  ) {
    this.#wrongAudience = new Map(deps.resources.map((r) => [r.uri, wrongAudience(r)]));
  }

  get issuer(): string {
    return this.deps.issuer;
  }

  /** The resource a token is issued for when the request names none. */
  get defaultResource(): string {
    return this.deps.resources[0].uri;
  }

  /** Whether `uri` is a resource tokens are issued for. */
  isResource(uri: string): boolean {
    return this.deps.resources.some((r) => r.uri === uri);
  }

  /** The resources tokens are issued for. */
  get resources(): readonly OAuthResource[] {
    return this.deps.resources;
  }

  /**
   * The resource a request is for: the one whose path prefixes the request's, else the first.
   * A token issued for another is refused (RFC 8707 §2: an audience per resource).
   */
  #resourceOf(request: CredentialRequest | undefined): OAuthResource {
    const url = request?.url ?? '';
    for (const resource of this.deps.resources) {
      if (!url.startsWith(resource.path)) continue;
      const next = url.charCodeAt(resource.path.length);
      // End, '/' or '?': /mcp and /mcp?x, not /mcpx.
      if (Number.isNaN(next) || next === 47 || next === 63) return resource;
    }
    return this.deps.resources[0];
  }

  load(): Promise<void> {
    return this.refresh();
  }

  get dpop(): DpopProofs {
    return this.deps.dpop;
  }

  /**
   * A token seen before is decided from memory (plus its DPoP proof when it is bound to a key).
   * One never seen is refused without crypto when its header cannot be ours (alg, typ, an
   * unknown kid once the keys were re-read) or it was refused within the last minute;
   * otherwise its signature is checked once.
   */
  resolve(
    token: string,
    scheme: CredentialScheme = 'Bearer',
    request?: CredentialRequest,
  ): Principal | undefined | Promise<Principal | undefined> {
    // A token verified before is one of ours: no shape check (a scan of the whole token) first.
    // Keys and sessions never start with "e" (sk_, sess_), so they skip this look-up.
    if (token.charCodeAt(0) === E) {
      const known = this.#tokens.get(token);
      if (known !== undefined) return this.#admit(known, token, scheme, request);
    }
    if (!looksLikeJwt(token)) {
      if (scheme === 'DPoP') throw DPOP_TOKEN_REQUIRED;
      return this.deps.fallback.resolve(token);
    }
    const kid = ownKidOf(token);
    if (kid === undefined) {
      this.cheapRefusals++;
      return undefined;
    }
    const digest = hash('sha256', token, 'base64');
    const now = this.deps.clock.now();
    if (this.#refused.has(digest, now)) {
      this.cheapRefusals++;
      return undefined;
    }
    if (!this.#keys.has(kid) && now < this.#nextRereadAt) {
      this.cheapRefusals++;
      return undefined;
    }
    return this.#verify(token).then((outcome) => {
      if (outcome === 'refused') this.#refused.add(digest, this.deps.clock.now());
      return typeof outcome === 'string' ? undefined : this.#admit(outcome, token, scheme, request);
    });
  }

  /** A verified token as presented: a DPoP-bound one only with the DPoP scheme and a valid proof. */
  #admit(
    verified: VerifiedToken,
    token: string,
    scheme: CredentialScheme,
    request: CredentialRequest | undefined,
  ): Principal | undefined | Promise<Principal | undefined> {
    const resource = this.#resourceOf(request);
    if (verified.aud !== resource.uri) throw this.#wrongAudience.get(resource.uri)!;
    if (verified.jkt === undefined) {
      if (scheme === 'DPoP') throw DPOP_TOKEN_REQUIRED;
      return this.#principalOf(verified);
    }
    if (scheme !== 'DPoP') throw DPOP_SCHEME_REQUIRED;
    const principal = this.#principalOf(verified);
    if (principal === undefined) return undefined;
    return this.deps.dpop.checkResource(request, token, verified.jkt).then(() => principal);
  }

  /**
   * Verifies a token's signature and claims and remembers it; undefined when it is not a valid
   * access token of this server. A key or client this instance has not seen yet (made a
   * moment ago elsewhere) starts one re-read, at most every REREAD_MS.
   */
  async verify(
    token: string,
    options: { ignoreExpiry?: boolean } = {},
  ): Promise<VerifiedToken | undefined> {
    const outcome = await this.#verify(token, options);
    return typeof outcome === 'string' ? undefined : outcome;
  }

  /**
   * 'refused' when the token is not ours for good (the refused-token cache may keep that);
   * 'unknown' when its key or client may yet become known (made elsewhere a moment ago).
   */
  async #verify(
    token: string,
    options: { ignoreExpiry?: boolean } = {},
  ): Promise<VerifiedToken | 'refused' | 'unknown'> {
    let claims = await this.#check(token, options.ignoreExpiry === true);
    if (claims === 'unknown') {
      if (!(await this.#rereadSoon())) return 'unknown';
      claims = await this.#check(token, options.ignoreExpiry === true);
    }
    if (claims === undefined) return 'refused';
    if (claims === 'unknown') return 'unknown';
    const jkt = claims.cnf?.jkt;
    const verified: VerifiedToken = {
      exp: claims.exp * 1000,
      jti: claims.jti,
      kid: claims.kid,
      clientId: claims.client_id,
      scopes: new Set(claims.scope.split(' ').filter((s) => s.length > 0)),
      iat: typeof claims.iat === 'number' ? claims.iat * 1000 : 0,
      jkt: typeof jkt === 'string' ? jkt : undefined,
      aud: claims.aud as string,
      principal: undefined,
      client: undefined,
      account: undefined,
    };
    if (!options.ignoreExpiry) this.#remember(token, verified);
    return verified;
  }

  async #check(
    token: string,
    ignoreExpiry: boolean,
  ): Promise<(AccessClaims & { kid: string }) | 'unknown' | undefined> {
    let unknownKid = false;
    try {
      const { payload, protectedHeader } = await jwtVerify<AccessClaims>(
        token,
        (header) => {
          const key = header.kid === undefined ? undefined : this.#keys.get(header.kid);
          if (key === undefined || key.row.withdrawnAt !== null) {
            unknownKid = true;
            throw new errors.JWKSNoMatchingKey();
          }
          return key.key;
        },
        {
          issuer: this.deps.issuer,
          audience: this.deps.resources.map((r) => r.uri),
          typ: 'at+jwt',
          algorithms: [SIGNING_ALG],
          requiredClaims: ['exp', 'iat', 'jti', 'sub', 'client_id', 'scope'],
          currentDate: new Date(ignoreExpiry ? 0 : this.deps.clock.now()),
          ...(ignoreExpiry ? { clockTolerance: Number.MAX_SAFE_INTEGER } : {}),
        },
      );
      if (
        typeof payload.jti !== 'string' ||
        typeof payload.client_id !== 'string' ||
        typeof payload.scope !== 'string' ||
        typeof payload.aud !== 'string' ||
        payload.sub !== payload.client_id ||
        (payload.cnf !== undefined &&
          (typeof payload.cnf !== 'object' || typeof payload.cnf.jkt !== 'string'))
      )
        return undefined;
      if (!this.#clients.has(payload.client_id)) return 'unknown';
      return { ...payload, kid: protectedHeader.kid! };
    } catch {
      return unknownKid ? 'unknown' : undefined;
    }
  }

  #remember(token: string, verified: VerifiedToken): void {
    if (this.#tokens.size >= REMEMBERED_TOKENS) {
      const now = this.deps.clock.now();
      for (const [t, v] of this.#tokens) if (v.exp <= now) this.#tokens.delete(t);
      if (this.#tokens.size >= REMEMBERED_TOKENS) this.#tokens.clear();
    }
    this.#tokens.set(token, verified);
  }

  /**
   * The principal of a verified token, or undefined when it no longer stands. Its scopes are
   * those it was issued with that its client still holds: a client's scopes cut down (PATCH)
   * apply to the tokens it already has at once, as its deletion and allowlist do.
   */
  #principalOf(token: VerifiedToken): Principal | undefined {
    if (token.exp <= this.deps.clock.now()) return undefined;
    if (this.#revoked.has(token.jti)) return undefined;
    const key = this.#keys.get(token.kid);
    if (key === undefined || key.row.withdrawnAt !== null) return undefined;
    const client = this.#clients.get(token.clientId);
    if (client === undefined) return undefined;
    const account = this.deps.account(client.row.accountId);
    if (account === undefined || !account.plan.oauth) return undefined;
    if (token.principal === undefined || token.client !== client || token.account !== account) {
      const { plan } = account;
      token.client = client;
      token.account = account;
      token.principal = {
        kind: 'oauth',
        plan,
        accountId: account.row.id,
        keyId: null,
        sessionId: null,
        clientId: client.row.id,
        scopes: heldScopes(token.scopes, client.row),
        allowlists: plan.ipAllowlist
          ? [account.allowlist, client.allowlist].filter((m): m is AddressMatcher => m !== null)
          : [],
        responseSchema: plan.customSchemas ? account.row.responseSchema : null,
        limitBucket: `acct:${account.row.id}`,
      };
    }
    return token.principal;
  }

  /**
   * The key tokens are signed with now; the first one is made on first use. Concurrent first
   * token requests share one look-up (each making its own would rotate the key once per request).
   */
  async signer(): Promise<{ kid: string; key: CryptoKey }> {
    if (this.#signer !== undefined) return this.#signer;
    this.#findingSigner ??= this.#findSigner().finally(() => (this.#findingSigner = undefined));
    return this.#findingSigner;
  }

  async #findSigner(): Promise<{ kid: string; key: CryptoKey }> {
    let current = this.#current();
    if (current === undefined) {
      await this.refresh();
      current = this.#current();
    }
    if (current === undefined) {
      await this.rotate();
      current = this.#current()!;
    }
    this.#signer = { kid: current.row.kid, key: await privateKeyOf(current.row, this.deps.box) };
    return this.#signer;
  }

  #current(): PublishedKey | undefined {
    let newest: PublishedKey | undefined;
    for (const key of this.#keys.values())
      if (key.row.retiredAt === null && key.row.withdrawnAt === null) newest = key;
    return newest;
  }

  /** Adds a new signing key (the others are retired: published until their tokens expire). */
  async rotate(): Promise<string> {
    const kid = await rotateSigningKey(
      this.deps.db,
      this.deps.box,
      new Date(this.deps.clock.now()),
    );
    await this.refresh();
    this.deps.onChange?.();
    return kid;
  }

  /** The JWK Set: keys not withdrawn, retired ones until their last token may have expired. */
  jwks(): { keys: object[] } {
    const now = this.deps.clock.now();
    const keys: object[] = [];
    for (const key of this.#keys.values()) {
      const { retiredAt, withdrawnAt } = key.row;
      if (withdrawnAt !== null) continue;
      if (retiredAt !== null && Date.parse(retiredAt) + this.deps.lifetimeS * 1000 <= now) continue;
      keys.push(key.row.publicJwk);
    }
    return { keys };
  }

  applyClient(row: ClientRow): void {
    this.#applyClient(row);
    this.deps.onChange?.();
  }

  #applyClient(row: ClientRow): void {
    // Rows may arrive out of order (a re-read that began before a change applied here, or the
    // change bus beside a poll): an older version of a client never replaces a newer one, and
    // a deleted client never comes back (deletion is final).
    const deletedAt = this.#deleted.get(row.id);
    if (deletedAt !== undefined && deletedAt >= row.updatedAt) return;
    if (row.deletedAt !== null) {
      this.#deleted.set(row.id, row.updatedAt);
      this.#clients.delete(row.id);
      return;
    }
    const known = this.#clients.get(row.id);
    if (known !== undefined && known.row.updatedAt > row.updatedAt) return;
    this.#clients.set(row.id, {
      row,
      allowlist: row.allowlist.length > 0 ? new AddressMatcher(row.allowlist) : null,
    });
  }

  /**
   * Whether client `id` is live, from memory. One this instance has not seen yet (made a moment
   * ago elsewhere) starts one re-read, at most every REREAD_MS as for tokens, so a flood of
   * unknown ids costs no database query per request.
   */
  async knowsClient(id: string): Promise<boolean> {
    if (this.#clients.has(id)) return true;
    await this.#rereadSoon();
    return this.#clients.has(id);
  }

  /**
   * Client `id` as stored a moment ago, for credentials that did not match the row in memory
   * (a secret rotated or a JWKS replaced on another instance, announced within a second): one
   * re-read, shared with the unknown-id path and at most every REREAD_MS, so wrong secrets
   * cost no database query each.
   */
  async rereadClient(id: string): Promise<ClientRow | undefined> {
    await this.#rereadSoon();
    return this.client(id);
  }

  /**
   * Re-reads what changed unless a re-read started less than REREAD_MS ago (then false, and
   * nothing is read): however many unknown tokens, keys or clients arrive, at most one database
   * read per REREAD_MS.
   */
  async #rereadSoon(): Promise<boolean> {
    const now = this.deps.clock.now();
    if (now < this.#nextRereadAt) return false;
    this.#nextRereadAt = now + REREAD_MS;
    await this.refresh().catch((error: unknown) =>
      this.deps.logger.warn({ err: error }, 'OAuth re-read failed; serving what is in memory'),
    );
    return true;
  }

  /**
   * The allowlists a token of client `id` would be held to (its account's and its own, where
   * the plan enforces them), from memory; undefined for a client this view does not know.
   */
  clientAllowlists(id: string): readonly AddressMatcher[] | undefined {
    const client = this.#clients.get(id);
    if (client === undefined) return undefined;
    const account = this.deps.account(client.row.accountId);
    if (account === undefined || !account.plan.ipAllowlist) return [];
    return [account.allowlist, client.allowlist].filter((m): m is AddressMatcher => m !== null);
  }

  client(id: string): ClientRow | undefined {
    return this.#clients.get(id)?.row;
  }

  /** A revocation made here: refused at once, announced to the other instances. */
  applyRevocation(jti: string, expiresAt: number): void {
    this.#revoked.set(jti, expiresAt);
    this.deps.onChange?.();
  }

  isRevoked(jti: string): boolean {
    return this.#revoked.has(jti);
  }

  /** Re-reads what changed; calls during a read get one more read after it. */
  readonly #refresher = new Refresher(() => this.#refresh());

  refresh(): Promise<void> {
    return this.#refresher.refresh();
  }

  async #refresh(): Promise<void> {
    const { db, clock } = this.deps;
    const now = clock.now();
    const since = new Date(Date.parse(this.#since) - OVERLAP_MS).toISOString();
    const [clients, revoked, keys] = await Promise.all([
      clientsChangedSince(db, since),
      revocationsSince(db, since, new Date(now).toISOString()),
      signingKeys(db),
    ]);
    for (const row of clients) this.#applyClient(row);
    for (const r of revoked) this.#revoked.set(r.jti, Date.parse(r.expiresAt));
    for (const row of keys) {
      const known = this.#keys.get(row.kid);
      if (
        known === undefined ||
        known.row.retiredAt !== row.retiredAt ||
        known.row.withdrawnAt !== row.withdrawnAt
      )
        this.#keys.set(row.kid, await publishedKey(row));
    }
    if (this.#signer !== undefined && this.#current()?.row.kid !== this.#signer.kid)
      this.#signer = undefined;
    for (const [jti, exp] of this.#revoked) if (exp <= now) this.#revoked.delete(jti);
    const latest = [...clients.map((r) => r.updatedAt), ...revoked.map((r) => r.revokedAt)]
      .sort()
      .at(-1);
    if (latest !== undefined && latest > this.#since) this.#since = latest;
  }
}

/** The scopes of `token` that `client` still holds (all of them unless its scopes were cut). */
export function heldScopes(token: ReadonlySet<string>, client: ClientRow): ReadonlySet<string> {
  if ([...token].every((scope) => client.scopes.includes(scope))) return token;
  return new Set([...token].filter((scope) => client.scopes.includes(scope)));
}
