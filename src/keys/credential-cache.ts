import {
  accountsChangedSince,
  findAccount,
  type AccountRow,
  type AccountService,
} from '../accounts/index.js';
import { AddressMatcher, type CredentialResolver, type Principal } from '../auth/index.js';
import type { Clock } from '../lib/clock.js';
import { sha256Hex } from '../lib/crypto.js';
import type { Logger } from '../lib/logger.js';
import { applyContract, type Plan, type PlanId } from '../plans/index.js';
import type { Db } from '../store/index.js';
import { KEY_PREFIX } from './key-format.js';
import { findKeyByHash, keysChangedSince, liveKeys, type KeyRow } from './repo.js';

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

// Re-read changes this far back on every poll: a transaction that committed late, with an
// earlier updated_at than one already seen, is still picked up.
const OVERLAP_MS = 5_000;
const NEGATIVE_TTL_MS = 2_000;
const NEGATIVE_MAX = 10_000;

/**
 * API keys and their accounts in memory: a lookup with a valid key does no database round
 * trip. Changes made here apply at once and are announced (`onChange`, Redis pub/sub when
 * configured), on which the other instances re-read at once; the poll (every second by
 * default) is the backstop. An unknown key is looked up once in the database (a key
 * created a moment ago on another instance), then remembered as unknown for two seconds.
 */
export class CredentialCache implements CredentialResolver {
  readonly #keys = new Map<string, KeyEntry>();
  readonly #keyHashById = new Map<string, string>();
  readonly #accounts = new Map<string, AccountEntry>();
  readonly #negative = new Map<string, number>();
  readonly #lastUsed = new Map<string, number>();
  #since = new Date(0).toISOString();
  #timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly deps: {
      db: Db;
      clock: Clock;
      plans: Readonly<Record<PlanId, Plan>>;
      accounts: AccountService;
      logger: Logger;
      /** Called after a change made through this process, to tell the other instances. */
      onChange?: () => void;
    },
  ) {}

  async load(): Promise<void> {
    const { db, clock } = this.deps;
    for (const account of await accountsChangedSince(db, new Date(0).toISOString()))
      this.#applyAccount(account);
    for (const key of await liveKeys(db, new Date(clock.now()))) this.#applyKey(key);
  }

  resolve(token: string): Principal | undefined | Promise<Principal | undefined> {
    if (token.startsWith('sess_')) return this.#resolveSession(token);
    if (!token.startsWith(KEY_PREFIX)) return undefined;
    const hash = sha256Hex(token);
    const entry = this.#keys.get(hash);
    if (entry !== undefined) return this.#principalOf(entry);
    const negativeUntil = this.#negative.get(hash);
    if (negativeUntil !== undefined && negativeUntil > this.deps.clock.now()) return undefined;
    return this.#lookUp(hash);
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
    const plan = applyContract(this.deps.plans[row.plan], row.contract);
    this.#accounts.set(row.id, {
      row,
      plan,
      allowlist:
        plan.ipAllowlist && row.allowlist.length > 0 ? new AddressMatcher(row.allowlist) : null,
    });
    for (const entry of this.#keys.values())
      if (entry.row.accountId === row.id) entry.principal = undefined;
  }

  #applyKey(row: KeyRow): void {
    const previousHash = this.#keyHashById.get(row.id);
    if (previousHash !== undefined) this.#keys.delete(previousHash);
    if (row.revokedAt !== null) {
      this.#keyHashById.delete(row.id);
      return;
    }
    this.#keys.set(row.keyHash, {
      row,
      expiresAt: row.expiresAt === null ? null : Date.parse(row.expiresAt),
      allowlist: row.allowlist.length > 0 ? new AddressMatcher(row.allowlist) : null,
      principal: undefined,
    });
    this.#keyHashById.set(row.id, row.keyHash);
    this.#negative.delete(row.keyHash);
  }

  /** Last-use times gathered since the previous call, for a batched write. */
  takeLastUsed(): Map<string, number> {
    const taken = new Map(this.#lastUsed);
    this.#lastUsed.clear();
    return taken;
  }

  /**
   * Reads what changed since the last read. Calls during a read are answered by one more read
   * after it, so a change announced while a read was under way is never missed.
   */
  refresh(): Promise<void> {
    if (this.#refreshing === undefined) {
      this.#refreshing = this.#refresh().finally(() => (this.#refreshing = undefined));
      return this.#refreshing;
    }
    this.#again ??= this.#refreshing
      .catch(() => undefined)
      .then(() => {
        this.#again = undefined;
        return this.refresh();
      });
    return this.#again;
  }

  #refreshing: Promise<void> | undefined;
  #again: Promise<void> | undefined;

  async #refresh(): Promise<void> {
    const { db } = this.deps;
    const since = new Date(Date.parse(this.#since) - OVERLAP_MS).toISOString();
    const [accounts, keys] = await Promise.all([
      accountsChangedSince(db, since),
      keysChangedSince(db, since),
    ]);
    for (const account of accounts) this.#applyAccount(account);
    for (const key of keys) this.#applyKey(key);
    const latest = [...accounts, ...keys]
      .map((r) => r.updatedAt)
      .sort()
      .at(-1);
    if (latest !== undefined && latest > this.#since) this.#since = latest;
  }

  watch(intervalMs: number): void {
    this.stop();
    this.#timer = setInterval(() => {
      this.refresh().catch((error: unknown) =>
        this.deps.logger.warn({ err: error }, 'credential refresh failed; serving cached keys'),
      );
    }, intervalMs);
    this.#timer.unref();
  }

  stop(): void {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
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
      limitBucket: `acct:${account.row.id}`,
    };
    return entry.principal;
  }

  async #lookUp(hash: string): Promise<Principal | undefined> {
    const { db, clock } = this.deps;
    const row = await findKeyByHash(db, hash);
    if (row === undefined || row.revokedAt !== null) {
      if (this.#negative.size >= NEGATIVE_MAX) this.#negative.clear();
      this.#negative.set(hash, clock.now() + NEGATIVE_TTL_MS);
      return undefined;
    }
    if (!this.#accounts.has(row.accountId)) {
      const account = await findAccount(db, row.accountId);
      if (account === undefined) return undefined;
      this.#applyAccount(account);
    }
    this.#applyKey(row);
    const entry = this.#keys.get(hash);
    return entry === undefined ? undefined : this.#principalOf(entry);
  }

  async #resolveSession(token: string): Promise<Principal | undefined> {
    const session = await this.deps.accounts.resolveSession(token);
    if (session === undefined) return undefined;
    let account = this.#accounts.get(session.accountId);
    if (account === undefined) {
      const row = await findAccount(this.deps.db, session.accountId);
      if (row === undefined) return undefined;
      this.#applyAccount(row);
      account = this.#accounts.get(session.accountId)!;
    }
    return {
      kind: 'session',
      plan: account.plan,
      accountId: account.row.id,
      keyId: null,
      sessionId: session.sessionId,
      scopes: null,
      // The account's allowlist binds sessions on data routes only (auth-hook): a signed-in
      // person can still reach account management to fix a wrong one.
      allowlists: account.allowlist === null ? [] : [account.allowlist],
      responseSchema: account.plan.customSchemas ? account.row.responseSchema : null,
      limitBucket: `acct:${account.row.id}`,
    };
  }
}
