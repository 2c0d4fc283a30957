/**
 * Writes over HTTP against the engine's own speed (engine-rates.ts), measured in the same run and
 * interleaved round by round: single task moves from 8 concurrent clients vs the engine committing
 * single-row transactions; log ingest in batches of 500 vs the engine inserting the same rows.
 */
import { sql } from "drizzle-orm";
import { rawGet } from "@/db/query";
import { type BenchContext, callerOn } from "../lib/context";
import { HttpClient } from "../lib/http";
import { treeCpuMs } from "../lib/proc";
import { median, now, summarize } from "../lib/stats";
import { type EngineRate, ingestRate, singleCommitRate } from "./engine-rates";

const OPERATOR = { principalId: "operator", principalKind: "operator", role: "admin", label: "orchestrator" } as const;
const PASSED = { verdict: "PASSED", checks: [{ name: "unit tests", passed: true }] } as const;

export async function measureTaskMoves(ctx: BenchContext): Promise<void> {
  const CLIENTS = 8;
  const rounds = ctx.reps(5, 3); // three rounds at least: a throughput is never judged on one
  const perClient = ctx.reps(20, 8);
  const sessionId = `bench_moves_${Date.now()}`;
  const admin = callerOn(ctx.local, OPERATOR);
  await admin.session.create({ id: sessionId, requirements: "Bench: task moves", mode: "parallel" });
  const keyOf = (round: number, client: number, i: number) => `m${round}_${client}_${i}`;
  for (let round = 0; round <= rounds; round++) {
    for (let c = 0; c < CLIENTS; c++)
      for (let i = 0; i < perClient; i++) await admin.task.create({ sessionId, key: keyOf(round, c, i), title: `Move ${round}/${c}/${i}` });
  }
  const created = (await rawGet<{ n: number }>(ctx.local, sql`SELECT count(*) AS n FROM tasks WHERE session_id = ${sessionId}`)).n;
  if (created !== (rounds + 1) * CLIENTS * perClient) throw new Error(`expected ${(rounds + 1) * CLIENTS * perClient} tasks, found ${created}`);

  const clients = Array.from({ length: CLIENTS }, (_, c) => ({
    agent: new HttpClient(ctx.server.url, { token: ctx.tokens.agent, agent: `developer_${c + 1}` }, 1),
    verifier: new HttpClient(ctx.server.url, { token: ctx.tokens.verifier, agent: `verifier_${c + 1}` }, 1),
    orchestrator: new HttpClient(ctx.server.url, { token: ctx.tokens.orchestrator, agent: "orchestrator" }, 1),
  }));
  const raw: EngineRate = await singleCommitRate(ctx, ctx.reps(5000, 2000));
  const httpRates: number[] = [];
  const rawRates: number[] = [];
  const ratios: number[] = [];
  const latencies: number[] = [];
  // Where a move's time goes, as CPU (robust to a busy machine, unlike a rate): the serving
  // processes' and this bench process's own (its 24 HTTP clients), per move, per round.
  const serverCpuPerMove: number[] = [];
  const clientCpuPerMove: number[] = [];
  try {
    const walk = async (round: number) => {
      let moves = 0;
      const started = now();
      const serverCpu = treeCpuMs(ctx.server.pid);
      const clientCpu = process.cpuUsage();
      await Promise.all(
        clients.map(async (client, c) => {
          for (let i = 0; i < perClient; i++) {
            const key = keyOf(round, c, i);
            const steps: [HttpClient, string, Record<string, unknown>][] = [
              [client.agent, "task.start", {}],
              [client.agent, "task.claim", { evidence: [`artifacts/${key}.txt`] }],
              [client.verifier, "task.verify", { proofpack: PASSED }],
              [client.orchestrator, "task.complete", {}],
            ];
            for (const [who, procedure, extra] of steps) {
              const result = await who.mutate(procedure, { sessionId, key, ...extra });
              latencies.push(result.ms);
              moves += 1;
            }
          }
        }),
      );
      const clientUsed = process.cpuUsage(clientCpu);
      serverCpuPerMove.push((treeCpuMs(ctx.server.pid) - serverCpu) / moves);
      clientCpuPerMove.push((clientUsed.user + clientUsed.system) / 1000 / moves);
      return moves / ((now() - started) / 1000);
    };
    await walk(0); // warm-up round: connections, prepared statements, the JIT
    await raw.round(0);
    serverCpuPerMove.length = 0; // the warm-up round's figures are not the steady state's
    clientCpuPerMove.length = 0;
    for (let round = 1; round <= rounds; round++) {
      const rawRate = await raw.round(round);
      const httpRate = await walk(round);
      rawRates.push(rawRate);
      httpRates.push(httpRate);
      ratios.push(httpRate / rawRate);
    }
  } finally {
    await raw.close();
    for (const c of clients) for (const h of Object.values(c)) h.close();
  }
  const ratio = median(ratios);
  ctx.rec.add({
    id: "writes.task_moves",
    measurement: "Single task moves over HTTP, 8 concurrent clients",
    unit: "moves/s",
    summary: summarize(httpRates),
    target: { stat: "median", op: ">=", value: 2000 },
    targetText: "≥ 2,000 moves/s",
    notes: [
      `ratio to ${raw.label} (same run, interleaved): ${(ratio * 100).toFixed(1)}% (raw median ${Math.round(median(rawRates)).toLocaleString("en-US")} commits/s)`,
      `start → claim → verify → complete, each its own request and transaction; per-move round trip median ${median(latencies).toFixed(1)} ms`,
      "p95 column: the 5th-percentile round is the one to read for a throughput floor; both shown as medians/p95 of rounds",
    ],
    extra: { rawCommitsPerSecond: summarize(rawRates), ratioMedian: ratio, ratios, moveRoundTripMs: summarize(latencies) },
  });
  const cpuNote = (whose: string) =>
    `${whose} CPU time per move, per round (/proc utime + stime; 10 ms ticks over a round of ${clients.length * perClient * 4} moves); ` +
    `on 2 cores, server + bench CPU per move bounds the rate at 2,000 ms/s ÷ their sum`;
  ctx.rec.add({
    id: "writes.task_moves.server_cpu",
    measurement: `  diagnostic: the server's CPU per move (${ctx.serverOptions.workers ?? "default"} worker setting${ctx.engine.name === "postgres" ? "; PostgreSQL's own CPU not included" : ""})`,
    unit: "ms",
    summary: summarize(serverCpuPerMove),
    target: null,
    notes: [cpuNote("the serving processes'")],
  });
  ctx.rec.add({
    id: "writes.task_moves.client_cpu",
    measurement: "  diagnostic: the bench's own CPU per move (its HTTP clients, on the same 2 cores)",
    unit: "ms",
    summary: summarize(clientCpuPerMove),
    target: null,
    notes: [cpuNote("the bench process's")],
  });
  ctx.rec.add({
    id: "writes.raw_commits",
    measurement: `  engine: ${raw.label}`,
    unit: "commits/s",
    summary: summarize(rawRates),
    target: null,
  });
}

const AGENTS = ["developer", "qa_expert", "tech_lead", "project_manager", "investigator"];
const PHRASES = [
  "Ran the unit tests: 142 passed, 0 failed",
  "Reviewed the diff for the JWT middleware; requested a change to the expiry check",
  "Implemented pagination on the sessions endpoint with a keyset cursor",
  "Coverage is 81% on the core package after adding the parser tests",
  "Investigated the flaky integration test: a race on the shared fixture",
  "Planning the next iteration: split group B into two smaller groups",
];

function logRows(batch: number, size: number) {
  return Array.from({ length: size }, (_, i) => {
    const agent = AGENTS[(batch + i) % AGENTS.length]!;
    return {
      kind: "interaction" as const,
      agentType: agent,
      agentId: `${agent}_${(i % 3) + 1}`,
      iteration: (i % 12) + 1,
      groupId: `group_${String.fromCharCode(97 + (i % 4))}`,
      content: `${agent} iteration ${(i % 12) + 1}: ${PHRASES[(batch * 7 + i) % PHRASES.length]} (batch ${batch}, row ${i})`,
    };
  });
}

export async function measureIngest(ctx: BenchContext): Promise<void> {
  const CLIENTS = 4;
  const BATCH = 500;
  const rounds = ctx.reps(5, 3); // three rounds at least: a throughput is never judged on one
  const batchesPerClient = ctx.reps(8, 2);
  const sessionId = `bench_ingest_${Date.now()}`;
  await callerOn(ctx.local, OPERATOR).session.create({ id: sessionId, requirements: "Bench: log ingest", mode: "parallel" });
  // The engine's side: the same rows into the same table (schema, indexes, triggers) of a fresh ledger, 500 per transaction.
  const raw: EngineRate = await ingestRate(ctx, sessionId, (r) => Array.from({ length: CLIENTS * batchesPerClient }, (_, i) => logRows(r * 1000 + i, BATCH)));
  const clients = Array.from({ length: CLIENTS }, (_, c) => new HttpClient(ctx.server.url, { token: ctx.tokens.agent, agent: `developer_${c + 1}` }, 1));
  const httpRates: number[] = [];
  const rawRates: number[] = [];
  const ratios: number[] = [];
  const callMs: number[] = [];
  try {
    const round = async (r: number) => {
      const started = now();
      await Promise.all(
        clients.map(async (client, c) => {
          for (let b = 0; b < batchesPerClient; b++) {
            const rows = logRows(r * 1000 + c * 100 + b, BATCH);
            const result = await client.mutate("log.batch", { sessionId, rows });
            callMs.push(result.ms);
          }
        }),
      );
      return (CLIENTS * batchesPerClient * BATCH) / ((now() - started) / 1000);
    };
    await round(0);
    await raw.round(0);
    for (let r = 1; r <= rounds; r++) {
      const rawRate = await raw.round(r);
      const httpRate = await round(r);
      rawRates.push(rawRate);
      httpRates.push(httpRate);
      ratios.push(httpRate / rawRate);
    }
  } finally {
    await raw.close();
    for (const c of clients) c.close();
  }
  const ratio = median(ratios);
  ctx.rec.add({
    id: "writes.ingest",
    measurement: "Batch ingest of log rows over HTTP (500/batch, 4 clients)",
    unit: "rows/s",
    summary: summarize(httpRates),
    target: { stat: "median", op: ">=", value: 30_000 },
    targetText: "≥ 30,000 rows/s",
    notes: [
      `ratio to the engine's own inserts of the same rows (${raw.label}; same table, indexes and triggers; same run, interleaved): ${(ratio * 100).toFixed(1)}% (raw median ${Math.round(median(rawRates)).toLocaleString("en-US")} rows/s)`,
      `log.batch round trip median ${median(callMs).toFixed(1)} ms`,
    ],
    extra: { rawRowsPerSecond: summarize(rawRates), ratioMedian: ratio, ratios, batchRoundTripMs: summarize(callMs) },
  });
  ctx.rec.add({
    id: "writes.raw_inserts",
    measurement: `  engine: ${raw.label}`,
    unit: "rows/s",
    summary: summarize(rawRates),
    target: null,
  });
}
