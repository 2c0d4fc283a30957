import { sql } from "drizzle-orm";
import type { DbOrTx } from "@/db/client";
import { rawAll } from "@/db/query";
import type { FindingCollector } from "./findings";

interface CriterionRow {
  id: number;
  session_id: string;
  criterion: string;
  status: string;
  actual: string | null;
  evidence: string | null;
  /** 0/1 on SQLite, a boolean on PostgreSQL. */
  required_for_completion: number | boolean;
  verifier_status: string | null;
  verifier_actual: string | null;
  verifier_evidence: string | null;
}

interface UpdateRow {
  id: number;
  criterion_id: number;
  kind: "create" | "claim" | "verify" | "required" | "import";
  to_status: string | null;
  actual: string | null;
  evidence: string | null;
  required: number | boolean | null;
}

/**
 * Every criterion's current state is its last recorded update: the claim (status, actual,
 * evidence) is the last create/claim/import, the verifier's finding the last verify, the required
 * flag the last update that set it. A row changed without its history shows up here.
 */
export async function checkCriteria(db: DbOrTx, found: FindingCollector): Promise<void> {
  const updates = new Map<number, UpdateRow[]>();
  for (const row of await rawAll<UpdateRow>(
    db,
    sql`SELECT id, criterion_id, kind, to_status, actual, evidence, required FROM criterion_updates ORDER BY criterion_id, id`,
  )) {
    const list = updates.get(row.criterion_id);
    if (list) list.push(row);
    else updates.set(row.criterion_id, [row]);
  }
  const criteria = await rawAll<CriterionRow>(db, sql`SELECT * FROM success_criteria ORDER BY id`);
  found.examined("success_criteria", criteria.length);
  found.examined(
    "criterion_updates",
    [...updates.values()].reduce((n, list) => n + list.length, 0),
  );
  for (const c of criteria) {
    const history = updates.get(c.id) ?? [];
    const mismatches: string[] = [];
    const claim = history.findLast((u) => u.kind === "create" || u.kind === "claim" || u.kind === "import");
    if (!claim) mismatches.push("no create, claim or import in its history");
    else {
      compare(mismatches, `update ${claim.id}`, [
        ["status", c.status, claim.to_status],
        ["actual", c.actual, claim.actual],
        ["evidence", c.evidence, claim.evidence],
      ]);
    }
    const finding = history.findLast((u) => u.kind === "verify");
    compare(mismatches, finding ? `verify update ${finding.id}` : "no verify update", [
      ["verifier_status", c.verifier_status, finding?.to_status ?? null],
      ["verifier_actual", c.verifier_actual, finding?.actual ?? null],
      ["verifier_evidence", c.verifier_evidence, finding?.evidence ?? null],
    ]);
    const required = history.findLast((u) => u.kind !== "claim" && u.kind !== "verify" && u.required !== null);
    if (required && Boolean(required.required) !== Boolean(c.required_for_completion)) {
      mismatches.push(`required_for_completion is ${Boolean(c.required_for_completion)}, update ${required.id} set ${Boolean(required.required)}`);
    }
    if (mismatches.length > 0) {
      found.add(
        "criterion.history",
        { table: "success_criteria", id: c.id, sessionId: c.session_id },
        `criterion "${c.criterion}" (${c.session_id}): ${mismatches.join("; ")}`,
      );
    }
  }
}

function compare(out: string[], source: string, fields: [string, unknown, unknown][]): void {
  for (const [field, current, recorded] of fields) {
    if (current !== recorded) out.push(`${field} is ${JSON.stringify(current)}, ${source} says ${JSON.stringify(recorded)}`);
  }
}
