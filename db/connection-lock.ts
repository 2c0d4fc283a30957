import { AsyncLocalStorage } from "node:async_hooks";

/**
 * One SQLite connection serves every request of a process, and its transactions are the
 * connection's, not a caller's: while one action's transaction is open and awaiting, another
 * action's statements on the same connection would run inside it (and see, or be rolled back with,
 * its uncommitted rows). So a connection runs one transaction at a time: the lock below, taken
 * before `BEGIN` and given back after `COMMIT`/`ROLLBACK`, first come first served.
 *
 * A caller that already holds the lock (a write inside a write, the import's open batch) must not
 * wait for itself: which async call chain holds it is remembered in an AsyncLocalStorage, so
 * `holds(key)` is true in the holder's continuations and in nothing else. Work that is synchronous
 * (`withLockSync`) holds the lock for one synchronous stretch instead, with no AsyncLocalStorage:
 * nothing else runs until it ends.
 */
export class ConnectionLock {
  private held = false;
  /** Whether the holder is synchronous work, running now (`holdDuring`). */
  private stretch = false;
  private readonly waiters: (() => void)[] = [];

  /** Take the lock: at once (no tick) when it is free, else after the callers before this one. */
  acquire(): Promise<void> | undefined {
    if (!this.held) {
      this.held = true;
      return undefined;
    }
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** Hand the lock to the next waiter, or free it. */
  release(): void {
    const next = this.waiters.shift();
    if (next) next();
    else this.held = false;
  }

  /** Run synchronous `work` as the lock's holder (the caller has taken it), then release it. */
  holdDuring<T>(work: () => T): T {
    this.stretch = true;
    try {
      return work();
    } finally {
      this.stretch = false;
      this.release();
    }
  }

  get busy(): boolean {
    return this.held;
  }

  /** Whether synchronous work holds the lock: then whatever runs now runs inside it. */
  get heldSynchronously(): boolean {
    return this.stretch;
  }
}

const holders = new AsyncLocalStorage<ReadonlySet<object>>();
const locks = new WeakMap<object, ConnectionLock>();

function lockOf(key: object): ConnectionLock {
  let lock = locks.get(key);
  if (!lock) {
    lock = new ConnectionLock();
    locks.set(key, lock);
  }
  return lock;
}

/** Whether the current async call chain holds `key`'s lock. */
export function holds(key: object): boolean {
  return (locks.get(key)?.heldSynchronously ?? false) || (holders.getStore()?.has(key) ?? false);
}

/**
 * Run `work` holding `key`'s lock (re-entrant: a holder runs `work` at once). The lock is released
 * when `work`'s promise settles, however it settles.
 */
export async function withLock<T>(key: object, work: () => T | Promise<T>): Promise<T> {
  if (holds(key)) return work();
  const lock = lockOf(key);
  const wait = lock.acquire();
  if (wait) await wait;
  try {
    const outer = holders.getStore();
    const inner = new Set(outer);
    inner.add(key);
    return await holders.run(inner, work);
  } finally {
    lock.release();
  }
}

/**
 * Run `work`, which must be synchronous, holding `key`'s lock: at once (returning its value) when
 * the lock is free or this chain holds it, else once the callers before it are done (a promise).
 * While `work` runs nothing else can, so the lock is held for exactly that stretch, marked on the
 * lock rather than in the AsyncLocalStorage: `holds(key)` is true inside it. Once the
 * AsyncLocalStorage has run, Node 20 runs a hook on every promise of the process; work that never
 * awaits need not pay for it.
 */
export function withLockSync<T>(key: object, work: () => T): T | Promise<T> {
  if (holds(key)) return work();
  const lock = lockOf(key);
  const wait = lock.acquire();
  return wait ? wait.then(() => lock.holdDuring(work)) : lock.holdDuring(work);
}

/**
 * Whether a statement on `key`'s connection must wait for the lock before it runs: another call
 * chain holds it (its transaction is open), and the statement would otherwise run inside it, see
 * its uncommitted rows, and be kept or rolled back with it.
 */
export function mustWait(key: object): boolean {
  return (locks.get(key)?.busy ?? false) && !holds(key);
}
