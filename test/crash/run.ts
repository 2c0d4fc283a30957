// `npm run test:crash`: the production server ingests continuously — task moves, criterion updates,
// log batches over HTTP, a live client on the event stream — while it is killed with SIGKILL at
// random moments and restarted. After every restart the database file must pass integrity_check,
// hold every acknowledged write, hold no action in part, and the live stream must resume with no
// gap and no duplicate. Exits 1 on any failure.
//
//   npm run test:crash -- [--kills N] [--uptime MIN-MAX ms] [--seed S] [--port P] [--keep]
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { apiClient } from "./api";
import { type CheckResult, checkDatabase, checkLive } from "./check";
import { Ledger } from "./ledger";
import { LiveFollower } from "./live";
import { writeLocally } from "./local";
import { Random } from "./random";
import { ProofgateServer, sleep } from "./server";
import { prepareDatabase } from "./setup";
import { type WriterContext, runBatchWriter, runCriterionWriter, runTaskMover } from "./writers";

const { values: args } = parseArgs({
  options: {
    kills: { type: "string", default: "6" },
    uptime: { type: "string", default: "800-3500" },
    seed: { type: "string" },
    port: { type: "string" },
    keep: { type: "boolean", default: false },
  },
});
const KILLS = Number(args.kills);
const SEED = Number(args.seed ?? Date.now() % 1_000_000);
const TASK_MOVERS = 3;
const CRITERION_WRITERS = 2;
const BATCH_WRITERS = 2;
/** How long the server ingests before each kill: a random moment in this window (ms). */
const UPTIME = args.uptime.split("-").map(Number) as [number, number];
const LIVE_CATCH_UP_MS = 30_000;
/** How often a restart is itself killed before the server comes up. */
const STARTUP_KILL_CHANCE = 0.3;
const LOCAL_BATCHES = 3;

async function main(): Promise<number> {
  if (!Number.isInteger(KILLS) || KILLS < 1) throw new Error(`--kills: must be a whole number ≥ 1 (got ${args.kills})`);
  const began = Date.now();
  const elapsed = () => `+${((Date.now() - began) / 1000).toFixed(1)}s`;
  const random = new Random(SEED);
  if (!fs.existsSync(".next/BUILD_ID")) {
    console.log("crash: no production build (.next) — building first");
    const build = spawnSync("npm", ["run", "build"], { stdio: "inherit" });
    if (build.status !== 0) throw new Error("npm run build failed");
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "proofgate-crash-"));
  const db = path.join(dir, "proofgate.db");
  const port = args.port ? Number(args.port) : Number(process.env.PROOFGATE_CRASH_PORT ?? (await freePort()));
  const fixture = await prepareDatabase(db, CRITERION_WRITERS);
  const server = new ProofgateServer({ db, port, logFile: path.join(dir, "server.log"), token: fixture.tokens.lead });
  process.on("exit", () => server.killNow());
  for (const signal of ["SIGINT", "SIGTERM"] as const) process.once(signal, () => process.exit(130));
  console.log(`crash: seed ${SEED}, ${KILLS} kills, server on ${server.url}, database ${db}`);

  const firstStartMs = await server.start();
  const ledger = new Ledger();
  const follower = new LiveFollower(server.url, fixture.tokens.lead, fixture.lastEventId);
  follower.start();
  let stopped = false;
  const ctx: WriterContext = { ledger, sessionId: fixture.sessionId, random, stopped: () => stopped };
  const client = (token: string, label: string) => apiClient(server.url, token, label);
  const writers = [
    ...Array.from({ length: TASK_MOVERS }, (_, i) =>
      runTaskMover(ctx, i + 1, {
        agent: client(fixture.tokens.agent, `dev-${i + 1}`),
        verifier: client(fixture.tokens.verifier, `qa-${i + 1}`),
        lead: client(fixture.tokens.lead, `lead-${i + 1}`),
      }),
    ),
    ...fixture.criteria.map((criterion, i) => runCriterionWriter(ctx, i + 1, criterion, client(fixture.tokens.agent, `pm-${i + 1}`))),
    ...Array.from({ length: BATCH_WRITERS }, (_, i) => runBatchWriter(ctx, i + 1, client(fixture.tokens.agent, `logger-${i + 1}`))),
  ];

  const failures: string[] = [];
  const restartMs: number[] = [];
  let startupKills = 0;
  let localBatches = 0;
  let checks = 0;
  const report = (label: string, result: CheckResult, live: string[]) => {
    checks += 1;
    const problems = [...result.failures, ...live];
    failures.push(...problems.map((p) => `${label}: ${p}`));
    console.log(
      `crash: ${label}: ${result.verified} acknowledged writes verified, ${result.actions} actions whole, ${result.eventIds.length} events` +
        `${live.length === 0 && label !== "after a graceful stop" ? ", live stream complete" : ""}: ${problems.length === 0 ? "ok" : `${problems.length} FAILURES`}`,
    );
    for (const problem of problems.slice(0, 10)) console.log(`  ✗ ${problem}`);
  };

  console.log(`crash: server ready in ${firstStartMs} ms; ingesting`);
  for (let kill = 1; kill <= KILLS; kill++) {
    await sleep(random.int(...UPTIME));
    const inFlight = ledger.inFlight;
    ledger.inFlightAtKill.push(inFlight);
    const acknowledged = ledger.acknowledged;
    await server.kill();
    console.log(`crash: kill ${kill} at ${elapsed()}: SIGKILL with ${inFlight} requests in flight, ${acknowledged} writes acknowledged so far`);
    await sleep(random.int(0, 400));
    if (random.next() < STARTUP_KILL_CHANCE) {
      // Crash the recovery too: a second SIGKILL while the restarted server opens the file.
      server.spawn();
      await sleep(random.int(100, 3000));
      if (!server.running) failures.push(`restart ${kill}: the server exited on its own while starting (see its log)`);
      else {
        await server.kill();
        startupKills += 1;
        console.log(`crash: kill ${kill}b at ${elapsed()}: SIGKILL again while the server was starting`);
      }
    }
    if (kill % 2 === 1) {
      // Every other outage: a local-mode writer adds events the live client has not seen.
      await writeLocally(db, fixture.sessionId, ledger, `local${kill}`, LOCAL_BATCHES);
      localBatches += LOCAL_BATCHES;
      console.log(`crash: ${LOCAL_BATCHES} log batches written in local mode while the server was down`);
    }
    restartMs.push(await server.start());
    const result = await checkDatabase(db, fixture.sessionId, ledger, follower.fromId);
    report(`after restart ${kill} (up in ${restartMs.at(-1)} ms)`, result, await checkLive(follower, result, LIVE_CATCH_UP_MS));
  }

  await sleep(random.int(...UPTIME));
  stopped = true;
  await Promise.all(writers);
  const final = await checkDatabase(db, fixture.sessionId, ledger, follower.fromId);
  report("at the end, writers stopped", final, await checkLive(follower, final, LIVE_CATCH_UP_MS));
  if (follower.restores < KILLS) failures.push(`the live client reconnected ${follower.restores} times for ${KILLS} kills`);
  await follower.stop();
  await server.stop();
  report("after a graceful stop", await checkDatabase(db, fixture.sessionId, ledger, follower.fromId), []);
  failures.push(...ledger.serverErrors.map((e) => `the server refused a write no rule forbids: ${e}`));

  const seconds = ((Date.now() - began) / 1000).toFixed(1);
  const counts = `${ledger.tasks.length} task writes, ${ledger.criteria.length} criterion updates, ${ledger.batches.length} log batches (${ledger.acknowledgedRows} rows)`;
  console.log(`
crash-safety summary (seed ${SEED}, ${seconds} s)
  kills (SIGKILL):          ${KILLS} while ingesting (${ledger.inFlightAtKill.join("/")} requests in flight) + ${startupKills} during a restart; restarts took ${Math.min(...restartMs)}–${Math.max(...restartMs)} ms
  acknowledged writes:      ${ledger.acknowledged} (${counts}; ${localBatches} of the batches in local mode while the server was down)
  writes whose answer died: ${ledger.unanswered} (${ledger.unansweredButStored} found stored, the rest absent, when the client looked again)
  live stream:              ${follower.ids.length} events delivered, ${follower.drops} drops, ${follower.restores} resumed from the last id
  checks:                   ${checks} (after each restart, with the writers stopped, after a graceful stop): integrity_check, acknowledged writes, whole actions, rollups, live stream
  verified at the end:      ${final.verified} acknowledged writes, ${final.actions} actions whole (transitions, criterion updates, batches)
  failures:                 ${failures.length}`);
  for (const failure of failures.slice(0, 20)) console.log(`  ✗ ${failure}`);
  if (failures.length === 0 && !args.keep) fs.rmSync(dir, { recursive: true, force: true });
  else console.log(`  files kept in ${dir}`);
  return failures.length === 0 ? 0 : 1;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`crash: ${(error as Error).stack ?? String(error)}`);
    process.exit(1);
  },
);
