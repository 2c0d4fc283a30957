// flake-risks time: when a delivery arrived (kept for failure messages), and the deadline of a hang guard whose condition is awaited
// flake-risks wait: the poll interval of a loop that awaits a condition
import http from "node:http";
import type { AddressInfo } from "node:net";

export interface Received {
  headers: Record<string, string>;
  body: string;
  at: number;
}

/**
 * A real HTTP receiver for webhook tests: records every POST; answers `status` (200 unless set),
 * or holds the request open while `hold` is set. `listen(port)` can bring it back on the same port
 * after `close()` (a receiver that was down).
 */
export class WebhookReceiver {
  received: Received[] = [];
  status = 200;
  hold = false;
  private server: http.Server | null = null;
  private held: http.ServerResponse[] = [];
  port = 0;

  async listen(port = 0): Promise<this> {
    const server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (chunk: Buffer) => chunks.push(chunk));
      req.on("end", () => {
        const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)]));
        this.received.push({ headers, body: Buffer.concat(chunks).toString("utf8"), at: Date.now() });
        if (this.hold) this.held.push(res);
        else res.writeHead(this.status).end("ok");
      });
    });
    await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
    this.server = server;
    this.port = (server.address() as AddressInfo).port;
    return this;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}/hook`;
  }

  /** Bodies parsed, in arrival order. */
  json<T = { type: string; data: Record<string, unknown> }>(): T[] {
    return this.received.map((r) => JSON.parse(r.body) as T);
  }

  async close(): Promise<void> {
    for (const res of this.held.splice(0)) res.destroy();
    const server = this.server;
    this.server = null;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

/** Resolves once `check` returns a value other than undefined/false, polling every 20 ms; fails after `timeoutMs`. */
export async function waitFor<T>(check: () => T | undefined | false | Promise<T | undefined | false>, timeoutMs = 5_000, what = "the condition"): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
