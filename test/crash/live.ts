// A live client on `events.stream`, as a dashboard tab or `proofgate events --follow` holds one: the
// CLI's SSE reader, which reconnects after a drop with the last event id it saw. It keeps every id
// exactly as delivered — no de-duplication here — so the checks see any gap or repeat.
// flake-risks time: hang guard: the condition itself is awaited; the deadline only turns a hang into a named failure
// flake-risks wait: the poll interval of a loop that awaits a condition
import { subscribe } from "@/server/cli/sse";
import type { EventRow } from "@/server/services/events/list";
import { sleep } from "./server";

export class LiveFollower {
  /** Every delivered event id, in delivery order. */
  readonly ids: number[] = [];
  /** Connections lost and restored. */
  drops = 0;
  restores = 0;
  readonly problems: string[] = [];
  private readonly abort = new AbortController();
  private running: Promise<void> = Promise.resolve();

  constructor(
    private readonly baseUrl: string,
    private readonly token: string,
    /** Start after this event id (0: from the first event). */
    readonly fromId: number,
  ) {}

  get lastId(): number {
    return this.ids.at(-1) ?? this.fromId;
  }

  start(): void {
    const stream = subscribe<EventRow>({
      url: `${this.baseUrl}/api/trpc`,
      path: "events.stream",
      input: {},
      headers: { authorization: `Bearer ${this.token}` },
      lastEventId: String(this.fromId),
      signal: this.abort.signal,
      retryMs: 50,
      maxRetryMs: 250,
      onConnection: (change) => {
        if (change.state === "lost") this.drops += 1;
        else this.restores += 1;
      },
    });
    this.running = (async () => {
      try {
        for await (const { id, data } of stream) {
          if (id !== String(data.id)) this.problems.push(`event ${data.id} arrived with SSE id ${id ?? "none"}`);
          this.ids.push(data.id);
        }
      } catch (error) {
        if (!this.abort.signal.aborted) this.problems.push(`the live stream failed: ${(error as Error).message}`);
      }
    })();
  }

  /** Wait until the stream has delivered `id` (or anything after it); false on timeout. */
  async waitFor(id: number, timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    while (this.lastId < id) {
      if (Date.now() > deadline) return false;
      await sleep(20);
    }
    return true;
  }

  async stop(): Promise<void> {
    this.abort.abort();
    await this.running;
  }
}
