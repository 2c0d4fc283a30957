/**
 * Analytics overview (all time, all sessions) on a cold cache (the engine empties it: lib/engine.ts), and the stall it causes to a
 * cheap request sent to the same server while it runs: the slowest `session.get` over HTTP during
 * each overview, minus its idle median (the target), beside its control (the same statistic with
 * nothing running). The event loop's longest block during an in-process overview is a diagnostic.
 */
import { sql } from "drizzle-orm";
import { closeLedger, openLedger } from "@/db/client";
import { rawGet } from "@/db/query";
import { type BenchContext, callerOn } from "../lib/context";
import { HttpClient } from "../lib/http";
import { median, now, sleep, summarize, timeAsync } from "../lib/stats";

/** Send cheap requests one after another until `work` settles; the slowest of them. */
async function whileRunning(cheap: () => Promise<unknown>, work: Promise<unknown>): Promise<{ slowest: number; count: number; workMs: number }> {
  let done = false;
  const started = now();
  let workMs = 0;
  const finished = work.then(() => {
    workMs = now() - started;
    done = true;
  });
  let slowest = 0;
  let count = 0;
  while (!done) {
    slowest = Math.max(slowest, await timeAsync(cheap));
    count += 1;
  }
  await finished;
  return { slowest, count, workMs };
}

/** The longest gap between turns of a 1 ms interval timer while `work` runs. */
async function longestBlockDuring(work: () => Promise<unknown>): Promise<number> {
  let last = now();
  let longest = 0;
  const timer = setInterval(() => {
    const t = now();
    longest = Math.max(longest, t - last);
    last = t;
  }, 1);
  try {
    await work();
    longest = Math.max(longest, now() - last);
  } finally {
    clearInterval(timer);
  }
  return longest;
}

export async function measureAnalyticsColdAndStall(ctx: BenchContext): Promise<void> {
  const heavy = new HttpClient(ctx.server.url, { token: ctx.tokens.viewer });
  const light = new HttpClient(ctx.server.url, { token: ctx.tokens.viewer });
  const anySession = (await rawGet<{ id: string }>(ctx.local, sql`SELECT id FROM sessions ORDER BY started_at DESC LIMIT 1`)).id;
  const cheap = () => light.query("session.get", { id: anySession });
  try {
    // The cheap request's own latency, with nothing else running.
    for (let i = 0; i < 5; i++) await cheap();
    const baseline: number[] = [];
    for (let i = 0; i < 30; i++) baseline.push(await timeAsync(cheap));
    const base = median(baseline);

    // Warm: the stall a warm analytics call causes.
    await heavy.query("analytics.overview", {});
    const stalls: number[] = [];
    const heavyMs: number[] = [];
    const SAMPLES = 40; // a nearest-rank p95 of 40 is the third slowest
    for (let r = 0; r < SAMPLES; r++) {
      const { slowest, workMs } = await whileRunning(cheap, heavy.query("analytics.overview", {}));
      stalls.push(Math.max(0, slowest - base));
      heavyMs.push(workMs);
    }
    // Control: the same statistic with nothing else running, over a timer as long as a typical
    // analytics call: the slowest of ~10 cheap requests is slower than their median by itself.
    const control: number[] = [];
    const span = median(heavyMs);
    for (let r = 0; r < SAMPLES; r++) {
      const { slowest } = await whileRunning(cheap, sleep(span));
      control.push(Math.max(0, slowest - base));
    }

    // The overview's own share of a stall: the longest the event loop went without a turn while
    // an in-process overview ran (a 1 ms interval timer that notes its longest gap), on the same
    // connection kind the server uses. A request arriving then waits at most this long for it.
    const blocks: number[] = [];
    const caller = callerOn(ctx.local);
    await caller.analytics.overview({});
    for (let r = 0; r < ctx.reps(40, 5); r++) blocks.push(await longestBlockDuring(() => caller.analytics.overview({})));

    // Cold: drop the file cache, then time the call on a fresh connection (in-process) and over HTTP.
    const cold: number[] = [];
    const coldHttp: number[] = [];
    const coldStalls: number[] = [];
    let how: string = "";
    for (let r = 0; r < ctx.reps(3, 1); r++) {
      how = await ctx.engine.dropCaches();
      const fresh = await openLedger(ctx.db, { migrate: false });
      try {
        cold.push(await timeAsync(() => callerOn(fresh).analytics.overview({})));
      } finally {
        await closeLedger(fresh);
      }
      await ctx.engine.dropCaches();
      const run = await whileRunning(cheap, heavy.query("analytics.overview", {}));
      coldHttp.push(run.workMs);
      coldStalls.push(Math.max(0, run.slowest - base));
    }
    ctx.rec.add({
      id: "api.analytics.cold.http",
      measurement: "HTTP: analytics overview, cold file cache",
      unit: "ms",
      summary: summarize(coldHttp),
      target: { stat: "p95", op: "<=", value: 1000 },
      notes: [how, "one HTTP request (keep-alive, viewer token) to the running server, timed by the client"],
    });
    ctx.rec.add({
      id: "api.analytics.cold.server",
      measurement: "  diagnostic, in-process: analytics overview, cold file cache",
      unit: "ms",
      summary: summarize(cold),
      target: null,
      notes: ["a fresh connection in the bench's process, after the cache was dropped"],
    });
    ctx.rec.add({
      id: "api.analytics.stall.http",
      measurement: "Stall: slowest session.get over HTTP during analytics, minus its idle median",
      unit: "ms",
      summary: summarize(stalls),
      target: { stat: "p95", op: "<=", value: 20 },
      notes: [
        `one sample per warm analytics call (all time) on the server: the slowest of the session.get requests a second client sends back to back meanwhile (keep-alive, token), minus their idle median (${base.toFixed(2)} ms); on a cold cache: ${coldStalls.map((s) => s.toFixed(0)).join(", ")} ms`,
      ],
      extra: { baselineMedianMs: base, coldStallsMs: coldStalls },
    });
    ctx.rec.add({
      id: "api.analytics.stall.control",
      measurement: "  control: the same statistic with nothing running",
      unit: "ms",
      summary: summarize(control),
      target: null,
      notes: [
        `slowest session.get over ${span.toFixed(0)} ms (a warm analytics call's median over HTTP) with no analytics running, minus the same idle median: the statistic's own noise (scheduling on 2 cores shared with the bench and V8's helper threads)`,
      ],
    });
    ctx.rec.add({
      id: "api.analytics.stall",
      measurement: "  diagnostic, in-process: longest event-loop block during an analytics overview",
      unit: "ms",
      summary: summarize(blocks),
      target: null,
      notes: ["the longest gap between turns of a 1 ms interval timer while an in-process overview (all time, warm) runs in the bench's own process"],
    });
  } finally {
    heavy.close();
    light.close();
  }
}
