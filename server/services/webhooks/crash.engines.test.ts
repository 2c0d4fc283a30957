/**
 * A process killed between the write and the delivery loses nothing: the outbox row was committed
 * with the event. The dispatcher runs in a child process exactly as the server starts it
 * (instrumentation.ts), is SIGKILLed while its POST is in flight, and a restarted one delivers
 * the same message (same webhook-id, still verifiable) once the dead process's lease expires. On
 * both engines (issue 21).
 */
import { type ChildProcess, spawn } from "node:child_process";
import path from "node:path";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { Webhook } from "standardwebhooks";
import type { Db } from "@/db/client";
import { ACTORS, callerFor } from "@/test/support/api-helpers";
import { type Engine, describeEngines, sharedLedgerFactory } from "@/test/support/engines";
import { rowsOf } from "@/test/support/rows";
import { WebhookReceiver, waitFor } from "@/test/support/webhook-receiver";

vi.setConfig({ testTimeout: 90_000 });
const ROOT = path.resolve(import.meta.dirname, "../../..");
// PostgreSQL seals a webhook's signing secret under the instance key from the environment (server/auth/secret.ts); the child gets it too.
const AUTH_SECRET = "crash-test-key-crash-test-key-crash-test-0123456789";
const sharedLedger = sharedLedgerFactory();
const children: ChildProcess[] = [];
afterAll(() => {
  for (const child of children) if (child.exitCode === null) child.kill("SIGKILL");
});

/** The dispatcher process, started as the server starts it, once it says it is ready. */
async function startDispatcherProcess(engine: Engine, target: string): Promise<ChildProcess> {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    BETTER_AUTH_SECRET: AUTH_SECRET,
    PROOFGATE_WEBHOOK_POLL_MS: "50",
    PROOFGATE_WEBHOOK_TIMEOUT_MS: "60000",
    PROOFGATE_WEBHOOK_LEASE_MS: "1500",
    PROOFGATE_WEBHOOK_RETRY_BASE_MS: "100",
    // The receiver is on 127.0.0.1: the server refuses such a receiver unless told otherwise.
    PROOFGATE_WEBHOOK_ALLOW_PRIVATE: "1",
  };
  delete env.PROOFGATE_WEBHOOKS;
  delete env.PROOFGATE_DB;
  delete env.PROOFGATE_DATABASE_URL;
  env[engine === "sqlite" ? "PROOFGATE_DB" : "PROOFGATE_DATABASE_URL"] = target;
  const child = spawn(process.execPath, ["--import", "tsx", "test/support/webhook-dispatcher-process.ts"], {
    cwd: ROOT,
    env,
    stdio: ["ignore", "pipe", "inherit"],
  });
  children.push(child);
  await new Promise<void>((resolve, reject) => {
    child.stdout!.setEncoding("utf8").on("data", (text: string) => text.includes("ready") && resolve());
    child.once("exit", (code) => reject(new Error(`the dispatcher process exited (${code}) before it was ready`)));
  });
  return child;
}

const kill = (child: ChildProcess) => new Promise<void>((resolve) => (child.once("exit", () => resolve()), child.kill("SIGKILL")));

describeEngines("a dispatcher process killed between the write and the delivery", (engine) => {
  let db: Db;
  let target: string;
  let receiver: WebhookReceiver;
  beforeAll(async () => {
    vi.stubEnv("BETTER_AUTH_SECRET", AUTH_SECRET);
    vi.stubEnv("PROOFGATE_WEBHOOK_ALLOW_PRIVATE", "1");
    ({ db, target } = await sharedLedger(engine));
    receiver = await new WebhookReceiver().listen();
  });
  afterAll(async () => {
    for (const child of children) if (child.exitCode === null) child.kill("SIGKILL");
    await receiver.close();
    vi.unstubAllEnvs();
  });

  it("delivers after a restart: the one in flight when it died, and the ones written while it was down", async () => {
    const admin = callerFor(db, ACTORS.admin);
    const { secret } = await admin.admin.createWebhook({ url: receiver.url, events: ["task.blocked", "session.failed"] });
    const orchestrator = callerFor(db, ACTORS.orchestrator);
    await orchestrator.session.create({ id: "s1" });
    await orchestrator.task.create({ sessionId: "s1", key: "t1", title: "Task t1" });
    await callerFor(db, ACTORS.developer).task.claim({ sessionId: "s1", key: "t1" });

    receiver.hold = true; // the POST arrives and is never answered: the process dies mid-delivery
    const first = await startDispatcherProcess(engine, target);
    await callerFor(db, ACTORS.verifier).task.block({ sessionId: "s1", key: "t1", failures: ["tests fail"] });
    await waitFor(() => receiver.received.length === 1, 5_000, "the POST in flight");
    await kill(first);
    expect(await rowsOf(db, sql`select status, attempts, delivered_at from webhook_deliveries`)).toEqual([
      { status: "pending", attempts: 0, delivered_at: null },
    ]);

    // Written while no dispatcher runs: only the outbox row exists.
    await orchestrator.session.updateStatus({ sessionId: "s1", status: "failed" });
    receiver.hold = false;
    await startDispatcherProcess(engine, target);
    await waitFor(() => receiver.received.length === 3, 10_000, "both deliveries after the restart");
    const [inFlight, ...after] = receiver.received;
    const typeOf = (m: { body: string }) => (JSON.parse(m.body) as { type: string }).type;
    const retried = after.find((m) => typeOf(m) === "task.blocked");
    const written = after.find((m) => typeOf(m) === "session.failed");
    expect(retried!.headers["webhook-id"]).toBe(inFlight!.headers["webhook-id"]);
    const verifier = new Webhook(secret);
    expect(verifier.verify(retried!.body, retried!.headers)).toMatchObject({ type: "task.blocked" });
    expect(verifier.verify(written!.body, written!.headers)).toMatchObject({ type: "session.failed" });
    await waitFor(
      async () => (await rowsOf(db, sql`select 1 from webhook_deliveries where status = 'delivered'`)).length === 2,
      2_000,
      "both logged as delivered",
    );
  });
});
