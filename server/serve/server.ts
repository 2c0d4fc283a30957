/**
 * `proofgate serve`: the production server. One Node HTTP server per process answers the agents'
 * endpoints itself (api-routes.ts) and hands everything else to Next's request handler; with
 * `workers` > 1, node:cluster forks that many processes on the one port and the one SQLite file
 * (WAL lets readers run beside the writer; db/client.ts's fair write lock queues the writers), and
 * this process only supervises them.
 */
import cluster from "node:cluster";
import { createRequire } from "node:module";
import type createNextServer from "next";

export interface ServeOptions {
  /** The checkout with the production build (.next). */
  root: string;
  port: number;
  host: string;
  /** Processes that serve; 1 serves from this process. */
  workers: number;
  /** Send /api/trpc, /api/mcp and /api/hooks through Next's router as well (only to measure what the direct path saves). */
  apiViaNext: boolean;
}

/** How long requests in flight may finish after SIGINT or SIGTERM. */
const SHUTDOWN_GRACE_MS = 2_000;

/** How many processes serve by default: PROOFGATE_WORKERS, else 1. */
export function defaultWorkers(): number {
  const raw = process.env.PROOFGATE_WORKERS;
  if (raw === undefined || raw === "") return 1;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > 64) throw new Error(`PROOFGATE_WORKERS: must be a whole number from 1 to 64 (got "${raw}")`);
  return n;
}

/**
 * Serve until SIGINT or SIGTERM, then stop accepting, let requests in flight finish (live event
 * streams never end on their own: they are cut after a grace period, and their clients reconnect
 * to the next server), and resolve. `onReady` runs once every process listens.
 */
export async function serve(options: ServeOptions, onReady: () => void): Promise<void> {
  if (options.workers > 1 && cluster.isPrimary) return supervise(options, onReady);
  const server = await listen(options);
  if (cluster.isWorker) process.send?.({ proofgate: "listening" });
  else onReady();
  await new Promise<void>((resolve) => {
    let stopping = false;
    // Kept (not once): Ctrl-C reaches a worker twice, from the terminal and from the primary.
    const stop = () => {
      if (stopping) return;
      stopping = true;
      server.close(() => {
        // A worker's channel to the primary keeps it alive once its server has closed: let it go, so
        // the worker exits by itself (code 0) and the primary sees a clean stop.
        if (cluster.isWorker) cluster.worker?.disconnect();
        resolve();
      });
      server.closeIdleConnections();
      setTimeout(() => server.closeAllConnections(), SHUTDOWN_GRACE_MS).unref();
    };
    process.on("SIGINT", stop);
    process.on("SIGTERM", stop);
  });
}

/** This process's HTTP server, listening. */
async function listen(options: ServeOptions) {
  // require, not import(): the bundled CLI runs from V8's code cache, where Node 20 loses import()'s loader.
  const require = createRequire(import.meta.url);
  const next = require("next") as typeof createNextServer;
  const app = next({ dev: false, dir: options.root, hostname: options.host, port: options.port });
  await app.prepare();
  const handle = app.getRequestHandler();
  const { nodeApiHandler } = await import("./api-routes");
  const { getDb, openSharedLedger } = await import("@/db/client");
  const { getAuth } = await import("@/server/auth/instance");
  // This bundle's own handle on the ledger (Next's bundle opens its own in instrumentation.ts): on
  // PostgreSQL, connected and migrated before the first request.
  await openSharedLedger();
  const api = nodeApiHandler({ db: getDb, auth: getAuth });
  const { staticAssets } = await import("./static-assets");
  const assets = staticAssets(options.root);
  // node:http (and the net, stream and crypto modules under it) loads only for `serve`, not on every call.
  const http = process.getBuiltinModule("node:http");
  const { clientAddress, parseTrustedProxies } = await import("./client-address");
  const proxies = parseTrustedProxies(process.env.PROOFGATE_TRUSTED_PROXIES);
  const { randomBytes } = process.getBuiltinModule("node:crypto");
  const { securityHeaders, securityHeadersConfig } = await import("./security-headers");
  const security = securityHeadersConfig(process.env);
  const { hostRule, refusedHost } = await import("./host-allow");
  const hosts = hostRule(process.env.PROOFGATE_URL);
  const server = http.createServer((req, res) => {
    // First, so every response carries them, the 421 below included. Next takes the
    // scripts' nonce from the request's copy of the policy (the client's own copy is replaced).
    const nonce = randomBytes(16).toString("base64");
    const headers = securityHeaders(security, nonce);
    req.headers["content-security-policy"] = headers["Content-Security-Policy"];
    for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
    // Before authentication and the first-admin setup: a name that is not this server's is a page
    // elsewhere that pointed its own name at this address (DNS rebinding).
    const misdirected = refusedHost(req.headers.host, hosts);
    if (misdirected) {
      res.writeHead(421, { "content-type": "text/plain; charset=utf-8", connection: "close" }).end(`421 Misdirected Request: ${misdirected}\n`);
      return;
    }
    // Before anything reads it (better-auth's sign-in rate limit keys on it): the client's own
    // X-Forwarded-For is believed only from a trusted proxy.
    const client = clientAddress(req.socket.remoteAddress, [req.headers["x-forwarded-for"] ?? []].flat().join(","), proxies);
    req.headers["x-forwarded-for"] = client;
    req.headers["x-real-ip"] = client;
    if ((options.apiViaNext || !api(req, res)) && !assets?.(req, res)) void handle(req, res);
  });
  await new Promise<void>((resolve, reject) => server.once("error", reject).listen(options.port, options.host, resolve));
  return server;
}

/** The primary of a cluster: fork the workers, replace one that dies, stop them all on a signal. */
function supervise(options: ServeOptions, onReady: () => void): Promise<void> {
  return new Promise((resolve, reject) => {
    /** Workers that did not stop by themselves within the grace period (killed), or failed as they stopped. */
    const unclean: string[] = [];
    let stopping = false;
    let ready = 0;
    const live = new Set<number>();
    const fork = () => {
      const worker = cluster.fork({ PROOFGATE_WORKER: "1" });
      live.add(worker.id);
      worker.on("message", (message: { proofgate?: string }) => {
        if (message?.proofgate === "listening" && ++ready === options.workers) onReady();
      });
    };
    cluster.on("exit", (worker, code, signal) => {
      live.delete(worker.id);
      if (stopping) {
        if (code !== 0 || signal) unclean.push(`${worker.process.pid} (${signal ?? `exit code ${code}`})`);
        if (live.size > 0) return;
        if (unclean.length === 0) resolve();
        else reject(new Error(`worker processes did not stop cleanly: ${unclean.join(", ")}`));
        return;
      }
      console.error(`proofgate serve: worker ${worker.process.pid} exited (${signal ?? code}); starting another`);
      fork();
    });
    for (let i = 0; i < options.workers; i++) fork();
    const stop = (signal: NodeJS.Signals) => {
      if (stopping) return;
      stopping = true;
      if (live.size === 0) {
        resolve();
        return;
      }
      for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill(signal);
      // A worker that does not finish within the grace period (and a second's margin) is killed.
      setTimeout(() => {
        for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill("SIGKILL");
      }, SHUTDOWN_GRACE_MS + 1_000).unref();
    };
    process.on("SIGINT", () => stop("SIGINT"));
    process.on("SIGTERM", () => stop("SIGTERM"));
  });
}
