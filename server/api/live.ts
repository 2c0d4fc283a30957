import type { Db } from "@/db/client";
import { latestEventId } from "@/server/services/events/list";

const POLL_MS = 40;

/**
 * One poller per process: while anyone listens, it checks the newest event id every 40 ms and
 * wakes the listeners when it grew — whichever process wrote the row (this server, a CLI in local
 * mode, an importer). Listeners then read only the rows after their own last id.
 */
class EventTail {
  private listeners = new Set<() => void>();
  private timer: NodeJS.Timeout | null = null;
  private last = 0;

  constructor(private readonly db: Db) {}

  /** Resolves when new events may exist, or when `signal` aborts. */
  waitForNew(signal: AbortSignal | undefined): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        this.listeners.delete(done);
        signal?.removeEventListener("abort", done);
        if (this.listeners.size === 0) this.stop();
        resolve();
      };
      if (signal?.aborted) return resolve();
      signal?.addEventListener("abort", done, { once: true });
      this.listeners.add(done);
      this.start();
    });
  }

  private start(): void {
    if (this.timer) return;
    this.last = latestEventId(this.db);
    this.timer = setInterval(() => {
      const latest = latestEventId(this.db);
      if (latest === this.last) return;
      this.last = latest;
      for (const wake of [...this.listeners]) wake();
    }, POLL_MS);
    this.timer.unref();
  }

  private stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }
}

const tails = new WeakMap<Db, EventTail>();

export function eventTail(db: Db): EventTail {
  let tail = tails.get(db);
  if (!tail) {
    tail = new EventTail(db);
    tails.set(db, tail);
  }
  return tail;
}
