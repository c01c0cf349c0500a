import type { JWK } from 'jose';
import type { Queryable } from '../store/index.js';

export type AuthMethod = 'client_secret_basic' | 'client_secret_post' | 'private_key_jwt';

export interface ClientRow {
  id: string;
  accountId: string;
  name: string;
  authMethod: AuthMethod;
  secretHash: string | null;
  previousSecretHash: string | null;
  previousSecretExpiresAt: string | null;
  jwks: { keys: JWK[] } | null;
  scopes: string[];
  allowlist: string[];
  dpopBound: boolean;
  createdAt: string;
  updatedAt: string;
  deletedAt: string | null;
}

interface RawClient {
  id: string;
  account_id: string;
  name: string;
  auth_method: AuthMethod;
  secret_hash: string | null;
  previous_secret_hash: string | null;
  previous_secret_expires_at: Date | string | null;
  jwks: { keys: JWK[] } | string | null;
  scopes: string[];
  allowlist: string[] | null;
  dpop_bound: boolean;
  created_at: Date | string;
  updated_at: Date | string;
  deleted_at: Date | string | null;
}

const CLIENT_COLUMNS =
  'id, account_id, name, auth_method, secret_hash, previous_secret_hash, previous_secret_expires_at, jwks, scopes, allowlist, dpop_bound, created_at, updated_at, deleted_at';
const iso = (v: Date | string | null): string | null =>
  v === null ? null : new Date(v).toISOString();

function toClient(r: RawClient): ClientRow {
  return {
    id: r.id,
    accountId: r.account_id,
    name: r.name,
    authMethod: r.auth_method,
    secretHash: r.secret_hash,
    previousSecretHash: r.previous_secret_hash,
    previousSecretExpiresAt: iso(r.previous_secret_expires_at),
    jwks: typeof r.jwks === 'string' ? (JSON.parse(r.jwks) as { keys: JWK[] }) : r.jwks,
    scopes: r.scopes,
    allowlist: r.allowlist ?? [],
    dpopBound: r.dpop_bound,
    createdAt: new Date(r.created_at).toISOString(),
    updatedAt: new Date(r.updated_at).toISOString(),
    deletedAt: iso(r.deleted_at),
  };
}

export async function insertClient(
  db: Queryable,
  c: Omit<ClientRow, 'previousSecretHash' | 'previousSecretExpiresAt' | 'deletedAt'>,
): Promise<ClientRow> {
  const rows = await db.query<RawClient>(
    `INSERT INTO oauth_clients (id, account_id, name, auth_method, secret_hash, jwks, scopes, allowlist, dpop_bound, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) RETURNING ${CLIENT_COLUMNS}`,
    [
      c.id,
      c.accountId,
      c.name,
      c.authMethod,
      c.secretHash,
      c.jwks === null ? null : JSON.stringify(c.jwks),
      c.scopes,
      c.allowlist,
      c.dpopBound,
      c.createdAt,
      c.updatedAt,
    ],
  );
  return toClient(rows[0]!);
}

export async function countLiveClients(db: Queryable, accountId: string): Promise<number> {
  const rows = await db.query<{ n: number | string }>(
    'SELECT count(*) AS n FROM oauth_clients WHERE account_id = $1 AND deleted_at IS NULL',
    [accountId],
  );
  return Number(rows[0]?.n ?? 0);
}

export async function listClients(db: Queryable, accountId: string): Promise<ClientRow[]> {
  const rows = await db.query<RawClient>(
    `SELECT ${CLIENT_COLUMNS} FROM oauth_clients WHERE account_id = $1 AND deleted_at IS NULL ORDER BY created_at, id`,
    [accountId],
  );
  return rows.map(toClient);
}

/** A live client; `accountId` undefined: of any account (the token endpoint). */
export async function findClient(
  db: Queryable,
  id: string,
  accountId?: string,
): Promise<ClientRow | undefined> {
  const rows = await db.query<RawClient>(
    `SELECT ${CLIENT_COLUMNS} FROM oauth_clients WHERE id = $1 AND deleted_at IS NULL${accountId === undefined ? '' : ' AND account_id = $2'}`,
    accountId === undefined ? [id] : [id, accountId],
  );
  return rows[0] === undefined ? undefined : toClient(rows[0]);
}

export async function updateClient(
  db: Queryable,
  id: string,
  changes: {
    name?: string;
    scopes?: string[];
    allowlist?: string[];
    jwks?: { keys: JWK[] } | null;
    dpopBound?: boolean;
    secretHash?: string;
    previousSecretHash?: string | null;
    previousSecretExpiresAt?: string | null;
    deletedAt?: string;
  },
  at: string,
): Promise<ClientRow> {
  const columns: [string, unknown][] = [
    ['name', changes.name],
    ['scopes', changes.scopes],
    ['allowlist', changes.allowlist],
    [
      'jwks',
      changes.jwks === undefined || changes.jwks === null
        ? changes.jwks
        : JSON.stringify(changes.jwks),
    ],
    ['dpop_bound', changes.dpopBound],
    ['secret_hash', changes.secretHash],
    ['previous_secret_hash', changes.previousSecretHash],
    ['previous_secret_expires_at', changes.previousSecretExpiresAt],
    ['deleted_at', changes.deletedAt],
  ];
  const set = columns.filter(([, v]) => v !== undefined);
  const params: unknown[] = [id, at, ...set.map(([, v]) => v)];
  const assignments = set.map(([name], i) => `${name} = $${i + 3}`);
  const rows = await db.query<RawClient>(
    `UPDATE oauth_clients SET ${['updated_at = $2', ...assignments].join(', ')} WHERE id = $1 RETURNING ${CLIENT_COLUMNS}`,
    params,
  );
  return toClient(rows[0]!);
}

/** Clients changed (created, edited, deleted) since `since`, for the verifier's memory. */
export async function clientsChangedSince(db: Queryable, since: string): Promise<ClientRow[]> {
  const rows = await db.query<RawClient>(
    `SELECT ${CLIENT_COLUMNS} FROM oauth_clients WHERE updated_at >= $1 ORDER BY updated_at`,
    [since],
  );
  return rows.map(toClient);
}

export interface SigningKeyRow {
  kid: string;
  alg: string;
  publicJwk: JWK;
  privateEnc: string;
  createdAt: string;
  retiredAt: string | null;
  withdrawnAt: string | null;
}

interface RawSigningKey {
  kid: string;
  alg: string;
  public_jwk: JWK | string;
  private_enc: string;
  created_at: Date | string;
  retired_at: Date | string | null;
  withdrawn_at: Date | string | null;
}

function toSigningKey(r: RawSigningKey): SigningKeyRow {
  return {
    kid: r.kid,
    alg: r.alg,
    publicJwk: typeof r.public_jwk === 'string' ? (JSON.parse(r.public_jwk) as JWK) : r.public_jwk,
    privateEnc: r.private_enc,
    createdAt: new Date(r.created_at).toISOString(),
    retiredAt: iso(r.retired_at),
    withdrawnAt: iso(r.withdrawn_at),
  };
}

export async function signingKeys(db: Queryable): Promise<SigningKeyRow[]> {
  const rows = await db.query<RawSigningKey>(
    'SELECT kid, alg, public_jwk, private_enc, created_at, retired_at, withdrawn_at FROM oauth_signing_keys ORDER BY created_at, kid',
  );
  return rows.map(toSigningKey);
}

/** A new signing key; every other one not yet retired is retired at `at`. */
export async function insertSigningKey(
  db: Queryable,
  k: { kid: string; alg: string; publicJwk: JWK; privateEnc: string },
  at: string,
): Promise<void> {
  await db.query(
    'UPDATE oauth_signing_keys SET retired_at = $1 WHERE retired_at IS NULL AND withdrawn_at IS NULL',
    [at],
  );
  await db.query(
    'INSERT INTO oauth_signing_keys (kid, alg, public_jwk, private_enc, created_at) VALUES ($1, $2, $3, $4, $5)',
    [k.kid, k.alg, JSON.stringify(k.publicJwk), k.privateEnc, at],
  );
}

export async function withdrawSigningKey(db: Queryable, kid: string, at: string): Promise<boolean> {
  const rows = await db.query<{ kid: string }>(
    'UPDATE oauth_signing_keys SET withdrawn_at = $2, retired_at = coalesce(retired_at, $2) WHERE kid = $1 AND withdrawn_at IS NULL RETURNING kid',
    [kid, at],
  );
  return rows.length > 0;
}

export async function insertRevocation(
  db: Queryable,
  r: { jti: string; clientId: string; expiresAt: string; revokedAt: string },
): Promise<void> {
  await db.query(
    'INSERT INTO oauth_revocations (jti, client_id, expires_at, revoked_at) VALUES ($1, $2, $3, $4) ON CONFLICT (jti) DO NOTHING',
    [r.jti, r.clientId, r.expiresAt, r.revokedAt],
  );
}

/** Revocations of tokens still unexpired at `now`, recorded since `since`. */
export async function revocationsSince(
  db: Queryable,
  since: string,
  now: string,
): Promise<{ jti: string; revokedAt: string; expiresAt: string }[]> {
  const rows = await db.query<{
    jti: string;
    revoked_at: Date | string;
    expires_at: Date | string;
  }>(
    'SELECT jti, revoked_at, expires_at FROM oauth_revocations WHERE revoked_at >= $1 AND expires_at > $2',
    [since, now],
  );
  return rows.map((r) => ({
    jti: r.jti,
    revokedAt: new Date(r.revoked_at).toISOString(),
    expiresAt: new Date(r.expires_at).toISOString(),
  }));
}

/** Records a private_key_jwt assertion id; false when it was used before (a replay). */
export async function claimAssertionJti(
  db: Queryable,
  clientId: string,
  jti: string,
  expiresAt: string,
  now: string,
): Promise<boolean> {
  await db.query('DELETE FROM oauth_assertion_jtis WHERE expires_at < $1', [now]);
  const rows = await db.query<{ jti: string }>(
    'INSERT INTO oauth_assertion_jtis (client_id, jti, expires_at) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING RETURNING jti',
    [clientId, jti, expiresAt],
  );
  return rows.length > 0;
}
