/**
 * The API as agents and pages wait for it: each target is judged on HTTP round trips to the
 * production server, timed by the client (keep-alive, superjson, a viewer token's authentication
 * included). The same calls through tRPC's in-process caller (`createCaller`) on a connection to
 * the server's database file — the procedure's own time — are printed beside them as diagnostics.
 */
import { sql } from "drizzle-orm";
import { rawAll, rawGet } from "@/db/query";
import { type BenchContext, type Caller, callerOn, sample } from "../lib/context";
import { HttpClient } from "../lib/http";
import { summarize, timeAsync } from "../lib/stats";
import { COMPLETION_HISTORY_LIMIT } from "@/app/(dashboard)/sessions/[id]/limits";

const PAGE = 25; // the /sessions page's page size

interface Variant {
  name: string;
  input: Record<string, unknown>;
}

async function sessionListVariants(caller: Caller): Promise<Variant[]> {
  const day = 86_400_000;
  const variants: Variant[] = [
    { name: "newest", input: { limit: PAGE } },
    { name: "oldest", input: { limit: PAGE, order: "oldest" } },
    { name: "status=active", input: { limit: PAGE, status: "active" } },
    { name: "status=completed oldest", input: { limit: PAGE, status: "completed", order: "oldest" } },
    { name: "status=failed", input: { limit: PAGE, status: "failed" } },
    { name: "source=demo", input: { limit: PAGE, source: "demo" } },
    { name: "has blocked tasks", input: { limit: PAGE, hasBlocked: true } },
    { name: "search 'auth'", input: { limit: PAGE, search: "auth" } },
    { name: "search (no match)", input: { limit: PAGE, search: "zzz-no-such-session" } },
    { name: "started in the last 7 days", input: { limit: PAGE, startedFrom: new Date(Date.now() - 7 * day), startedTo: new Date() } },
    { name: "failed, has blocked, last 30 days", input: { limit: PAGE, status: "failed", hasBlocked: true, startedFrom: new Date(Date.now() - 30 * day) } },
  ];
  // A deep page: follow the cursor 20 pages in.
  let cursor: string | null = null;
  for (let i = 0; i < 19; i++) {
    const page: { nextCursor: string | null } = await caller.session.list({ limit: PAGE, cursor });
    if (!page.nextCursor) break;
    cursor = page.nextCursor;
  }
  if (cursor) variants.push({ name: "page 20 (keyset cursor)", input: { limit: PAGE, cursor } });
  return variants;
}

/** Run each variant `reps` times, interleaved, in-process and over HTTP. */
async function measureVariants(
  caller: Caller,
  client: HttpClient,
  variants: Variant[],
  reps: number,
  inProcess: (input: Record<string, unknown>) => Promise<unknown>,
  overHttp: (input: Record<string, unknown>) => Promise<unknown>,
) {
  const server: number[] = [];
  const http: number[] = [];
  const perVariant: Record<string, { serverP95: number; httpP95: number }> = {};
  for (const v of variants) {
    await inProcess(v.input);
    await overHttp(v.input);
  }
  const byVariant = new Map<string, { s: number[]; h: number[] }>();
  for (let r = 0; r < reps; r++) {
    for (const v of variants) {
      const s = await timeAsync(() => inProcess(v.input));
      const h = await timeAsync(() => overHttp(v.input));
      server.push(s);
      http.push(h);
      const entry = byVariant.get(v.name) ?? { s: [], h: [] };
      entry.s.push(s);
      entry.h.push(h);
      byVariant.set(v.name, entry);
    }
  }
  for (const [name, e] of byVariant) perVariant[name] = { serverP95: round(summarize(e.s).p95), httpP95: round(summarize(e.h).p95) };
  void caller;
  return { server, http, perVariant };
}

const round = (x: number) => Math.round(x * 100) / 100;

function worst(perVariant: Record<string, { serverP95: number; httpP95: number }>, key: "serverP95" | "httpP95"): string {
  const [name, v] = Object.entries(perVariant).sort((a, b) => b[1][key] - a[1][key])[0] ?? ["none", { serverP95: NaN, httpP95: NaN }];
  return `slowest variant: ${name} (p95 ${v[key]} ms)`;
}

/** Round trips a p95 is taken over, at least (a nearest-rank p95 of 40 is the third slowest). */
const MIN_SAMPLES = 40;
const HTTP_NOTE = "one HTTP request each, keep-alive, viewer token, timed by the client (request sent → whole body read)";

export async function measureApi(ctx: BenchContext): Promise<void> {
  const caller = callerOn(ctx.local);
  const client = new HttpClient(ctx.server.url, { token: ctx.tokens.viewer });
  const reps = ctx.reps(30, 8);
  /** Repetitions of each of `variants` so the p95 is over at least MIN_SAMPLES. */
  const repsFor = (variants: number) => Math.max(reps, Math.ceil(MIN_SAMPLES / variants));
  try {
    // Sessions list
    const variants = await sessionListVariants(caller);
    const list = await measureVariants(
      caller,
      client,
      variants,
      repsFor(variants.length),
      (input) => caller.session.list(input),
      (input) => client.query("session.list", input),
    );
    ctx.rec.add({
      id: "api.sessions_list.http",
      measurement: `HTTP: sessions list (${variants.length} filters/sorts/pages)`,
      unit: "ms",
      summary: summarize(list.http),
      target: { stat: "p95", op: "<=", value: 10 },
      notes: [HTTP_NOTE, worst(list.perVariant, "httpP95")],
      extra: { variants: list.perVariant },
    });
    ctx.rec.add({
      id: "api.sessions_list.server",
      measurement: "  diagnostic, in-process: sessions list",
      unit: "ms",
      summary: summarize(list.server),
      target: null,
      notes: ["in-process createCaller on the server's DB file (no HTTP, no serialisation)", worst(list.perVariant, "serverP95")],
    });

    // Approvals inbox: first page as the page asks for it, the second page, and the count.
    const first = await caller.task.inbox({ limit: 50 });
    const inboxVariants: Variant[] = [{ name: "first page", input: { limit: 50 } }];
    if (first.nextCursor) inboxVariants.push({ name: "second page", input: { limit: 50, cursor: first.nextCursor } });
    const someSession = first.items[0]?.session.id;
    if (someSession) inboxVariants.push({ name: "one session", input: { limit: 50, sessionId: someSession } });
    const inbox = await measureVariants(
      caller,
      client,
      inboxVariants,
      repsFor(inboxVariants.length),
      (input) => caller.task.inbox(input),
      (input) => client.query("task.inbox", input),
    );
    ctx.rec.add({
      id: "api.inbox.http",
      measurement: "HTTP: approvals inbox page (task.inbox)",
      unit: "ms",
      summary: summarize(inbox.http),
      target: { stat: "p95", op: "<=", value: 10 },
      notes: [HTTP_NOTE, `${inboxVariants.map((v) => v.name).join(", ")}; ${worst(inbox.perVariant, "httpP95")}`],
      extra: { variants: inbox.perVariant },
    });
    ctx.rec.add({
      id: "api.inbox.server",
      measurement: "  diagnostic, in-process: approvals inbox",
      unit: "ms",
      summary: summarize(inbox.server),
      target: null,
      notes: ["in-process createCaller on the server's DB file", worst(inbox.perVariant, "serverP95")],
    });

    // Session detail: everything /sessions/<id> asks the API for (its layout's and page's prefetches,
    // and the sections' own queries), in one request as the dashboard's batching client sends them.
    const ids = (await rawAll<{ id: string }>(ctx.local, sql`SELECT id FROM sessions ORDER BY id`)).map((r) => r.id);
    const biggest = (
      await rawGet<{ id: string } | undefined>(ctx.local, sql`SELECT session_id AS id FROM tasks GROUP BY session_id ORDER BY count(*) DESC LIMIT 1`)
    )?.id;
    const picks = sample(ids, Math.max(reps * 2, MIN_SAMPLES - 3));
    if (biggest) picks.push(biggest, biggest, biggest);
    const pageCalls = (id: string) =>
      [
        ["session.get", { id }],
        ["completion.preview", { sessionId: id }],
        ["completion.list", { sessionId: id, limit: COMPLETION_HISTORY_LIMIT }],
        ["task.board", { sessionId: id }],
        ["criteria.list", { sessionId: id }],
        ["runtime.activity", { sessionId: id }],
        ["log.sessionLearning", { sessionId: id }],
      ] as const;
    const firstView = (c: Caller, id: string) =>
      Promise.all([
        c.session.get({ id }),
        c.completion.preview({ sessionId: id }),
        c.completion.list({ sessionId: id, limit: COMPLETION_HISTORY_LIMIT }),
        c.task.board({ sessionId: id }),
        c.criteria.list({ sessionId: id }),
        c.runtime.activity({ sessionId: id }),
        c.log.sessionLearning({ sessionId: id }),
      ]);
    const firstViewHttp = (id: string) => client.batch(pageCalls(id));
    const detailServer: number[] = [];
    const detailHttp: number[] = [];
    await firstView(caller, picks[0]!);
    await firstViewHttp(picks[0]!);
    for (const id of picks) {
      detailServer.push(await timeAsync(() => firstView(caller, id)));
      detailHttp.push(await timeAsync(() => firstViewHttp(id)));
    }
    const procedures = pageCalls("x")
      .map(([p]) => p)
      .join(" + ");
    ctx.rec.add({
      id: "api.session_detail.http",
      measurement: "HTTP: session detail, everything the page needs in one batched request",
      unit: "ms",
      summary: summarize(detailHttp),
      target: { stat: "p95", op: "<=", value: 15 },
      notes: [
        `GET /api/trpc/<7 procedures>?batch=1 (tRPC's httpBatchLink format): ${procedures}; ${picks.length} sessions (random, and 3× the one with most tasks); keep-alive, viewer token`,
      ],
    });
    ctx.rec.add({
      id: "api.session_detail.server",
      measurement: "  diagnostic, in-process: session detail (the 7 calls in parallel)",
      unit: "ms",
      summary: summarize(detailServer),
      target: null,
    });

    // Analytics overview, all time, all sessions: warm.
    const warm: number[] = [];
    const warmHttp: number[] = [];
    await caller.analytics.overview({});
    await client.query("analytics.overview", {});
    for (let r = 0; r < MIN_SAMPLES; r++) {
      warm.push(await timeAsync(() => caller.analytics.overview({})));
      warmHttp.push(await timeAsync(() => client.query("analytics.overview", {})));
    }
    ctx.rec.add({
      id: "api.analytics.warm.http",
      measurement: "HTTP: analytics overview, all time (warm)",
      unit: "ms",
      summary: summarize(warmHttp),
      target: { stat: "p95", op: "<=", value: 50 },
      notes: [HTTP_NOTE],
    });
    ctx.rec.add({
      id: "api.analytics.warm.server",
      measurement: "  diagnostic, in-process: analytics overview (warm)",
      unit: "ms",
      summary: summarize(warm),
      target: null,
    });
  } finally {
    client.close();
  }
}
