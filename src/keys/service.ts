import { emailNotVerified } from '../accounts/index.js';
import { actorOf, allowlistProblems, SCOPES, type Principal } from '../auth/index.js';
import { recordAudit } from '../audit/index.js';
import { AppError } from '../errors/index.js';
import type { Clock } from '../lib/clock.js';
import { prefixedId } from '../lib/ids.js';
import { assertPlanHas, type Plan, type PlanId } from '../plans/index.js';
import { lockAccount, type Db, type Queryable } from '../store/index.js';
import type { CredentialCache } from './credential-cache.js';
import { generateKey, type KeyMode } from './key-format.js';
import {
  assertWithinAuthority,
  inheritRights,
  keyAuthority,
  type KeyAuthority,
  type KeyRights,
} from './key-authority.js';
import * as repo from './repo.js';

/** How long a rotated key keeps working, so deployments can switch without downtime. */
export const ROTATION_GRACE_MS = 24 * 3_600_000;

export interface PublicKey {
  id: string;
  name: string;
  prefix: string;
  mode: KeyMode;
  scopes: string[] | null;
  allowlist: string[];
  created_at: string;
  last_used_at: string | null;
  expires_at: string | null;
  revoked_at: string | null;
  status: 'active' | 'expiring' | 'expired' | 'revoked';
}

export interface KeyInput {
  name?: string;
  /** Fixed at creation; default live. */
  mode?: KeyMode;
  scopes?: string[];
  allowlist?: string[];
}

export function publicKey(k: repo.KeyRow, now: number): PublicKey {
  const status =
    k.revokedAt !== null
      ? 'revoked'
      : k.expiresAt === null
        ? 'active'
        : Date.parse(k.expiresAt) > now
          ? 'expiring'
          : 'expired';
  return {
    id: k.id,
    name: k.name,
    prefix: k.prefix,
    mode: k.mode,
    scopes: k.scopes,
    allowlist: k.allowlist,
    created_at: k.createdAt,
    last_used_at: k.lastUsedAt,
    expires_at: k.expiresAt,
    revoked_at: k.revokedAt,
    status,
  };
}

export interface KeyService {
  /** Issues a key; the plaintext `key` is in this result only. */
  create(principal: Principal, input: KeyInput, ip: string): Promise<PublicKey & { key: string }>;
  /** Issues a key inside an existing transaction (subscribing issues the first key). */
  issue(
    tx: Queryable,
    accountId: string,
    plan: Plan,
    input: KeyInput,
    actor: string,
    ip: string | null,
  ): Promise<PublicKey & { key: string }>;
  /** The account's live keys that count against the plan's key limit, in a transaction. */
  countActive(tx: Queryable, accountId: string): Promise<number>;
  list(accountId: string): Promise<PublicKey[]>;
  get(accountId: string, id: string): Promise<PublicKey>;
  update(principal: Principal, id: string, input: KeyInput, ip: string): Promise<PublicKey>;
  revoke(principal: Principal, id: string, ip: string): Promise<PublicKey>;
  rotate(
    principal: Principal,
    id: string,
    ip: string,
  ): Promise<{ key: PublicKey & { key: string }; previous: PublicKey }>;
}

/**
 * The rights a caller may hand on to what it creates or manages (keys, OAuth clients): its
 * scopes, and the allowlist of its own key or OAuth client. A management call, not the hot path.
 */
export async function callerAuthority(
  db: Db,
  accountId: string,
  principal: Principal,
): Promise<KeyAuthority> {
  if (principal.clientId !== undefined) {
    // An OAuth token is bound by its client's allowlist as a key is by its own.
    const allowlist = await repo.findClientAllowlist(db, accountId, principal.clientId);
    return keyAuthority(principal, allowlist ?? null);
  }
  if (principal.keyId === null) return keyAuthority(principal, null);
  const caller = await repo.findKey(db, accountId, principal.keyId);
  return keyAuthority(principal, caller?.allowlist ?? null);
}

export function createKeyService(deps: {
  db: Db;
  clock: Clock;
  plans: Readonly<Record<PlanId, Plan>>;
  cache: CredentialCache;
}): KeyService {
  const { db, clock, plans, cache } = deps;
  const accountOf = (p: Principal): string => {
    if (p.accountId === null) throw new AppError('UNAUTHENTICATED', 'Sign in or use an API key.');
    return p.accountId;
  };

  function validate(plan: Plan, input: KeyInput): void {
    if (input.scopes !== undefined) {
      assertPlanHas(plans, plan, (p) => p.scopedKeys, 'Keys with permission scopes');
      const unknown = input.scopes.filter((s) => !(SCOPES as readonly string[]).includes(s));
      if (unknown.length > 0 || input.scopes.length === 0) {
        throw AppError.invalidParams([
          {
            name: 'scopes',
            reason:
              unknown.length > 0
                ? `unknown scope ${unknown.join(', ')}`
                : 'must name at least one scope',
            allowed: SCOPES,
          },
        ]);
      }
    }
    if (input.allowlist !== undefined) {
      if (input.allowlist.length > 0)
        assertPlanHas(plans, plan, (p) => p.ipAllowlist, 'IP allowlists');
      const problems = allowlistProblems(input.allowlist);
      if (problems.length > 0)
        throw AppError.invalidParams([{ name: 'allowlist', reason: problems.join('; ') }]);
    }
  }

  async function issue(
    tx: Queryable,
    accountId: string,
    plan: Plan,
    input: KeyInput,
    actor: string,
    ip: string | null,
  ) {
    validate(plan, input);
    assertPlanHas(plans, plan, (p) => p.maxKeys !== 0, 'API keys');
    const mode = input.mode ?? 'live';
    if (
      plan.maxKeys !== null &&
      (await repo.countActiveKeys(tx, accountId, mode)) >= plan.maxKeys
    ) {
      throw new AppError(
        'KEY_LIMIT_REACHED',
        `The ${plan.name} plan allows ${plan.maxKeys} active ${mode} API key${plan.maxKeys === 1 ? '' : 's'}; revoke or rotate one.`,
        {
          extensions: { max_keys: plan.maxKeys },
        },
      );
    }
    const { key, prefix, hash } = generateKey(mode);
    const at = new Date(clock.now());
    const row = await repo.insertKey(tx, {
      id: prefixedId('key'),
      accountId,
      name: input.name ?? 'Default key',
      prefix,
      keyHash: hash,
      mode,
      scopes: plan.scopedKeys ? (input.scopes ?? [...SCOPES]) : null,
      allowlist: input.allowlist ?? [],
      at,
    });
    await recordAudit(tx, {
      accountId,
      actor,
      action: 'keys.create',
      data: { key_id: row.id, prefix, mode, scopes: row.scopes },
      ip,
      at,
    });
    return { row, key };
  }

  async function mustFind(accountId: string, id: string): Promise<repo.KeyRow> {
    const row = await repo.findKey(db, accountId, id);
    if (row === undefined) throw new AppError('NOT_FOUND', `No API key ${id} on this account.`);
    return row;
  }

  /** The rights the caller may hand on: a key's own scopes and allowlist bound what it manages. */
  function authorityOf(principal: Principal): Promise<KeyAuthority> {
    return callerAuthority(db, accountOf(principal), principal);
  }

  /** A key of the caller's account that the caller may manage (not broader than itself). */
  async function manageable(
    principal: Principal,
    id: string,
    verb: string,
  ): Promise<{ row: repo.KeyRow; authority: KeyAuthority }> {
    const row = await mustFind(accountOf(principal), id);
    const authority = await authorityOf(principal);
    assertWithinAuthority(authority, row, verb);
    return { row, authority };
  }

  /** Updates a key of the caller's account with its audit entry, and the cache at once. */
  async function changeKey(
    principal: Principal,
    id: string,
    changes: Parameters<typeof repo.updateKey>[3],
    action: string,
    data: Record<string, unknown>,
    ip: string,
    becomes?: (row: repo.KeyRow) => KeyRights,
  ): Promise<PublicKey> {
    const accountId = accountOf(principal);
    const { row: current, authority } = await manageable(principal, id, 'change');
    if (becomes !== undefined) assertWithinAuthority(authority, becomes(current), 'change');
    const at = new Date(clock.now());
    const row = await db.transaction(async (tx) => {
      const updated = await repo.updateKey(tx, accountId, id, changes, at);
      await recordAudit(tx, {
        accountId,
        actor: actorOf(principal),
        action,
        data: { ...data, mode: current.mode },
        ip,
        at,
      });
      return updated as repo.KeyRow;
    });
    cache.applyKey(row);
    return publicKey(row, at.getTime());
  }

  return {
    async create(principal, input, ip) {
      const accountId = accountOf(principal);
      const authority = await authorityOf(principal);
      const wanted = inheritRights(authority, input);
      validate(principal.plan, wanted); // 400 for a malformed entry before it is compared
      assertWithinAuthority(
        authority,
        {
          scopes: principal.plan.scopedKeys ? (wanted.scopes ?? SCOPES) : null,
          allowlist: wanted.allowlist ?? [],
        },
        'create',
      );
      const { row, key } = await db.transaction(async (tx) => {
        const verified = await repo.lockAccountForKeys(tx, accountId);
        // After the plan's own refusal: a Free account hears that keys need a plan first.
        assertPlanHas(plans, principal.plan, (p) => p.maxKeys !== 0, 'API keys');
        if (!verified && actorOf(principal) !== 'operator') throw emailNotVerified();
        return issue(tx, accountId, principal.plan, wanted, actorOf(principal), ip);
      });
      cache.applyKey(row);
      return { ...publicKey(row, clock.now()), key };
    },

    async issue(tx, accountId, plan, input, actor, ip) {
      const { row, key } = await issue(tx, accountId, plan, input, actor, ip);
      cache.applyKey(row);
      return { ...publicKey(row, clock.now()), key };
    },

    countActive: (tx, accountId) => repo.countActiveKeys(tx, accountId, 'live'),

    async list(accountId) {
      const now = clock.now();
      return (await repo.listKeys(db, accountId)).map((k) => publicKey(k, now));
    },

    async get(accountId, id) {
      return publicKey(await mustFind(accountId, id), clock.now());
    },

    async update(principal, id, input, ip) {
      validate(principal.plan, { allowlist: input.allowlist });
      return changeKey(
        principal,
        id,
        { name: input.name, allowlist: input.allowlist },
        'keys.update',
        { key_id: id, ...input },
        ip,
        (row) => ({ scopes: row.scopes, allowlist: input.allowlist ?? row.allowlist }),
      );
    },

    async revoke(principal, id, ip) {
      return changeKey(
        principal,
        id,
        { revokedAt: new Date(clock.now()) },
        'keys.revoke',
        { key_id: id },
        ip,
      );
    },

    async rotate(principal, id, ip) {
      const accountId = accountOf(principal);
      const { row: old } = await manageable(principal, id, 'rotate');
      const now = clock.now();
      if (old.revokedAt !== null || (old.expiresAt !== null && Date.parse(old.expiresAt) <= now)) {
        throw new AppError(
          'CONFLICT',
          'A revoked or expired key cannot be rotated; create a new one.',
        );
      }
      if (old.expiresAt !== null) throw new AppError('CONFLICT', 'This key was rotated already.');
      const at = new Date(now);
      const result = await db.transaction(async (tx) => {
        await lockAccount(tx, accountId);
        const expiresAt = new Date(now + ROTATION_GRACE_MS);
        // The old key stops counting against the key limit at once, and works until expiresAt.
        await repo.updateKey(tx, accountId, id, { expiresAt }, at);
        const created = await issue(
          tx,
          accountId,
          principal.plan,
          {
            name: old.name,
            mode: old.mode,
            scopes: old.scopes ?? undefined,
            allowlist: old.allowlist,
          },
          actorOf(principal),
          ip,
        );
        const previous = (await repo.updateKey(
          tx,
          accountId,
          id,
          { replacedBy: created.row.id },
          at,
        )) as repo.KeyRow;
        await recordAudit(tx, {
          accountId,
          actor: actorOf(principal),
          action: 'keys.rotate',
          data: {
            key_id: id,
            mode: old.mode,
            new_key_id: created.row.id,
            old_key_expires_at: expiresAt.toISOString(),
          },
          ip,
          at,
        });
        return { created, previous };
      });
      cache.applyKey(result.previous);
      cache.applyKey(result.created.row);
      return {
        key: { ...publicKey(result.created.row, now), key: result.created.key },
        previous: publicKey(result.previous, now),
      };
    },
  };
}
