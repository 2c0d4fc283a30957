/**
 * A plain tRPC-over-HTTP client for the bench: node:http with keep-alive (as a browser or a
 * long-running agent holds its connection), superjson on the wire like every Proofgate client.
 */
import http from "node:http";
import superjson from "superjson";
import { now } from "./stats";

export interface Credentials {
  token?: string;
  agent?: string;
  cookie?: string;
}

export interface CallResult<T> {
  ms: number;
  status: number;
  data: T;
}

export class TrpcHttpError extends Error {
  constructor(
    readonly status: number,
    readonly body: string,
    path: string,
  ) {
    super(`${path}: HTTP ${status} ${body.slice(0, 300)}`);
  }
}

export class HttpClient {
  readonly agent: http.Agent;

  constructor(
    readonly baseUrl: string,
    private readonly credentials: Credentials = {},
    maxSockets = 16,
  ) {
    this.agent = new http.Agent({ keepAlive: true, maxSockets });
  }

  private headers(extra: Record<string, string> = {}): Record<string, string> {
    const headers: Record<string, string> = { ...extra };
    if (this.credentials.token) headers.authorization = `Bearer ${this.credentials.token}`;
    if (this.credentials.agent) headers["x-proofgate-agent"] = this.credentials.agent;
    if (this.credentials.cookie) headers.cookie = this.credentials.cookie;
    return headers;
  }

  /** A raw request; resolves with the status and the whole body (the round trip includes reading it). */
  async raw(
    method: "GET" | "POST",
    pathAndQuery: string,
    body?: string,
    headers: Record<string, string> = {},
  ): Promise<{ ms: number; status: number; body: string; headers: http.IncomingHttpHeaders }> {
    try {
      return await this.once(method, pathAndQuery, body, headers);
    } catch (error) {
      // A kept-alive socket the server closed as idle just as it was reused: Node's documented
      // race (request.reusedSocket). The request never reached the server; send it again.
      if ((error as NodeJS.ErrnoException).code === "ECONNRESET" && (error as { reused?: boolean }).reused)
        return this.once(method, pathAndQuery, body, headers);
      throw error;
    }
  }

  private once(
    method: "GET" | "POST",
    pathAndQuery: string,
    body: string | undefined,
    headers: Record<string, string>,
  ): Promise<{ ms: number; status: number; body: string; headers: http.IncomingHttpHeaders }> {
    const started = now();
    return new Promise((resolve, reject) => {
      const req = http.request(
        `${this.baseUrl}${pathAndQuery}`,
        {
          method,
          agent: this.agent,
          headers: this.headers({
            ...headers,
            ...(body === undefined ? {} : { "content-type": "application/json", "content-length": String(Buffer.byteLength(body)) }),
          }),
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (c: Buffer) => chunks.push(c));
          res.on("end", () =>
            resolve({ ms: now() - started, status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8"), headers: res.headers }),
          );
          res.on("error", reject);
        },
      );
      req.on("error", (error) => reject(Object.assign(error, { reused: req.reusedSocket })));
      req.end(body);
    });
  }

  async query<T = unknown>(path: string, input?: unknown): Promise<CallResult<T>> {
    const q = input === undefined ? "" : `?input=${encodeURIComponent(JSON.stringify(superjson.serialize(input)))}`;
    return this.parse<T>(path, await this.raw("GET", `/api/trpc/${path}${q}`));
  }

  async mutate<T = unknown>(path: string, input: unknown): Promise<CallResult<T>> {
    return this.parse<T>(path, await this.raw("POST", `/api/trpc/${path}`, JSON.stringify(superjson.serialize(input))));
  }

  /**
   * Several queries in one HTTP request, as tRPC's httpBatchLink sends them (the dashboard's client
   * does): GET /api/trpc/a,b,c?batch=1&input={"0":…,"1":…}. Every call must succeed.
   */
  async batch(calls: readonly (readonly [path: string, input: unknown])[]): Promise<CallResult<unknown[]>> {
    const paths = calls.map(([p]) => p).join(",");
    const input = Object.fromEntries(calls.map(([, i], n) => [String(n), superjson.serialize(i)]));
    const res = await this.raw("GET", `/api/trpc/${paths}?batch=1&input=${encodeURIComponent(JSON.stringify(input))}`);
    if (res.status !== 200) throw new TrpcHttpError(res.status, res.body, paths);
    const parsed = JSON.parse(res.body) as { result: { data: Parameters<typeof superjson.deserialize>[0] } }[];
    if (parsed.length !== calls.length) throw new Error(`${paths}: ${parsed.length} results for ${calls.length} calls`);
    return { ms: res.ms, status: res.status, data: parsed.map((r) => superjson.deserialize(r.result.data)) };
  }

  private parse<T>(path: string, res: { ms: number; status: number; body: string }): CallResult<T> {
    if (res.status !== 200) throw new TrpcHttpError(res.status, res.body, path);
    const parsed = JSON.parse(res.body) as { result: { data: Parameters<typeof superjson.deserialize>[0] } };
    return { ms: res.ms, status: res.status, data: superjson.deserialize<T>(parsed.result.data) };
  }

  close(): void {
    this.agent.destroy();
  }
}
