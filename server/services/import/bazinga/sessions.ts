import { queryGet } from "@/db/query";
import { sessions as sessionsTable } from "@/db/schema";
import { SESSION_STATUSES } from "@/server/domain/vocabulary";
import { eq } from "drizzle-orm";
import { createSession } from "../../session/create";
import { updateSessionStatus } from "../../session/update-status";
import { type ImportRun, apply, at } from "../run";
import { firstTime, isObject, parseJson, text, label } from "../values";
import type { Row } from "./read";

/** The sessions a pass may write under, and why the others may not. */
export class SessionGate {
  private readonly allowed = new Map<string, Date>();
  private readonly refused = new Map<string, string>();
  /** Sessions created in this pass: their status is applied with the pass, not counted again. */
  readonly created = new Set<string>();

  allow(id: string, startedAt: Date): void {
    this.allowed.set(id, startedAt);
  }

  refuse(id: string, reason: string): void {
    this.refused.set(id, reason);
  }

  /** Why rows of this session cannot be imported, or null when they can. */
  refusal(sessionId: unknown): string | null {
    const id = text(sessionId);
    if (id === null) return "it names no session";
    if (this.allowed.has(id)) return null;
    return `its session ${id} was not imported${this.refused.has(id) ? ` (${this.refused.get(id)})` : ""}`;
  }

  /** Whether this session was already seen (allowed or refused) in this sync. */
  knows(sessionId: unknown): boolean {
    const id = text(sessionId) ?? "";
    return this.allowed.has(id) || this.refused.has(id);
  }

  startOf(id: string): Date | undefined {
    return this.allowed.get(id);
  }
}

/** A session imported before and deleted since (a retention purge) stays deleted. */
export const PURGED = "it was imported before and has since been purged from Proofgate: it is not brought back";

interface SessionState {
  status: string;
}

/**
 * BAZINGA's sessions, ids kept, `source = 'bazinga'`, in `observe` enforcement: BAZINGA reports
 * statuses without claim and verify moves, and observe records them as what they are. A session
 * id Proofgate already has from elsewhere is left alone, with everything in it.
 */
export async function importSessions(run: ImportRun, rows: readonly Row[], gate: SessionGate): Promise<void> {
  for (const row of rows) {
    run.tally.read("sessions");
    const id = text(row.session_id) ?? "";
    const startedAt = firstTime(run.startedAt, row.start_time, row.created_at);
    const exists = await queryGet(run.db.select({ id: sessionsTable.id }).from(sessionsTable).where(eq(sessionsTable.id, id)));
    if (await run.book.get("session", id)) {
      if (exists) gate.allow(id, startedAt);
      else {
        gate.refuse(id, PURGED);
        run.tally.skip("sessions", id, PURGED);
      }
      continue;
    }
    if (exists) {
      const reason = "a session with this id already exists in Proofgate and was not imported from BAZINGA";
      gate.refuse(id, reason);
      run.tally.skip("sessions", id, reason);
      continue;
    }
    const ok = await apply(run, "sessions", id, async () => {
      // The verb checks the mapped values with its own schema (naming the field a row breaks).
      await createSession(at(run, startedAt), {
        id,
        requirements: text(row.original_requirements),
        mode: label(row.mode),
        initialBranch: label(row.initial_branch),
        metadata: metadataOf(row.metadata),
        source: "bazinga",
        enforcement: "observe",
      });
      await run.book.put("session", id, { targetId: id, sessionId: id, state: { status: "active" } satisfies SessionState }, startedAt);
      return "imported";
    });
    if (ok) {
      gate.allow(id, startedAt);
      gate.created.add(id);
    } else gate.refuse(id, "it could not be created");
  }
}

function metadataOf(value: unknown): Record<string, unknown> | null {
  if (value === null || value === undefined || value === "") return null;
  const parsed = parseJson(value);
  if (isObject(parsed)) return parsed;
  return { value: parsed === undefined ? String(value) : parsed };
}

/**
 * Last in a pass, once the session's tasks and criteria are in: a status BAZINGA changed is
 * applied through the session service, so completing one runs the completion gate and records its
 * verdict (an observe session completes as BAZINGA said, with the gate's rejection on record).
 */
export async function importSessionStatuses(run: ImportRun, rows: readonly Row[], gate: SessionGate): Promise<void> {
  for (const row of rows) {
    const id = text(row.session_id) ?? "";
    if (gate.refusal(id) !== null) continue;
    const record = (await run.book.get("session", id))!;
    const applied = (JSON.parse(record.state ?? "{}") as Partial<SessionState>).status ?? "active";
    const status = text(row.status) ?? "active";
    const created = gate.created.has(id);
    if (status === applied) {
      if (!created) run.tally.count("sessions", "unchanged");
      continue;
    }
    if (!(SESSION_STATUSES as readonly string[]).includes(status)) {
      run.tally.skip("sessions", id, `status ${JSON.stringify(status)} is not one of ${SESSION_STATUSES.join(", ")}: the session keeps ${applied}`);
      continue;
    }
    const when = firstTime(gate.startOf(id) ?? run.startedAt, status === "active" ? null : row.end_time, row.start_time);
    const work = async () => {
      await updateSessionStatus(at(run, when), { sessionId: id, status: status as (typeof SESSION_STATUSES)[number] });
      await run.book.put("session", id, { targetId: id, sessionId: id, state: { status } satisfies SessionState }, when);
      return "updated" as const;
    };
    if (created) {
      // Part of the import that created it: not a second change.
      try {
        await run.writer.row(work);
      } catch (error) {
        run.tally.skip("sessions", `${id} status`, error instanceof Error ? error.message : String(error));
      }
    } else await apply(run, "sessions", id, work);
  }
}
