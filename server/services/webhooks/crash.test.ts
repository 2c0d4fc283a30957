/**
 * A process killed between the write and the delivery loses nothing: the outbox row was committed
 * with the event. The dispatcher runs in a child process exactly as the server starts it
 * (instrumentation.ts), is SIGKILLed while its POST is in flight, and a restarted one delivers
 * the same message (same webhook-id, still verifiable) once the dead process's lease expires.
 */
import { type ChildProcess, spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { Webhook } from "standardwebhooks";
import { type Db, openDatabase } from "@/db/client";
import { ACTORS, callerFor, rows } from "@/test/support/api-helpers";
import { WebhookReceiver, waitFor } from "@/test/support/webhook-receiver";

vi.setConfig({ testTimeout: 90_000 });
const ROOT = path.resolve(import.meta.dirname, "../../..");
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "proofgate-webhook-crash-"));
const file = path.join(dir, "proofgate.db");
const children: ChildProcess[] = [];
let db: Db;
let receiver: WebhookReceiver;

beforeAll(async () => {
  db = openDatabase(file);
  receiver = await new WebhookReceiver().listen();
});
afterAll(async () => {
  for (const child of children) if (child.exitCode === null) child.kill("SIGKILL");
  await receiver.close();
  db.$client.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** The dispatcher process, started as the server starts it, once it says it is ready. */
async function startDispatcherProcess(): Promise<ChildProcess> {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PROOFGATE_DB: file,
    PROOFGATE_WEBHOOK_POLL_MS: "50",
    PROOFGATE_WEBHOOK_TIMEOUT_MS: "60000",
    PROOFGATE_WEBHOOK_LEASE_MS: "1500",
    PROOFGATE_WEBHOOK_RETRY_BASE_MS: "100",
  };
  delete env.PROOFGATE_WEBHOOKS;
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

describe("a dispatcher process killed between the write and the delivery", () => {
  it("delivers after a restart: the one in flight when it died, and the ones written while it was down", async () => {
    const admin = callerFor(db, ACTORS.admin);
    const { secret } = await admin.admin.createWebhook({ url: receiver.url, events: ["task.blocked", "session.failed"] });
    const orchestrator = callerFor(db, ACTORS.orchestrator);
    await orchestrator.session.create({ id: "s1" });
    await orchestrator.task.create({ sessionId: "s1", key: "t1", title: "Task t1" });
    await callerFor(db, ACTORS.developer).task.claim({ sessionId: "s1", key: "t1" });

    receiver.hold = true; // the POST arrives and is never answered: the process dies mid-delivery
    const first = await startDispatcherProcess();
    await callerFor(db, ACTORS.verifier).task.block({ sessionId: "s1", key: "t1", failures: ["tests fail"] });
    await waitFor(() => receiver.received.length === 1, 5_000, "the POST in flight");
    await kill(first);
    expect(rows(db, "select status, attempts, delivered_at from webhook_deliveries")).toEqual([{ status: "pending", attempts: 0, delivered_at: null }]);

    // Written while no dispatcher runs: only the outbox row exists.
    await orchestrator.session.updateStatus({ sessionId: "s1", status: "failed" });
    receiver.hold = false;
    await startDispatcherProcess();
    await waitFor(() => receiver.received.length === 3, 10_000, "both deliveries after the restart");
    const [inFlight, ...after] = receiver.received;
    const typeOf = (m: { body: string }) => (JSON.parse(m.body) as { type: string }).type;
    const retried = after.find((m) => typeOf(m) === "task.blocked");
    const written = after.find((m) => typeOf(m) === "session.failed");
    expect(retried!.headers["webhook-id"]).toBe(inFlight!.headers["webhook-id"]);
    const verifier = new Webhook(secret);
    expect(verifier.verify(retried!.body, retried!.headers)).toMatchObject({ type: "task.blocked" });
    expect(verifier.verify(written!.body, written!.headers)).toMatchObject({ type: "session.failed" });
    await waitFor(() => rows(db, "select 1 from webhook_deliveries where status = 'delivered'").length === 2, 2_000, "both logged as delivered");
  });
});
