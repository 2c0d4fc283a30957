/**
 * `npx tsx bench/levers.ts [--sessions N] [--rounds R] [--port P]`: what each of `proofgate serve`'s
 * levers buys, on one demo database: the API answered directly (tRPC through the Node bridge) or
 * through Next's router (PROOFGATE_API_VIA_NEXT=1), and 1 or 2 worker processes. The configurations
 * run interleaved, round by round, so a busy machine slows them alike; besides wall-clock figures
 * it reports the server's own CPU time per request (utime + stime of every serving process, from
 * /proc), which other jobs on the machine barely move.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { openDatabase } from "@/db/client";
import { callerOn } from "./lib/context";
import { HttpClient } from "./lib/http";
import { type Server, proofgate, startServer, treeCpuMs as cpuMs } from "./lib/proc";
import { median, now, summarize } from "./lib/stats";

const OPERATOR = { principalId: "operator", principalKind: "operator", role: "admin", label: "orchestrator" } as const;
const PASSED = { verdict: "PASSED", checks: [{ name: "unit tests", passed: true }] } as const;

interface Config {
  name: string;
  workers: number;
  apiViaNext: boolean;
}
const CONFIGS: Config[] = [
  { name: "API via Next's router, 1 process", workers: 1, apiViaNext: true },
  { name: "API direct, 1 process", workers: 1, apiViaNext: false },
  { name: "API direct, 2 workers", workers: 2, apiViaNext: false },
];

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const opt = (flag: string, dflt: number) => {
    const i = argv.indexOf(flag);
    return i === -1 ? dflt : Number(argv[i + 1]);
  };
  const sessions = opt("--sessions", 200);
  const rounds = opt("--rounds", 3);
  const port = opt("--port", 3450);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "proofgate-levers-"));
  const db = path.join(dir, "levers.db");
  await proofgate(db, ["--quiet", "demo", "--sessions", String(sessions)]);
  const token = async (role: string) =>
    JSON.parse((await proofgate(db, ["--json", "token", "create", "--name", `l-${role}`, "--role", role])).stdout).token as string;
  const viewer = await token("viewer");
  const agent = await token("agent");
  const verifier = await token("verifier");
  const orchestrator = await token("orchestrator");
  const local = openDatabase(db);
  const admin = callerOn(local, OPERATOR);
  const sessionIds = (local.$client.prepare("SELECT id FROM sessions ORDER BY id LIMIT 20").all() as { id: string }[]).map((r) => r.id);

  const results = new Map<string, { readMs: number[]; readCpu: number[]; moveRate: number[]; moveCpu: number[] }>();
  for (const c of CONFIGS) results.set(c.name, { readMs: [], readCpu: [], moveRate: [], moveCpu: [] });
  for (let round = 0; round < rounds; round++) {
    for (const config of CONFIGS) {
      const server: Server = await startServer(db, port, { workers: config.workers, apiViaNext: config.apiViaNext });
      const r = results.get(config.name)!;
      try {
        // Reads: 8 clients, 40 session.list + session.get each (after a warm-up).
        const readers = Array.from({ length: 8 }, () => new HttpClient(server.url, { token: viewer }, 1));
        const read = async (n: number, sink?: number[]) =>
          Promise.all(
            readers.map(async (client, c) => {
              for (let i = 0; i < n; i++) {
                const t = now();
                await client.query(i % 2 ? "session.list" : "session.get", i % 2 ? { limit: 25 } : { id: sessionIds[(c + i) % sessionIds.length] });
                sink?.push(now() - t);
              }
            }),
          );
        await read(10);
        const cpu0 = cpuMs(server.pid);
        await read(40, r.readMs);
        r.readCpu.push((cpuMs(server.pid) - cpu0) / (8 * 40));
        for (const c of readers) c.close();

        // Task moves: 8 clients, 10 tasks each through start → claim → verify → complete.
        const sessionId = `levers_${round}_${config.workers}_${config.apiViaNext ? "next" : "direct"}`;
        await admin.session.create({ id: sessionId, requirements: "levers", mode: "parallel" });
        for (let c = 0; c < 8; c++) for (let i = 0; i < 12; i++) await admin.task.create({ sessionId, key: `t${c}_${i}`, title: `t${c}_${i}` });
        const clients = Array.from({ length: 8 }, (_, c) => ({
          agent: new HttpClient(server.url, { token: agent, agent: `developer_${c + 1}` }, 1),
          verifier: new HttpClient(server.url, { token: verifier, agent: `verifier_${c + 1}` }, 1),
          orchestrator: new HttpClient(server.url, { token: orchestrator, agent: "orchestrator" }, 1),
        }));
        const walk = (from: number, to: number) =>
          Promise.all(
            clients.map(async (client, c) => {
              for (let i = from; i < to; i++) {
                const key = `t${c}_${i}`;
                await client.agent.mutate("task.start", { sessionId, key });
                await client.agent.mutate("task.claim", { sessionId, key, evidence: [`a/${key}.txt`] });
                await client.verifier.mutate("task.verify", { sessionId, key, proofpack: PASSED });
                await client.orchestrator.mutate("task.complete", { sessionId, key });
              }
            }),
          );
        await walk(0, 2);
        const cpu1 = cpuMs(server.pid);
        const t0 = now();
        await walk(2, 12);
        const moves = 8 * 10 * 4;
        r.moveRate.push(moves / ((now() - t0) / 1000));
        r.moveCpu.push((cpuMs(server.pid) - cpu1) / moves);
        for (const c of clients) for (const h of Object.values(c)) h.close();
      } finally {
        await server.stop();
      }
    }
    console.log(`round ${round + 1}/${rounds} done (load average ${os.loadavg()[0]!.toFixed(1)})`);
  }
  console.log(
    `\n${sessions}-session demo database, ${rounds} interleaved rounds; load average now ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(" ")}`,
  );
  console.log("| configuration | read p50 / p95 (ms, 8 clients) | server CPU per read (ms) | task moves/s (8 clients) | server CPU per move (ms) |");
  console.log("|---|---|---|---|---|");
  for (const [name, r] of results) {
    const s = summarize(r.readMs);
    console.log(
      `| ${name} | ${s.median.toFixed(1)} / ${s.p95.toFixed(1)} | ${median(r.readCpu).toFixed(2)} | ${Math.round(median(r.moveRate))} | ${median(r.moveCpu).toFixed(2)} |`,
    );
  }
  local.$client.close();
  fs.rmSync(dir, { recursive: true, force: true });
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
