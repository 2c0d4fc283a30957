/**
 * A tRPC subscription over server-sent events, read from a plain HTTP response (Node 20 has no EventSource):
 * the remote `events --follow`. It parses the text/event-stream as the HTML standard says, turns
 * each message's data back into values with superjson (as tRPC's own client does), and after a
 * dropped connection reconnects with the last event id it saw (`Last-Event-ID`), so the server's
 * `tracked()` ids resume the stream with no gap and no duplicate.
 */
import { TRPCClientError } from "@trpc/client";
import superjson from "superjson";
import { type HttpRequest, type HttpResponse, request } from "./http";

/** One dispatched event: its type (`message` unless named), its data lines joined, the last event id. */
export interface SseMessage {
  event: string;
  data: string;
  id: string | null;
}

/**
 * An incremental text/event-stream parser (https://html.spec.whatwg.org/multipage/server-sent-events.html):
 * feed it chunks cut anywhere; it returns the events each chunk completed. Lines end in LF, CR or
 * CRLF; `:` lines are comments; the id persists across events until the stream sets another.
 */
export class SseParser {
  private buffer = "";
  private lastId: string | null = null;
  private event = "";
  private data: string[] = [];
  private hasData = false;
  /** A chunk that ended in CR: an LF starting the next chunk belongs to the same line break. */
  private pendingCr = false;

  push(chunk: string): SseMessage[] {
    let text = chunk;
    if (this.pendingCr && text.startsWith("\n")) text = text.slice(1);
    this.pendingCr = false;
    this.buffer += text;
    const out: SseMessage[] = [];
    for (;;) {
      const match = /\r\n|\r|\n/.exec(this.buffer);
      if (!match) break;
      // A CR at the very end may be the first half of a CRLF split across chunks.
      if (match[0] === "\r" && match.index === this.buffer.length - 1) this.pendingCr = true;
      const line = this.buffer.slice(0, match.index);
      this.buffer = this.buffer.slice(match.index + match[0].length);
      const message = this.line(line);
      if (message) out.push(message);
    }
    return out;
  }

  private line(line: string): SseMessage | null {
    if (line === "") return this.dispatch();
    if (line.startsWith(":")) return null;
    const colon = line.indexOf(":");
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "event") this.event = value;
    else if (field === "data") {
      this.data.push(value);
      this.hasData = true;
    } else if (field === "id" && !value.includes("\0")) this.lastId = value;
    return null;
  }

  private dispatch(): SseMessage | null {
    const message = this.hasData ? { event: this.event || "message", data: this.data.join("\n"), id: this.lastId } : null;
    this.event = "";
    this.data = [];
    this.hasData = false;
    return message;
  }
}

export interface SubscribeOptions {
  /** The tRPC endpoint, e.g. http://127.0.0.1:3000/api/trpc. */
  url: string;
  /** The subscription procedure, e.g. events.stream. */
  path: string;
  input?: unknown;
  headers?: Record<string, string>;
  /** Resume after this event id (sent as Last-Event-ID, which tRPC hands the procedure as `lastEventId`). */
  lastEventId?: string | null;
  signal: AbortSignal;
  /** Wait before reconnecting after a drop: starts here, doubles up to `maxRetryMs`. */
  retryMs?: number;
  maxRetryMs?: number;
  /** Told when a connection drops (and a reconnect follows) and when a reconnect succeeds. */
  onConnection?: (change: { state: "lost"; error: unknown; lastEventId: string | null } | { state: "restored"; lastEventId: string | null }) => void;
  /** The HTTP client (default: ./http's, over node:http). */
  request?: HttpRequest;
}

export interface SubscriptionEvent<T> {
  id: string | null;
  data: T;
}

/** The stream closed before its `return` event: the connection dropped, so reconnect. */
class ConnectionDropped extends Error {}

/**
 * Yields the subscription's data until the server ends it (`return`), `signal` aborts, or the
 * server refuses it (a `serialized-error` event or an error response: thrown as TRPCClientError
 * with the error's data, so the rule and code reach the caller). A connection that drops after it
 * was established is retried forever with the last id; one that never connects is thrown as
 * unreachable.
 */
export async function* subscribe<T>(options: SubscribeOptions): AsyncGenerator<SubscriptionEvent<T>, void, undefined> {
  const send = options.request ?? request;
  const base = options.retryMs ?? 250;
  const max = options.maxRetryMs ?? 5_000;
  let lastEventId = options.lastEventId ?? null;
  let everConnected = false;
  let lost = false;
  let delay = base;
  const query = options.input === undefined ? "" : `?input=${encodeURIComponent(JSON.stringify(superjson.serialize(options.input)))}`;
  const url = `${options.url.replace(/\/$/, "")}/${options.path}${query}`;

  while (!options.signal.aborted) {
    try {
      const response = await send(url, {
        headers: { accept: "text/event-stream", ...options.headers, ...(lastEventId === null ? {} : { "last-event-id": lastEventId }) },
        signal: options.signal,
      });
      if (!response.ok || !response.headers.get("content-type")?.includes("text/event-stream")) throw await refusal(response);
      const parser = new SseParser();
      const decoder = new TextDecoder();
      const chunks = response.body[Symbol.asyncIterator]();
      try {
        for (;;) {
          const chunk = await chunks.next();
          if (chunk.done) throw new ConnectionDropped("the server closed the stream");
          for (const message of parser.push(decoder.decode(chunk.value, { stream: true }))) {
            if (message.event === "connected") {
              if (lost) options.onConnection?.({ state: "restored", lastEventId });
              everConnected = true;
              lost = false;
              delay = base;
            } else if (message.event === "return") return;
            else if (message.event === "serialized-error") throw TRPCClientError.from({ error: superjson.deserialize(JSON.parse(message.data)) });
            else if (message.event === "message") {
              const data = superjson.deserialize<T>(JSON.parse(message.data));
              if (message.id) lastEventId = message.id;
              yield { id: message.id, data };
            }
            // `ping` and anything else: nothing to do.
          }
        }
      } finally {
        await chunks.return?.().catch(() => undefined);
      }
    } catch (error) {
      if (options.signal.aborted) return;
      if (error instanceof TRPCClientError && error.data) throw error;
      if (!everConnected)
        throw error instanceof TRPCClientError
          ? error
          : new TRPCClientError(`${(error as Error).message ?? String(error)} (${options.url})`, { cause: error as Error });
      if (!lost) options.onConnection?.({ state: "lost", error, lastEventId });
      lost = true;
      await sleep(delay, options.signal);
      delay = Math.min(delay * 2, max);
    }
  }
}

/** An error response instead of a stream: tRPC's JSON error (with its code and rule) when it is one. */
async function refusal(response: HttpResponse): Promise<Error> {
  const text = await response.text().catch(() => "");
  try {
    const body = JSON.parse(text) as { error?: unknown };
    if (body.error) return TRPCClientError.from({ error: superjson.deserialize(body.error as Parameters<typeof superjson.deserialize>[0]) });
  } catch {
    // Not JSON: fall through.
  }
  return new TRPCClientError(`HTTP ${response.status} ${response.statusText} instead of an event stream`);
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
    function done() {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
  });
}
