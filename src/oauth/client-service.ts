import type { JWK } from 'jose';
import { actorOf, allowlistProblems, type Principal } from '../auth/index.js';
import { recordAudit } from '../audit/index.js';
import { AppError } from '../errors/index.js';
import type { Clock } from '../lib/clock.js';
import { randomSecret, sha256Hex } from '../lib/crypto.js';
import { prefixedId } from '../lib/ids.js';
import { assertPlanHas, type Plan, type PlanId } from '../plans/index.js';
import type { Db } from '../store/index.js';
import * as repo from './repo.js';
import type { OAuthTokenAuthority } from './token-authority.js';

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

export type OAuthClientService = ReturnType<typeof createOAuthClientService>;

/** OAuth clients of an account (Enterprise): created, listed, changed, rotated, deleted. */
export function createOAuthClientService(deps: {
  db: Db;
  clock: Clock;
  plans: Readonly<Record<PlanId, Plan>>;
  authority: OAuthTokenAuthority;
}) {
  const { db, clock, plans, authority } = deps;

  function accountOf(p: Principal): string {
    if (p.accountId === null) throw new AppError('UNAUTHENTICATED', 'Sign in or use an API key.');
    assertPlanHas(plans, p.plan, (plan) => plan.oauth, 'OAuth clients');
    return p.accountId;
  }

  /** A caller with scopes of its own cannot hand out more than it holds. */
  function validate(p: Principal, input: ClientUpdate, method: repo.AuthMethod): void {
    if (input.scopes !== undefined && p.scopes !== null) {
      const held = p.scopes;
      const missing = input.scopes.filter((s) => !held.has(s));
      if (missing.length > 0)
        throw new AppError(
          'KEY_EXCEEDS_CALLER',
          `This credential cannot give a client scopes it does not hold itself: ${missing.join(', ')}.`,
          { extensions: { missing_scopes: missing } },
        );
    }
    if (input.allowlist !== undefined) {
      const problems = allowlistProblems(input.allowlist);
      if (problems.length > 0)
        throw AppError.invalidParams([{ name: 'allowlist', reason: problems.join('; ') }]);
    }
    if (method === 'private_key_jwt' && input.jwks !== undefined) {
      const bad = input.jwks.keys.some(
        (k) => typeof k.kty !== 'string' || 'd' in k || 'k' in k || k.kty === 'oct',
      );
      if (bad || input.jwks.keys.length === 0)
        throw AppError.invalidParams([
          {
            name: 'jwks',
            reason: 'must hold one or more public keys (no private or symmetric keys)',
          },
        ]);
    }
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
      validate(p, input, method);
      if (method === 'private_key_jwt' && input.jwks === undefined)
        throw AppError.invalidParams([
          { name: 'jwks', reason: 'private_key_jwt needs the public keys the client signs with' },
        ]);
      const secret = method === 'private_key_jwt' ? null : randomSecret(SECRET_PREFIX);
      const at = new Date(clock.now()).toISOString();
      const row = await db.transaction(async (tx) => {
        await tx.query('SELECT id FROM accounts WHERE id = $1 FOR UPDATE', [accountId]);
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
      const accountId = accountOf(p);
      const current = await mustFind(accountId, id);
      validate(p, input, current.authMethod);
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
      const accountId = accountOf(p);
      const current = await mustFind(accountId, id);
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
      const accountId = accountOf(p);
      await mustFind(accountId, id);
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
