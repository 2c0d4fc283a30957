// One engine's crash run (test/crash/run.ts runs it on each): the server ingests, is SIGKILLed and
// restarted, and the database is checked after every restart.
// flake-risks time: the crash run's own stopwatch for its log
// flake-risks wait: kill times from the run's seeded schedule (npm run test:crash passes --seed): timing is what the crash run exercises; every wait is bounded
import path from "node:path";
import { apiClient } from "./api";
import { type CheckResult, checkDatabase, checkLive } from "./check";
import type { CrashDatabase } from "./databases";
import { Ledger } from "./ledger";
import { LiveFollower } from "./live";
import { writeLocally } from "./local";
import { Random } from "./random";
import { ProofgateServer, sleep } from "./server";
import { prepareDatabase } from "./setup";
import { type WriterContext, runBatchWriter, runCriterionWriter, runTaskMover } from "./writers";

export interface CrashOptions {
  kills: number;
  seed: number;
  /** How long the server ingests before each kill: a random moment in this window (ms). */
  uptime: [number, number];
  port: number;
  /** Where the server's log goes. */
  dir: string;
}

const TASK_MOVERS = 3;
const CRITERION_WRITERS = 2;
const BATCH_WRITERS = 2;
const LIVE_CATCH_UP_MS = 30_000;
/** How often a restart is itself killed before the server comes up. */
const STARTUP_KILL_CHANCE = 0.3;
const LOCAL_BATCHES = 3;

/** Run the kills on `database`; returns the failures (none: the run passed). */
export async function runCrash(database: CrashDatabase, options: CrashOptions): Promise<string[]> {
  const { kills: KILLS, seed: SEED, uptime: UPTIME } = options;
  const { engine, target } = database;
  const began = Date.now();
  const elapsed = () => `+${((Date.now() - began) / 1000).toFixed(1)}s`;
  const log = (line: string) => console.log(`crash ${engine}: ${line}`);
  const random = new Random(SEED);
  const fixture = await prepareDatabase(target, CRITERION_WRITERS);
  const server = new ProofgateServer({
    ledger: target,
    env: database.serverEnv,
    port: options.port,
    logFile: path.join(options.dir, "server.log"),
    token: fixture.tokens.lead,
  });
  process.on("exit", () => server.killNow());
  log(`seed ${SEED}, ${KILLS} kills, server on ${server.url}, database ${database.shown}`);

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
  let killsHoldingLock = 0;
  let localBatches = 0;
  let checks = 0;
  const report = (label: string, result: CheckResult, live: string[]) => {
    checks += 1;
    const problems = [...result.failures, ...live];
    failures.push(...problems.map((p) => `${engine}, ${label}: ${p}`));
    log(
      `${label}: ${result.verified} acknowledged writes verified, ${result.actions} actions whole, ${result.eventIds.length} events` +
        `${live.length === 0 && label !== "after a graceful stop" ? ", live stream complete" : ""}: ${problems.length === 0 ? "ok" : `${problems.length} FAILURES`}`,
    );
    for (const problem of problems.slice(0, 10)) console.log(`  ✗ ${problem}`);
  };

  log(`server ready in ${firstStartMs} ms; ingesting`);
  for (let kill = 1; kill <= KILLS; kill++) {
    await sleep(random.int(...UPTIME));
    const inFlight = ledger.inFlight;
    ledger.inFlightAtKill.push(inFlight);
    const acknowledged = ledger.acknowledged;
    if (await database.writerLockHeld?.()) killsHoldingLock += 1;
    await server.kill();
    log(`kill ${kill} at ${elapsed()}: SIGKILL with ${inFlight} requests in flight, ${acknowledged} writes acknowledged so far`);
    await sleep(random.int(0, 400));
    if (random.next() < STARTUP_KILL_CHANCE) {
      // Crash the recovery too: a second SIGKILL while the restarted server opens the database.
      server.spawn();
      await sleep(random.int(100, 3000));
      if (!server.running) failures.push(`${engine}, restart ${kill}: the server exited on its own while starting (see its log)`);
      else {
        await server.kill();
        startupKills += 1;
        log(`kill ${kill}b at ${elapsed()}: SIGKILL again while the server was starting`);
      }
    }
    if (kill % 2 === 1) {
      // Every other outage: a local-mode writer adds events the live client has not seen.
      await writeLocally(target, fixture.sessionId, ledger, `local${kill}`, LOCAL_BATCHES);
      localBatches += LOCAL_BATCHES;
      log(`${LOCAL_BATCHES} log batches written in local mode while the server was down`);
    }
    restartMs.push(await server.start());
    const leftovers = await database.leftovers(server.spawnedAt);
    const result = await checkDatabase(target, fixture.sessionId, ledger, follower.fromId);
    report(`after restart ${kill} (up in ${restartMs.at(-1)} ms)`, result, [...leftovers, ...(await checkLive(follower, result, LIVE_CATCH_UP_MS))]);
  }

  await sleep(random.int(...UPTIME));
  stopped = true;
  await Promise.all(writers);
  const final = await checkDatabase(target, fixture.sessionId, ledger, follower.fromId);
  report("at the end, writers stopped", final, await checkLive(follower, final, LIVE_CATCH_UP_MS));
  if (follower.restores < KILLS) failures.push(`${engine}: the live client reconnected ${follower.restores} times for ${KILLS} kills`);
  await follower.stop();
  await server.stop();
  report("after a graceful stop", await checkDatabase(target, fixture.sessionId, ledger, follower.fromId), []);
  failures.push(...ledger.serverErrors.map((e) => `${engine}: the server refused a write no rule forbids: ${e}`));

  const seconds = ((Date.now() - began) / 1000).toFixed(1);
  const counts = `${ledger.tasks.length} task writes, ${ledger.criteria.length} criterion updates, ${ledger.batches.length} log batches (${ledger.acknowledgedRows} rows)`;
  const lockLine = database.writerLockHeld
    ? `\n  writer lock at the kill:  held by the server in ${killsHoldingLock} of ${KILLS} kills (pg_advisory_xact_lock)`
    : "";
  console.log(`
crash-safety summary, ${engine} (seed ${SEED}, ${seconds} s)
  kills (SIGKILL):          ${KILLS} while ingesting (${ledger.inFlightAtKill.join("/")} requests in flight) + ${startupKills} during a restart; restarts took ${Math.min(...restartMs)}–${Math.max(...restartMs)} ms${lockLine}
  acknowledged writes:      ${ledger.acknowledged} (${counts}; ${localBatches} of the batches in local mode while the server was down)
  writes whose answer died: ${ledger.unanswered} (${ledger.unansweredButStored} found stored, the rest absent, when the client looked again)
  live stream:              ${follower.ids.length} events delivered, ${follower.drops} drops, ${follower.restores} resumed from the last id
  checks:                   ${checks} (after each restart, with the writers stopped, after a graceful stop): ${database.storageChecks}, acknowledged writes, whole actions, rollups, live stream
  verified at the end:      ${final.verified} acknowledged writes, ${final.actions} actions whole (transitions, criterion updates, batches)
  failures:                 ${failures.length}`);
  for (const failure of failures.slice(0, 20)) console.log(`  ✗ ${failure}`);
  return failures;
}
