// On the embedded database, a query on the outer client while a transaction of the same request is
// open waits for that transaction, which waits for the query: the request stalls until the
// transaction's timeout and then fails. Tests turn this into an immediate error naming the mistake,
// so it is caught where it is written, on PostgreSQL runs too (where it only costs a pool connection).
import { AsyncLocalStorage } from "node:async_hooks";

interface OpenTransaction {
  open: boolean;
}

const scope = new AsyncLocalStorage<OpenTransaction>();

/** On under vitest, and in servers a test starts with ACE_TRANSACTION_GUARD=on. */
export function transactionGuardEnabled(): boolean {
  return process.env.VITEST !== undefined || process.env.ACE_TRANSACTION_GUARD === "on";
}

export class OuterClientInTransactionError extends Error {
  constructor(what: string) {
    super(
      `${what} ran on the outer database client while a transaction of the same request was open. ` +
        "Pass the transaction's client (tx) to it, or run it before or after the transaction.",
    );
    this.name = "OuterClientInTransactionError";
  }
}

/** Runs a transaction's callback marking its async context as inside an open transaction. */
function insideTransaction<T>(work: () => Promise<T>): Promise<T> {
  const state: OpenTransaction = { open: true };
  // Work the callback started but did not wait for may query the outer client once it has ended.
  return scope.run(state, work).finally(() => {
    state.open = false;
  });
}

/** Throws when the caller's async context has a transaction open: called before each outer-client query. */
export function assertOutsideTransaction(what: string): void {
  if (scope.getStore()?.open) throw new OuterClientInTransactionError(what);
}

interface TransactionCapable {
  $transaction: (...args: never[]) => Promise<unknown>;
}

/**
 * Marks the callback of every interactive transaction of this client (db.$transaction(async (tx) => …));
 * the transaction's own start and end run outside the mark.
 */
export function guardTransactions<C extends TransactionCapable>(client: C): C {
  if (!transactionGuardEnabled()) return client;
  const original = client.$transaction.bind(client) as (arg: unknown, options?: unknown) => Promise<unknown>;
  const guarded = (arg: unknown, options?: unknown) =>
    typeof arg === "function"
      ? original((tx: unknown) => insideTransaction(() => (arg as (tx: unknown) => Promise<unknown>)(tx)), options)
      : original(arg, options);
  Object.defineProperty(client, "$transaction", { value: guarded, configurable: true, writable: true });
  return client;
}
