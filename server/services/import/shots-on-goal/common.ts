import { createHash } from "node:crypto";
import { eq } from "drizzle-orm";
import { queryGet } from "@/db/query";
import { sessions } from "@/db/schema";
import type { AttemptResultStatus } from "@/server/domain/vocabulary";
import { createSession } from "../../session/create";
import type { CreateSessionInput } from "../../session/schemas";
import { updateSessionStatus } from "../../session/update-status";
import { PURGED } from "../bazinga/sessions";
import { type ImportRun, apply, at } from "../run";
import { importTimedToolCalls } from "../tool-call-batch";
import { firstTime, int, label, reasonOf, text } from "../values";

export type Row = Record<string, unknown>;

/** Why a row could not be imported; its dependants are skipped naming it. */
export class Unresolved extends Error {}

/** A session id that stays the same on every import of the same file (or a later copy): the source id and a hash of what never changes. */
export function stableSessionId(prefix: string, sourceId: unknown, ...stable: unknown[]): string {
  const id =
    String(sourceId ?? "")
      .replace(/[^A-Za-z0-9._:-]+/g, "-")
      .slice(0, 80) || "session";
  const hash = createHash("sha256").update(JSON.stringify(stable)).digest("hex").slice(0, 10);
  return `${prefix}_${id}_${hash}`;
}

/** Each source row resolved at most once per run: its Proofgate id, or why it was skipped. */
export class Resolver {
  private readonly resolved = new Map<string, number>();
  private readonly failed = new Map<string, string>();
  private readonly active = new Set<string>();

  constructor(private readonly run: ImportRun) {}

  /**
   * The Proofgate id of a source row: from an earlier import, from this run, or by importing it
   * now. `deps` resolves what the row needs first (each in its own write); `make` then writes the
   * row itself and returns its id. Counted once, under `entity`; a row whose dependency could not
   * be imported is skipped naming it, and so are its own dependants. One row at a time: await each
   * call before the next (the rows it writes share the import's open batch).
   */
  async resolve<D>(entity: string, kind: string, key: string, deps: () => D | Promise<D>, make: (deps: D) => Promise<number>): Promise<number> {
    const id = `${kind}\u0000${key}`;
    const done = this.resolved.get(id);
    if (done !== undefined) return done;
    const why = this.failed.get(id);
    if (why !== undefined) throw new Unresolved(why);
    if (this.active.has(id)) throw new Unresolved(`${kind} ${key} depends on itself`);
    const fail = (reason: string): never => {
      this.run.tally.skip(entity, key, reason);
      this.failed.set(id, `${kind} ${key} was not imported (${reason})`);
      throw new Unresolved(this.failed.get(id));
    };
    this.active.add(id);
    try {
      let needed: D;
      try {
        needed = await deps();
      } catch (error) {
        if (error instanceof Unresolved) return fail(error.message);
        throw error;
      }
      const record = await this.run.book.get(kind, key);
      if (record?.targetId) {
        this.resolved.set(id, Number(record.targetId));
        this.run.tally.count(entity, "unchanged");
        return Number(record.targetId);
      }
      let target = 0;
      const ok = await apply(this.run, entity, key, async () => {
        target = await make(needed);
        // Keys start with the Proofgate session id: `<session>|…`.
        await this.run.book.put(kind, key, { targetId: target, sessionId: key.split("|")[0]! }, this.run.startedAt);
        return "imported";
      });
      if (!ok) {
        const reason = this.run.tally.entity(entity).skips.at(-1)!.reason;
        this.failed.set(id, `${kind} ${key} was not imported (${reason})`);
        throw new Unresolved(this.failed.get(id));
      }
      this.resolved.set(id, target);
      return target;
    } finally {
      this.active.delete(id);
    }
  }

  /** Resolve, and count nothing more when it fails (the skip was counted where it happened). */
  async attempt(work: () => Promise<unknown>): Promise<void> {
    try {
      await work();
    } catch (error) {
      if (!(error instanceof Unresolved)) throw error;
    }
  }
}

/** Create an imported session once (its id is stable); an id Proofgate has from elsewhere is left alone. */
/** Returns whether the session is in Proofgate, and whether this run created it. */
export async function ensureSession(
  run: ImportRun,
  sessionId: string,
  when: Date,
  values: Omit<CreateSessionInput, "id" | "source" | "enforcement">,
): Promise<{ ok: boolean; created: boolean }> {
  run.tally.read("sessions");
  if (await run.book.get("sog_session", sessionId)) {
    // Between rows: through the writer, so a session created in its open batch is seen.
    const present = await run.writer.read(() => queryGet(run.db.select({ id: sessions.id }).from(sessions).where(eq(sessions.id, sessionId))));
    if (present) {
      run.tally.count("sessions", "unchanged");
      return { ok: true, created: false };
    }
    run.tally.skip("sessions", sessionId, PURGED);
    return { ok: false, created: false };
  }
  const created = await apply(run, "sessions", sessionId, async () => {
    await createSession(at(run, when), { ...values, id: sessionId, source: "shots-on-goal", enforcement: "observe" });
    await run.book.put("sog_session", sessionId, { targetId: sessionId, sessionId, state: { status: "active" } }, when);
    return "imported";
  });
  return { ok: created, created };
}

/** A session status the source changed (v1 updates it in place): applied once, through the session service. */
export async function applySessionStatus(
  run: ImportRun,
  sessionId: string,
  status: "active" | "completed" | "failed",
  when: Date,
  createdNow: boolean,
): Promise<void> {
  const record = await run.book.get("sog_session", sessionId);
  if (!record) return;
  const applied = (JSON.parse(record.state ?? "{}") as { status?: string }).status ?? "active";
  if (applied === status) return;
  const work = async () => {
    await updateSessionStatus(at(run, when), { sessionId, status });
    await run.book.put("sog_session", sessionId, { targetId: sessionId, sessionId, state: { status } }, when);
    return "updated" as const;
  };
  if (!createdNow) {
    // A status changed in place since the last import: one update of an imported session.
    run.tally.entity("sessions").unchanged -= 1;
    await apply(run, "sessions", `${sessionId} status`, work);
    return;
  }
  try {
    await run.writer.row(work);
  } catch (error) {
    run.tally.skip("sessions", `${sessionId} status`, error instanceof Error ? error.message : String(error));
  }
}

export interface SourceCall {
  key: string;
  tool: string;
  input: string | null;
  output: string | null;
  time: Date;
}

/**
 * An attempt's tool calls not yet imported, in order, in one write through the timed tool-call
 * service (each keeps its time; the service numbers them on from the attempt's last call). A batch
 * the service refuses is retried call by call, so only the call it refuses is skipped.
 */
export async function importToolCalls(run: ImportRun, entity: string, attemptId: number, calls: readonly SourceCall[], sessionId: string): Promise<void> {
  const fresh: SourceCall[] = [];
  for (const call of calls) {
    if (!(await run.book.get("tool_call", call.key))) fresh.push(call);
    else run.tally.count(entity, "unchanged");
  }
  const write = async (batch: readonly SourceCall[]): Promise<void> => {
    if (batch.length === 0) return;
    try {
      await run.writer.row(async () => {
        const result = await importTimedToolCalls(at(run, batch.at(-1)!.time), {
          attemptId,
          calls: batch.map((call) => ({
            at: call.time,
            call: { tool: call.tool, ...(call.input === null ? {} : { input: call.input }), ...(call.output === null ? {} : { output: call.output }) },
          })),
        });
        for (const [n, call] of batch.entries()) await run.book.put("tool_call", call.key, { targetId: result.firstOrder + n, sessionId }, call.time);
      });
      for (let n = 0; n < batch.length; n++) run.tally.count(entity, "imported");
    } catch (error) {
      if (batch.length === 1) run.tally.skip(entity, batch[0]!.key, reasonOf(error));
      else for (const call of batch) await write([call]);
    }
  };
  for (let i = 0; i < fresh.length; i += 500) await write(fresh.slice(i, i + 500));
}

/** Attempt outcomes of both schemas in Proofgate's five (003). */
export const RESULT_STATUS: Readonly<Record<string, AttemptResultStatus>> = {
  success: "success",
  error: "error",
  timeout: "timeout",
  tool_limit: "tool_limit",
  completed: "completed",
  // v1's words
  llm_timeout: "timeout",
  tool_limit_exceeded: "tool_limit",
  validation_failed: "completed",
};

export const when = (run: ImportRun, ...values: unknown[]) => firstTime(run.startedAt, ...values);
export { int, label, text };
