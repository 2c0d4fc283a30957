import type { Db } from "@/db/client";
import { latestEventId } from "@/server/services/events/list";

const POLL_MS = 40;

/**
 * One poller per process: while anyone listens, it reads the newest event id every 40 ms and wakes
 * each listener whose last seen id is behind it — whichever process wrote the row (this server, a
 * CLI in local mode, an importer). Comparing with each listener's own last id, rather than with
 * the previous poll, means an event written between a listener's read and its wait is never missed.
 */
class EventTail {
  private listeners = new Map<() => void, number>();
  private timer: NodeJS.Timeout | null = null;
  private chains = 0;

  constructor(private readonly db: Db) {}

  /** Resolves once an event newer than `afterId` exists, or when `signal` aborts; rejects if the database cannot be read. */
  async waitForNew(afterId: number, signal: AbortSignal | undefined): Promise<void> {
    if (signal?.aborted || (await latestEventId(this.db)) > afterId) return;
    return new Promise((resolve) => {
      const done = () => {
        this.listeners.delete(done);
        signal?.removeEventListener("abort", done);
        if (this.listeners.size === 0) this.stop();
        resolve();
      };
      if (signal?.aborted) return resolve();
      signal?.addEventListener("abort", done, { once: true });
      this.listeners.set(done, afterId);
      this.start();
    });
  }

  /** Polls one after another (a timeout chain, not an interval): a slow read never overlaps the next. */
  private start(): void {
    if (this.timer) return;
    // A chain stopped while its poll was reading must not go on beside the chain a new listener starts.
    const chain = ++this.chains;
    const poll = async () => {
      try {
        const latest = await latestEventId(this.db);
        for (const [wake, afterId] of [...this.listeners]) if (latest > afterId) wake();
      } catch (error) {
        // A read that failed (a closed database at shutdown, a busy disk): the next poll tries again.
        console.error("proofgate: the live event poll could not read the newest event id", error);
      }
      if (chain !== this.chains) return;
      if (this.listeners.size > 0) schedule();
      else this.timer = null;
    };
    const schedule = () => {
      this.timer = setTimeout(() => void poll(), POLL_MS);
      this.timer.unref();
    };
    schedule();
  }

  private stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.chains += 1;
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
