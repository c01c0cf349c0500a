import { AsyncLocalStorage } from 'node:async_hooks';
import type { AmbientTransaction, Queryable } from './db.js';

/** The driver's side of an ambient transaction: one open transaction on one connection. */
export interface OpenTransaction {
  query<T>(sql: string, params?: readonly unknown[]): Promise<T[]>;
  end(commit: boolean): Promise<void>;
}

interface Scope {
  tx: OpenTransaction;
  open: boolean;
  savepoints: number;
  /** Statements and nested transactions take turns, so savepoints never interleave. */
  tail: Promise<unknown>;
}

interface Frame {
  scope: Scope;
  /** Inside a nested transaction, whose savepoint already covers each statement. */
  nested: boolean;
}

/**
 * Routes a Db's queries to the ambient transaction of the calling async context, if one is
 * open. Outside the nested transactions, each statement runs under its own savepoint: a
 * statement that fails (a unique violation the handler turns into 409) fails alone, as it
 * would outside a transaction, instead of aborting everything after it.
 */
export class AmbientRouter {
  readonly #storage = new AsyncLocalStorage<Frame>();
  /**
   * Ambient transactions wrapped and not yet ended. Node 20's AsyncLocalStorage tracks the
   * async context through async hooks, which, once `run` enables them, stay on for every
   * promise and socket operation of the process (a few µs on each served request, measured on
   * the lookup): so the storage is disabled again whenever no ambient transaction is open.
   */
  #open = 0;

  /** Ambient transactions wrapped and not yet ended, for tests and diagnostics. */
  get openTransactions(): number {
    return this.#open;
  }

  #frame(): Frame | undefined {
    const frame = this.#storage.getStore();
    return frame?.scope.open === true ? frame : undefined;
  }

  /** The ambient transaction's result for `sql`, or undefined when there is none. */
  query<T>(sql: string, params?: readonly unknown[]): Promise<T[]> | undefined {
    const frame = this.#frame();
    if (frame === undefined) return undefined;
    const { scope } = frame;
    if (frame.nested) return scope.tx.query<T>(sql, params);
    return serially(scope, () => savepointed(scope, () => scope.tx.query<T>(sql, params)));
  }

  /** `fn` under a savepoint of the ambient transaction, or undefined when there is none. */
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> | undefined {
    const frame = this.#frame();
    if (frame === undefined) return undefined;
    const { scope } = frame;
    const queryable: Queryable = {
      query: <R>(sql: string, params?: readonly unknown[]) => scope.tx.query<R>(sql, params),
    };
    const nested = () =>
      savepointed(scope, () => this.#storage.run({ scope, nested: true }, () => fn(queryable)));
    return frame.nested ? nested() : serially(scope, nested);
  }

  wrap(tx: OpenTransaction): AmbientTransaction {
    const scope: Scope = { tx, open: true, savepoints: 0, tail: Promise.resolve() };
    this.#open++;
    const end = async (commit: boolean) => {
      if (!scope.open) return;
      scope.open = false;
      // A closed scope's frame is ignored (#frame), so nothing needs the context any more.
      if (--this.#open === 0) this.#storage.disable();
      await scope.tail.catch(() => undefined);
      await tx.end(commit);
    };
    return {
      run: (fn) => this.#storage.run({ scope, nested: false }, fn),
      query: (sql, params) => serially(scope, () => tx.query(sql, params)),
      commit: () => end(true),
      rollback: () => end(false).catch(() => undefined),
    };
  }
}

function serially<T>(scope: Scope, work: () => Promise<T>): Promise<T> {
  const result = scope.tail.then(work, work);
  scope.tail = result.catch(() => undefined);
  return result;
}

async function savepointed<T>(scope: Scope, work: () => Promise<T>): Promise<T> {
  const name = `ambient_${++scope.savepoints}`;
  await scope.tx.query(`SAVEPOINT ${name}`);
  try {
    const result = await work();
    await scope.tx.query(`RELEASE SAVEPOINT ${name}`);
    return result;
  } catch (error) {
    await scope.tx.query(`ROLLBACK TO SAVEPOINT ${name}`).catch(() => undefined);
    throw error;
  }
}
