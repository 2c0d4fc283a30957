/**
 * A live event refreshes what is on screen (app/live/refresh.ts): including a query whose fetch was
 * already under way when the event came, whose answer may predate the write.
 */
// flake-risks wait: yields one macrotask so the refresh scheduled on it runs; no duration involved
import { QueryClient, QueryObserver } from "@tanstack/react-query";
import { afterEach, describe, expect, it } from "vitest";
import { refreshAfterEvent } from "./refresh";

/** A ledger value, and a fetch of it the test finishes when it likes (a slow request). */
function slowSource(initial: string) {
  let value = initial;
  const pending: (() => void)[] = [];
  let fetches = 0;
  return {
    write: (next: string) => void (value = next),
    fetches: () => fetches,
    /** Reads the value now, answers when `answerAll()` is called. */
    queryFn: () => {
      fetches += 1;
      const read = value;
      return new Promise<string>((resolve) => pending.push(() => resolve(read)));
    },
    answerAll: async () => {
      while (pending.length) {
        pending.shift()!();
        await new Promise((resolve) => setTimeout(resolve, 0));
      }
    },
  };
}

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

function onScreen(source: ReturnType<typeof slowSource>) {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false, staleTime: Number.POSITIVE_INFINITY } } });
  // Observed, as a component on screen observes it: an "active" query.
  const observer = new QueryObserver(client, { queryKey: ["board"], queryFn: source.queryFn });
  const unsubscribe = observer.subscribe(() => undefined);
  cleanups.push(() => (unsubscribe(), client.clear()));
  return { client, data: () => client.getQueryData<string>(["board"]) };
}

describe("a live event", () => {
  it("fetches a query on screen again, with the new data", async () => {
    const source = slowSource("claimed: 0");
    const page = onScreen(source);
    await source.answerAll();
    expect(page.data()).toBe("claimed: 0");
    source.write("claimed: 1");
    const refreshed = refreshAfterEvent(page.client);
    await source.answerAll();
    await refreshed;
    expect(page.data()).toBe("claimed: 1");
    expect(source.fetches()).toBe(2);
  });

  it("fetches once more a query that was already fetching when the write came: its answer read the ledger before it", async () => {
    const source = slowSource("claimed: 0");
    const page = onScreen(source);
    await source.answerAll();
    // A refetch under way (another event's, or the page's own) has read the ledger…
    const earlier = refreshAfterEvent(page.client);
    expect(source.fetches()).toBe(2);
    // …then the write lands and its event arrives while that fetch is still out.
    source.write("claimed: 1");
    const refreshed = refreshAfterEvent(page.client);
    await source.answerAll();
    await Promise.all([earlier, refreshed]);
    await source.answerAll();
    expect(page.data()).toBe("claimed: 1");
    expect(page.client.getQueryState(["board"])?.isInvalidated).toBe(false);
  });

  it("does not restart a fetch under way (a slow query is never starved by a stream of events)", async () => {
    const source = slowSource("v0");
    const page = onScreen(source);
    await source.answerAll();
    const runs = [refreshAfterEvent(page.client), refreshAfterEvent(page.client), refreshAfterEvent(page.client)];
    // The three events share the one fetch under way; nothing was cancelled and started over.
    expect(source.fetches()).toBe(2);
    await source.answerAll();
    await Promise.all(runs);
    await source.answerAll();
    expect(page.data()).toBe("v0");
  });
});
