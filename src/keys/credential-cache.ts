import { Refresher } from '../lib/refresher.js';
import {
  accountsChangedSince,
  liveSessions,
  sessionsChangedSince,
  type AccountRow,
  type SessionRow,
  type CredentialSink,
} from '../accounts/index.js';
import { AddressMatcher, type CredentialResolver, type Principal } from '../auth/index.js';
import type { Clock } from '../lib/clock.js';
import { sha256Hex } from '../lib/crypto.js';
import type { Logger } from '../lib/logger.js';
import { applyContract, type Plan, type PlanId } from '../plans/index.js';
import type { Db } from '../store/index.js';
import { KEY_PREFIX, TEST_KEY_PREFIX } from './key-format.js';
import { keysChangedSince, liveKeys, type KeyRow } from './repo.js';

interface AccountEntry {
  row: AccountRow;
  plan: Plan;
  allowlist: AddressMatcher | null;
}

interface KeyEntry {
  row: KeyRow;
  expiresAt: number | null;
  allowlist: AddressMatcher | null;
  principal: Principal | undefined;
}

interface SessionEntry {
  row: SessionRow;
  expiresAt: number;
  principal: Principal | undefined;
}

/** Live credentials of one kind by token hash, replaced or removed by their row's id. */
class CredentialTable<E extends { row: { id: string; accountId: string }; principal?: Principal }> {
  readonly #byHash = new Map<string, E>();
  readonly #hashById = new Map<string, string>();

  get(hash: string): E | undefined {
    return this.#byHash.get(hash);
  }

  get size(): number {
    return this.#byHash.size;
  }

  /** The credential `id` now has `hash` and `entry`; no entry: it was revoked. */
  put(id: string, hash: string, entry: E | undefined): void {
    const previous = this.#hashById.get(id);
    if (previous !== undefined) this.#byHash.delete(previous);
    if (entry === undefined) {
      this.#hashById.delete(id);
      return;
    }
    this.#byHash.set(hash, entry);
    this.#hashById.set(id, hash);
  }

  /** The account changed: its credentials' principals are built again on next use. */
  forgetPrincipals(accountId: string): void {
    for (const entry of this.#byHash.values())
      if (entry.row.accountId === accountId) entry.principal = undefined;
  }

  removeWhere(test: (entry: E) => boolean): void {
    for (const [hash, entry] of this.#byHash) {
      if (!test(entry)) continue;
      this.#byHash.delete(hash);
      this.#hashById.delete(entry.row.id);
    }
  }
}

// Re-read changes this far back on every poll: a transaction that committed late, with an
// earlier updated_at than one already seen, is still picked up.
const OVERLAP_MS = 5_000;
/**
 * A credential not in memory may be one created a moment ago on another instance: it starts
 * (or joins) one re-read of what changed, at most once per this interval, whatever the number
 * of unknown credentials; between re-reads an unknown credential is refused from memory.
 */
export const UNKNOWN_REREAD_MS = 100;
const SESSION_SWEEP_MS = 60_000;
const SESSION_PREFIX = 'sess_';

/**
 * Every live API key and session (by SHA-256 of the token) and every account in memory: a
 * request with a credential, valid or not, is decided without a database round trip. Changes
 * made here apply at once and are announced (`onChange`, Redis pub/sub when configured), on
 * which the other instances re-read at once; the poll (every second by default) is the
 * backstop. An unknown credential joins a re-read of what changed when one is under way or
 * may start (see UNKNOWN_REREAD_MS), so a flood of random tokens costs the database at most a
 * few queries a second.
 */
export class CredentialCache implements CredentialResolver, CredentialSink {
  readonly #keys = new CredentialTable<KeyEntry>();
  readonly #sessions = new CredentialTable<SessionEntry>();
  readonly #accounts = new Map<string, AccountEntry>();
  readonly #lastUsed = new Map<string, number>();
  #since = new Date(0).toISOString();
  /** The re-read unknown credentials wait for, and when the next may start. */
  #reread: Promise<void> | undefined;
  #nextRereadAt = 0;
  #sweptAt = 0;

  constructor(
    private readonly deps: {
      db: Db;
      clock: Clock;
      plans: Readonly<Record<PlanId, Plan>>;
      logger: Logger;
      /** Called after a change made through this process, to tell the other instances. */
      onChange?: () => void;
    },
  ) {}

  async load(): Promise<void> {
    const { db, clock } = this.deps;
    const now = new Date(clock.now());
    // Credentials first, their accounts after (see #refresh).
    const [keys, sessions] = await Promise.all([liveKeys(db, now), liveSessions(db, now)]);
    for (const account of await accountsChangedSince(db, new Date(0).toISOString()))
      this.#applyAccount(account);
    for (const key of keys) this.#applyKey(key);
    for (const session of sessions) this.#applySession(session);
    this.#sweptAt = now.getTime();
  }

  resolve(token: string): Principal | undefined | Promise<Principal | undefined> {
    if (token.startsWith(SESSION_PREFIX))
      return this.#find(this.#sessions, sha256Hex(token), (e) => this.#sessionPrincipal(e));
    if (!token.startsWith(KEY_PREFIX) && !token.startsWith(TEST_KEY_PREFIX)) return undefined;
    return this.#find(this.#keys, sha256Hex(token), (e) => this.#principalOf(e));
  }

  /** From memory; a token not there is decided by #unknown. */
  #find<E extends KeyEntry | SessionEntry>(
    table: CredentialTable<E>,
    hash: string,
    principalOf: (entry: E) => Principal | undefined,
  ): Principal | undefined | Promise<Principal | undefined> {
    const entry = table.get(hash);
    if (entry !== undefined) return principalOf(entry);
    return this.#unknown(() => {
      const found = table.get(hash);
      return found === undefined ? undefined : principalOf(found);
    });
  }

  /**
   * A credential not in memory: decided again after the re-read under way, or after one it
   * starts when the last started UNKNOWN_REREAD_MS ago or more; otherwise refused at once.
   * On the embedded database always refused at once.
   */
  #unknown(decide: () => Principal | undefined): Promise<Principal | undefined> | undefined {
    // The embedded database belongs to this process (its lock): no one else adds credentials.
    if (this.deps.db.kind === 'pglite') return undefined;
    if (this.#reread === undefined) {
      const now = this.deps.clock.now();
      if (now < this.#nextRereadAt) return undefined;
      this.#nextRereadAt = now + UNKNOWN_REREAD_MS;
      this.#reread = this.refresh()
        .catch((error: unknown) =>
          this.deps.logger.warn({ err: error }, 'credential re-read failed; serving cached keys'),
        )
        .finally(() => (this.#reread = undefined));
    }
    return this.#reread.then(decide);
  }

  /** The account as cached (for plan checks outside the hot path, e.g. usage quota). */
  account(accountId: string): AccountEntry | undefined {
    return this.#accounts.get(accountId);
  }

  /** A change this process made: applied here at once, and announced to the others. */
  applyAccount(row: AccountRow): void {
    this.#applyAccount(row);
    this.deps.onChange?.();
  }

  applyKey(row: KeyRow): void {
    this.#applyKey(row);
    this.deps.onChange?.();
  }

  #applyAccount(row: AccountRow): void {
    if (row.status === 'deleted') {
      // Its keys and sessions were revoked with it; they stop here before their rows are read.
      this.#accounts.delete(row.id);
      this.#keys.removeWhere((entry) => entry.row.accountId === row.id);
      this.#sessions.removeWhere((entry) => entry.row.accountId === row.id);
      return;
    }
    const plan = applyContract(this.deps.plans[row.plan], row.contract);
    this.#accounts.set(row.id, {
      row,
      plan,
      allowlist:
        plan.ipAllowlist && row.allowlist.length > 0 ? new AddressMatcher(row.allowlist) : null,
    });
    this.#keys.forgetPrincipals(row.id);
    this.#sessions.forgetPrincipals(row.id);
  }

  #applyKey(row: KeyRow): void {
    this.#keys.put(
      row.id,
      row.keyHash,
      row.revokedAt !== null
        ? undefined
        : {
            row,
            expiresAt: row.expiresAt === null ? null : Date.parse(row.expiresAt),
            allowlist: row.allowlist.length > 0 ? new AddressMatcher(row.allowlist) : null,
            principal: undefined,
          },
    );
  }

  /** A session this process started or ended: applied here at once, and announced. */
  applySession(row: SessionRow, account?: AccountRow): void {
    if (account !== undefined) this.#applyAccount(account);
    this.#applySession(row);
    this.deps.onChange?.();
  }

  #applySession(row: SessionRow): void {
    this.#sessions.put(
      row.id,
      row.tokenHash,
      row.revokedAt !== null
        ? undefined
        : { row, expiresAt: Date.parse(row.expiresAt), principal: undefined },
    );
  }

  /** Expired sessions leave memory (at most once a minute; until then they are refused). */
  #sweepSessions(now: number): void {
    if (now - this.#sweptAt < SESSION_SWEEP_MS) return;
    this.#sweptAt = now;
    this.#sessions.removeWhere((entry) => entry.expiresAt <= now);
  }

  /** Last-use times gathered since the previous call, for a batched write. */
  takeLastUsed(): Map<string, number> {
    const taken = new Map(this.#lastUsed);
    this.#lastUsed.clear();
    return taken;
  }

  /** Credentials held and reads of changes done so far (metrics). */
  stats(): { size: number; refreshes: number } {
    return {
      size: this.#keys.size + this.#sessions.size + this.#accounts.size,
      refreshes: this.#refreshes,
    };
  }

  #refreshes = 0;

  readonly #refresher = new Refresher(() => this.#refresh());

  /**
   * Reads what changed since the last read. Calls during a read are answered by one more read
   * after it, so a change announced while a read was under way is never missed.
   */
  refresh(): Promise<void> {
    return this.#refresher.refresh();
  }

  async #refresh(): Promise<void> {
    const { db } = this.deps;
    this.#refreshes++;
    const since = new Date(Date.parse(this.#since) - OVERLAP_MS).toISOString();
    // Keys and sessions are read before the accounts, never beside them: a credential created
    // in the transaction that changed its account (a plan change issuing the first key) is then
    // always paired with that change, never with the account as it was before.
    const [keys, sessions] = await Promise.all([
      keysChangedSince(db, since),
      sessionsChangedSince(db, since),
    ]);
    const accounts = await accountsChangedSince(db, since);
    for (const account of accounts) this.#applyAccount(account);
    for (const key of keys) this.#applyKey(key);
    for (const session of sessions) this.#applySession(session);
    const latest = [
      ...accounts.map((r) => r.updatedAt),
      ...keys.map((r) => r.updatedAt),
      ...sessions.map((r) => r.revokedAt ?? r.createdAt),
    ]
      .sort()
      .at(-1);
    if (latest !== undefined && latest > this.#since) this.#since = latest;
    this.#sweepSessions(this.deps.clock.now());
  }

  #principalOf(entry: KeyEntry): Principal | undefined {
    const now = this.deps.clock.now();
    if (entry.expiresAt !== null && entry.expiresAt <= now) return undefined;
    const account = this.#accounts.get(entry.row.accountId);
    if (account === undefined) return undefined;
    this.#lastUsed.set(entry.row.id, now);
    entry.principal ??= {
      kind: 'key',
      plan: account.plan,
      accountId: account.row.id,
      keyId: entry.row.id,
      sessionId: null,
      scopes:
        account.plan.scopedKeys && entry.row.scopes !== null ? new Set(entry.row.scopes) : null,
      allowlists: account.plan.ipAllowlist
        ? [account.allowlist, entry.allowlist].filter((m): m is AddressMatcher => m !== null)
        : [],
      responseSchema: account.plan.customSchemas ? account.row.responseSchema : null,
      ...(entry.row.mode === 'test'
        ? { limitBucket: `test:${account.row.id}`, mode: 'test' as const }
        : { limitBucket: `acct:${account.row.id}` }),
    };
    return entry.principal;
  }

  #sessionPrincipal(entry: SessionEntry): Principal | undefined {
    if (entry.expiresAt <= this.deps.clock.now()) return undefined;
    const account = this.#accounts.get(entry.row.accountId);
    if (account === undefined) return undefined;
    entry.principal ??= {
      kind: 'session',
      plan: account.plan,
      accountId: account.row.id,
      keyId: null,
      sessionId: entry.row.id,
      scopes: null,
      // The account's allowlist binds sessions on data routes only (auth-hook): a signed-in
      // person can still reach account management to fix a wrong one.
      allowlists: account.allowlist === null ? [] : [account.allowlist],
      responseSchema: account.plan.customSchemas ? account.row.responseSchema : null,
      limitBucket: `acct:${account.row.id}`,
    };
    return entry.principal;
  }
}
