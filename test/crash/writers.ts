// The clients that ingest continuously: each owns its tasks, its criterion or its batches (races are
// the concurrency test's business), writes back to back, records every acknowledgement, and after
// a lost answer looks at the server again before going on.
// flake-risks wait: the writers' retry pause after a refused call while the server is down: they retry until it is back
import type { TaskMove } from "@/server/domain/task-machine";
import { type Client, call, callWrite, unexpected } from "./api";
import { type Ledger, batchContent } from "./ledger";
import type { Random } from "./random";
import { sleep } from "./server";

export interface WriterContext {
  ledger: Ledger;
  sessionId: string;
  random: Random;
  stopped: () => boolean;
}

/** Wait while the server is down (its answer lost); back off a little so a dead port is not hammered. */
const RETRY_MS = 100;

interface TaskState {
  key: string;
  id: number;
  status: string;
  version: number;
  resetRequested: boolean;
  resets: number;
}

/** Tasks through the whole machine: create, start, claim, sometimes block → request → approve reset, verify, complete. */
export async function runTaskMover(ctx: WriterContext, n: number, clients: { agent: Client; verifier: Client; lead: Client }): Promise<void> {
  const { ledger, sessionId } = ctx;
  let made = 0;
  let task: TaskState | null = null;
  const ref = (key: string) => ({ sessionId, key });

  /** After a lost answer: what the server has now (the write may or may not have been stored). */
  const reload = async (key: string, before: TaskState | null): Promise<TaskState | null> => {
    for (;;) {
      const outcome = await call(ledger, () => clients.agent.task.get.query(ref(key)));
      if (outcome.ok) {
        const row = outcome.value;
        if (before ? row.version > before.version : true) ledger.unansweredButStored += 1;
        return { key, id: row.id, status: row.status, version: row.version, resetRequested: row.resetRequested, resets: row.resetCount };
      }
      if (outcome.answered && outcome.code === "NOT_FOUND") return null;
      if (outcome.answered) unexpected(ledger, `task.get ${key}`, outcome);
      await sleep(RETRY_MS);
    }
  };

  while (!ctx.stopped()) {
    if (!task || task.status === "completed") {
      const key = `m${n}-t${++made}`;
      const outcome = await callWrite(ledger, () => clients.agent.task.create.mutate({ sessionId, key, title: `crash task ${key}` }));
      if (outcome.ok) {
        const row = outcome.value;
        ledger.tasks.push({ key, taskId: row.id, move: "create", version: row.version, status: row.status });
        task = { key, id: row.id, status: row.status, version: row.version, resetRequested: false, resets: 0 };
      } else {
        if (outcome.answered) unexpected(ledger, `task.create ${key}`, outcome);
        await sleep(RETRY_MS);
        task = outcome.answered || !outcome.sent ? null : await reload(key, null);
        // Not stored: the next loop creates the next key; this one is simply absent.
      }
      continue;
    }
    const current: TaskState = task;
    const move = nextMove(current, ctx.random);
    const input = { ...ref(current.key), expectedVersion: current.version, ...moveInput(move, current) };
    const client = move === "verify" || move === "block" ? clients.verifier : move === "complete" || move === "approve_reset" ? clients.lead : clients.agent;
    const outcome = await callWrite(ledger, () => moveCall(client, move, input));
    if (outcome.ok) {
      const row = outcome.value;
      ledger.tasks.push({ key: current.key, taskId: row.id, move, version: row.version, status: row.status });
      task = { ...current, status: row.status, version: row.version, resetRequested: row.resetRequested, resets: row.resetCount };
    } else {
      if (outcome.answered) unexpected(ledger, `task.${move} ${current.key} v${current.version}`, outcome);
      await sleep(RETRY_MS);
      if (outcome.answered || outcome.sent) task = await reload(current.key, current);
    }
  }
}

function nextMove(task: TaskState, random: Random): TaskMove {
  switch (task.status) {
    case "pending":
      return "start";
    case "in_progress":
      return "claim";
    case "claimed":
      return task.resets < 2 && random.next() < 0.25 ? "block" : "verify";
    case "blocked":
      return task.resetRequested ? "approve_reset" : "request_reset";
    case "verified":
      return "complete";
    default:
      throw new Error(`no move from ${task.status}`);
  }
}

function moveInput(move: TaskMove, task: TaskState) {
  switch (move) {
    case "claim":
      return { evidence: [`crash://${task.key}/attempt-${task.resets + 1}`] };
    case "verify":
      return { proofpack: { verdict: "PASSED" as const, checks: [{ name: "crash-suite", passed: true }] } };
    case "block":
      return { proofpack: { verdict: "BLOCKED" as const, checks: [{ name: "crash-suite", passed: false }] }, failures: ["crash-suite failed"] };
    case "request_reset":
    case "approve_reset":
      return { reason: `retry ${task.key} after a blocked attempt` };
    default:
      return {};
  }
}

type MoveInput = { sessionId: string; key: string; expectedVersion: number } & ReturnType<typeof moveInput>;

function moveCall(client: Client, move: TaskMove, input: MoveInput) {
  const procedures = {
    start: client.task.start,
    claim: client.task.claim,
    verify: client.task.verify,
    block: client.task.block,
    complete: client.task.complete,
    request_reset: client.task.requestReset,
    approve_reset: client.task.approveReset,
    decline_reset: client.task.declineReset,
  } as const;
  return procedures[move].mutate(input);
}

const CRITERION_STATUSES = ["met", "failed", "blocked", "pending"] as const;

/** One criterion's claimant side, updated over and over, each update with a value found nowhere else. */
export async function runCriterionWriter(ctx: WriterContext, n: number, criterion: string, client: Client): Promise<void> {
  const { ledger, sessionId } = ctx;
  for (let seq = 1; !ctx.stopped(); seq++) {
    const status = CRITERION_STATUSES[seq % CRITERION_STATUSES.length]!;
    const actual = `c${n}-u${seq}`;
    const outcome = await callWrite(ledger, () =>
      client.criteria.update.mutate({ sessionId, criterion, status, actual, evidence: `crash://criterion/${n}/${seq}` }),
    );
    if (outcome.ok) ledger.criteria.push({ criterionId: outcome.value.id, status: outcome.value.status, actual });
    else {
      if (outcome.answered) unexpected(ledger, `criteria.update ${actual}`, outcome);
      await sleep(RETRY_MS);
      if (!outcome.answered && outcome.sent) {
        const stored = await lookAgain(ctx, () => client.criteria.list.query({ sessionId }));
        if (stored.some((row) => row.criterion === criterion && row.actual === actual)) ledger.unansweredButStored += 1;
      }
    }
  }
}

/** Log batches of 20–400 rows (interactions, reasoning, tokens), each row carrying its batch's marker. */
export async function runBatchWriter(ctx: WriterContext, n: number, client: Client): Promise<void> {
  const { ledger, sessionId } = ctx;
  for (let seq = 1; !ctx.stopped(); seq++) {
    const batchId = `b${n}.${seq}`;
    const size = ctx.random.int(20, 400);
    const rows = batchRows(batchId, size);
    const outcome = await callWrite(ledger, () => client.log.batch.mutate({ sessionId, rows }));
    if (outcome.ok) {
      const { ids } = outcome.value;
      ledger.batches.push({ batchId, logIds: ids.filter((_, i) => rows[i]!.kind !== "tokens"), tokenIds: ids.filter((_, i) => rows[i]!.kind === "tokens") });
    } else {
      if (outcome.answered) unexpected(ledger, `log.batch ${batchId}`, outcome);
      await sleep(RETRY_MS);
      if (!outcome.answered && outcome.sent) {
        const stored = await lookAgain(ctx, () => client.log.list.query({ sessionId, groupId: batchId, limit: 1 }));
        if (stored.items.length > 0) ledger.unansweredButStored += 1;
      }
    }
  }
}

/** A read after a lost answer, repeated until the server is back (a refusal is recorded, then retried). */
async function lookAgain<T>(ctx: WriterContext, read: () => Promise<T>): Promise<T> {
  for (;;) {
    const outcome = await call(ctx.ledger, read);
    if (outcome.ok) return outcome.value;
    if (outcome.answered) unexpected(ctx.ledger, "a read after a lost answer", outcome);
    await sleep(RETRY_MS);
  }
}

/** Every tenth row is a token row (its agent id names the batch); the rest are logs whose text names batch, row and size. */
export function isTokenRow(row: number): boolean {
  return row % 10 === 0;
}

/** A batch's rows, each naming the batch, its place and the batch's size. */
export function batchRows(batchId: string, size: number) {
  return Array.from({ length: size }, (_, i) => batchRow(batchId, i + 1, size));
}

function batchRow(batchId: string, row: number, rows: number) {
  if (isTokenRow(row)) return { kind: "tokens" as const, agentType: "crash", tokens: row, agentId: batchId };
  const content = `${batchContent(batchId, row, rows)}${"payload ".repeat(row % 7)}`;
  if (row % 3 === 0) return { kind: "reasoning" as const, agentType: "crash", phase: "understanding" as const, content, groupId: batchId };
  return { kind: "interaction" as const, agentType: "crash", content, groupId: batchId };
}
