import { importJWK, type JWK } from 'jose';
import { actorOf, allowlistProblems, type Principal } from '../auth/index.js';
import { recordAudit } from '../audit/index.js';
import { AppError } from '../errors/index.js';
import type { Clock } from '../lib/clock.js';
import { randomSecret, sha256Hex } from '../lib/crypto.js';
import { prefixedId } from '../lib/ids.js';
import {
  assertWithinAuthority,
  callerAuthority,
  inheritRights,
  type KeyAuthority,
  type KeyRights,
} from '../keys/index.js';
import { assertPlanHas, type Plan, type PlanId } from '../plans/index.js';
import { lockAccount, type Db } from '../store/index.js';
import * as repo from './repo.js';
import type { OAuthCredentialResolver } from './credential-resolver.js';

export const MAX_CLIENTS = 100;
/** A rotated secret keeps working this long, as a rotated API key does. */
export const SECRET_GRACE_MS = 24 * 3_600_000;
const SECRET_PREFIX = 'ocs_';

export interface ClientInput {
  name: string;
  scopes: string[];
  allowlist?: string[];
  token_endpoint_auth_method?: repo.AuthMethod;
  jwks?: { keys: JWK[] };
  dpop_bound?: boolean;
}

export interface ClientUpdate {
  name?: string;
  scopes?: string[];
  allowlist?: string[];
  jwks?: { keys: JWK[] };
  dpop_bound?: boolean;
}

export interface PublicClient {
  id: string;
  client_id: string;
  name: string;
  scopes: string[];
  allowlist: string[];
  token_endpoint_auth_method: repo.AuthMethod;
  jwks: { keys: JWK[] } | null;
  created_at: string;
  updated_at: string;
  previous_secret_expires_at: string | null;
  dpop_bound: boolean;
}

export function publicClient(row: repo.ClientRow): PublicClient {
  return {
    id: row.id,
    client_id: row.id,
    name: row.name,
    scopes: row.scopes,
    allowlist: row.allowlist,
    token_endpoint_auth_method: row.authMethod,
    jwks: row.jwks,
    created_at: row.createdAt,
    updated_at: row.updatedAt,
    previous_secret_expires_at: row.previousSecretExpiresAt,
    dpop_bound: row.dpopBound,
  };
}

/** The curves and RSA size a client's assertion keys may use, and the algorithms each signs. */
const JWK_ALGS: Readonly<Record<string, readonly string[]>> = {
  'EC:P-256': ['ES256'],
  'EC:P-384': ['ES384'],
  'OKP:Ed25519': ['EdDSA'],
  RSA: ['RS256', 'PS256'],
};
const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'];
const MIN_RSA_BITS = 2048;

function rsaBits(n: unknown): number {
  if (typeof n !== 'string') return 0;
  const bytes = Buffer.from(n, 'base64url');
  let i = 0;
  while (i < bytes.length && bytes[i] === 0) i++;
  return i === bytes.length ? 0 : (bytes.length - i - 1) * 8 + bytes[i]!.toString(2).length;
}

/** NIST SP 800-56B: an odd public exponent of at least 65537 (AQAB, as every library makes). */
function rsaExponentSound(e: unknown): boolean {
  if (typeof e !== 'string' || e.length === 0 || e.length > 44) return false;
  const hex = Buffer.from(e, 'base64url').toString('hex');
  if (hex.length === 0) return false;
  const value = BigInt(`0x${hex}`);
  return value % 2n === 1n && value >= 65537n;
}

/** Why one public key cannot verify a client assertion; undefined when it can. */
async function jwkProblem(key: JWK): Promise<string | undefined> {
  const held = PRIVATE_MEMBERS.filter((m) => m in key);
  if (held.length > 0 || key.kty === 'oct')
    return `must be a public key (no private or symmetric members: ${held.join(', ') || 'kty oct'})`;
  const family = key.kty === 'RSA' ? 'RSA' : `${String(key.kty)}:${String(key.crv)}`;
  const algs = JWK_ALGS[family];
  if (algs === undefined)
    return 'must be an EC key on P-256 or P-384, an OKP Ed25519 key, or an RSA key';
  if (key.alg !== undefined && !algs.includes(key.alg))
    return `alg ${String(key.alg)} does not fit a ${family} key (allowed: ${algs.join(', ')})`;
  if (key.use !== undefined && key.use !== 'sig') return 'use must be sig';
  if (family === 'RSA' && rsaBits(key.n) < MIN_RSA_BITS)
    return `an RSA modulus must have at least ${MIN_RSA_BITS} bits`;
  if (family === 'RSA' && !rsaExponentSound(key.e))
    return 'an RSA public exponent must be odd and at least 65537 (e=1 would let anyone sign)';
  try {
    await importJWK({ ...key, ext: true }, key.alg ?? algs[0]);
  } catch (error) {
    return `is not a usable public key: ${(error as Error).message}`;
  }
  return undefined;
}

/** 400 naming each key of `jwks` that could never verify an assertion. */
async function checkJwks(jwks: { keys: JWK[] }): Promise<void> {
  const problems: { name: string; reason: string }[] = [];
  for (const [i, key] of jwks.keys.entries()) {
    const problem = await jwkProblem(key);
    if (problem !== undefined) problems.push({ name: `jwks.keys[${i}]`, reason: problem });
  }
  if (jwks.keys.length === 0)
    problems.push({ name: 'jwks', reason: 'must hold one or more public keys' });
  if (problems.length > 0) throw AppError.invalidParams(problems);
}

export type OAuthClientService = ReturnType<typeof createOAuthClientService>;

/** OAuth clients of an account (Enterprise): created, listed, changed, rotated, deleted. */
export function createOAuthClientService(deps: {
  db: Db;
  clock: Clock;
  plans: Readonly<Record<PlanId, Plan>>;
  authority: OAuthCredentialResolver;
}) {
  const { db, clock, plans, authority } = deps;

  function accountOf(p: Principal): string {
    if (p.accountId === null) throw new AppError('UNAUTHENTICATED', 'Sign in or use an API key.');
    assertPlanHas(plans, p.plan, (plan) => plan.oauth, 'OAuth clients');
    return p.accountId;
  }

  /**
   * A caller cannot hand out more than it holds (scopes, and its own key's or client's
   * allowlist: 403 KEY_EXCEEDS_CALLER, the rule keys follow); bad allowlists and jwks are 400.
   */
  async function validate(
    authorityOfCaller: KeyAuthority,
    input: ClientUpdate,
    becomes: KeyRights,
    method: repo.AuthMethod,
  ): Promise<void> {
    if (input.allowlist !== undefined) {
      const problems = allowlistProblems(input.allowlist);
      if (problems.length > 0)
        throw AppError.invalidParams([{ name: 'allowlist', reason: problems.join('; ') }]);
    }
    assertWithinAuthority(authorityOfCaller, becomes, 'give rights to', 'an OAuth client');
    if (method === 'private_key_jwt' && input.jwks !== undefined) await checkJwks(input.jwks);
  }

  /** The caller's rights, and the client `id` of its account provided it is not broader. */
  async function manageable(
    p: Principal,
    id: string,
    verb: string,
  ): Promise<{ row: repo.ClientRow; authority: KeyAuthority }> {
    const accountId = accountOf(p);
    const row = await mustFind(accountId, id);
    const authorityOfCaller = await callerAuthority(db, accountId, p);
    assertWithinAuthority(authorityOfCaller, row, verb, 'an OAuth client');
    return { row, authority: authorityOfCaller };
  }

  async function audit(
    tx: Parameters<typeof recordAudit>[0],
    p: Principal,
    action: string,
    data: Record<string, unknown>,
    ip: string | null,
  ): Promise<void> {
    await recordAudit(tx, {
      accountId: p.accountId,
      actor: actorOf(p),
      action,
      data,
      ip,
      at: new Date(clock.now()),
    });
  }

  async function mustFind(accountId: string, id: string): Promise<repo.ClientRow> {
    const row = await repo.findClient(db, id, accountId);
    if (row === undefined)
      throw new AppError('NOT_FOUND', `No OAuth client ${id} on this account.`);
    return row;
  }

  return {
    async create(
      p: Principal,
      input: ClientInput,
      ip: string | null,
    ): Promise<PublicClient & { client_secret: string | null }> {
      const accountId = accountOf(p);
      const method = input.token_endpoint_auth_method ?? 'client_secret_basic';
      const authorityOfCaller = await callerAuthority(db, accountId, p);
      // Left out, the allowlist is the caller's own (as for keys), so a client is never wider.
      input = inheritRights(authorityOfCaller, input);
      await validate(
        authorityOfCaller,
        input,
        { scopes: input.scopes, allowlist: input.allowlist ?? [] },
        method,
      );
      if (method === 'private_key_jwt' && input.jwks === undefined)
        throw AppError.invalidParams([
          { name: 'jwks', reason: 'private_key_jwt needs the public keys the client signs with' },
        ]);
      const secret = method === 'private_key_jwt' ? null : randomSecret(SECRET_PREFIX);
      const at = new Date(clock.now()).toISOString();
      const row = await db.transaction(async (tx) => {
        await lockAccount(tx, accountId);
        if ((await repo.countLiveClients(tx, accountId)) >= MAX_CLIENTS)
          throw new AppError(
            'OAUTH_CLIENT_LIMIT_REACHED',
            `An account may have at most ${MAX_CLIENTS} OAuth clients; delete one first.`,
            { extensions: { max_clients: MAX_CLIENTS } },
          );
        const created = await repo.insertClient(tx, {
          id: prefixedId('ocl'),
          accountId,
          name: input.name,
          authMethod: method,
          secretHash: secret === null ? null : sha256Hex(secret),
          jwks: method === 'private_key_jwt' ? (input.jwks ?? null) : null,
          scopes: input.scopes,
          allowlist: input.allowlist ?? [],
          dpopBound: input.dpop_bound ?? false,
          createdAt: at,
          updatedAt: at,
        });
        await audit(
          tx,
          p,
          'oauth.client_create',
          { client_id: created.id, scopes: created.scopes },
          ip,
        );
        return created;
      });
      authority.applyClient(row);
      return { ...publicClient(row), client_secret: secret };
    },

    async list(p: Principal): Promise<PublicClient[]> {
      return (await repo.listClients(db, accountOf(p))).map(publicClient);
    },

    async get(p: Principal, id: string): Promise<PublicClient> {
      return publicClient(await mustFind(accountOf(p), id));
    },

    async update(p: Principal, id: string, input: ClientUpdate, ip: string | null) {
      const { row: current, authority: authorityOfCaller } = await manageable(p, id, 'change');
      await validate(
        authorityOfCaller,
        input,
        { scopes: input.scopes ?? current.scopes, allowlist: input.allowlist ?? current.allowlist },
        current.authMethod,
      );
      if (input.jwks !== undefined && current.authMethod !== 'private_key_jwt')
        throw AppError.invalidParams([
          { name: 'jwks', reason: 'only clients using private_key_jwt have keys' },
        ]);
      const at = new Date(clock.now()).toISOString();
      const row = await db.transaction(async (tx) => {
        const { dpop_bound: dpopBound, ...changes } = input;
        const updated = await repo.updateClient(
          tx,
          id,
          dpopBound === undefined ? changes : { ...changes, dpopBound },
          at,
        );
        await audit(
          tx,
          p,
          'oauth.client_update',
          { client_id: id, changed: Object.keys(input) },
          ip,
        );
        return updated;
      });
      authority.applyClient(row);
      return publicClient(row);
    },

    async rotateSecret(p: Principal, id: string, ip: string | null) {
      const { row: current } = await manageable(p, id, 'rotate the secret of');
      if (current.secretHash === null)
        throw new AppError(
          'CONFLICT',
          'This client authenticates with private_key_jwt; it has no secret.',
        );
      const secret = randomSecret(SECRET_PREFIX);
      const now = clock.now();
      const row = await db.transaction(async (tx) => {
        const updated = await repo.updateClient(
          tx,
          id,
          {
            secretHash: sha256Hex(secret),
            previousSecretHash: current.secretHash,
            previousSecretExpiresAt: new Date(now + SECRET_GRACE_MS).toISOString(),
          },
          new Date(now).toISOString(),
        );
        await audit(tx, p, 'oauth.client_rotate_secret', { client_id: id }, ip);
        return updated;
      });
      authority.applyClient(row);
      return { ...publicClient(row), client_secret: secret };
    },

    /** Deleted: every token it holds is refused from now on (on the others within a second). */
    async remove(p: Principal, id: string, ip: string | null): Promise<void> {
      await manageable(p, id, 'delete');
      const at = new Date(clock.now()).toISOString();
      const row = await db.transaction(async (tx) => {
        const deleted = await repo.updateClient(tx, id, { deletedAt: at }, at);
        await audit(tx, p, 'oauth.client_delete', { client_id: id }, ip);
        return deleted;
      });
      authority.applyClient(row);
    },
  };
}
