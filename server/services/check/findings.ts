/** What the invariant checker reports: each broken invariant, named, with the row it found. */
export const INVARIANTS = [
  "database.integrity",
  "database.foreign_keys",
  "database.triggers",
  "task.verified_by_non_claimant",
  "task.unverified_flagged",
  "task.history",
  "criterion.history",
  "session.completion_checked",
  "event.missing",
  "session.rollups",
  "session.search_index",
] as const;
export type Invariant = (typeof INVARIANTS)[number];

export interface Finding {
  invariant: Invariant;
  /** The table and row the finding is about (none for whole-database checks). */
  table: string | null;
  id: string | null;
  sessionId: string | null;
  message: string;
}

export interface CheckReport {
  ok: boolean;
  /** Rows examined per table (or checks run), so "clean" can be told apart from "looked at nothing". */
  checked: Record<string, number>;
  /** How many findings each invariant had (all of them, even past the listing limit). */
  counts: Record<Invariant, number>;
  /** The findings, at most `limit` per invariant. */
  findings: Finding[];
  milliseconds: number;
}

/** Collects findings, keeping at most `limit` of each invariant but counting every one. */
export class FindingCollector {
  readonly findings: Finding[] = [];
  readonly counts = Object.fromEntries(INVARIANTS.map((i) => [i, 0])) as Record<Invariant, number>;
  readonly checked: Record<string, number> = {};

  constructor(private readonly limit: number) {}

  add(invariant: Invariant, where: { table?: string; id?: string | number | null; sessionId?: string | null }, message: string): void {
    this.counts[invariant] += 1;
    if (this.counts[invariant] > this.limit) return;
    this.findings.push({
      invariant,
      table: where.table ?? null,
      id: where.id === undefined || where.id === null ? null : String(where.id),
      sessionId: where.sessionId ?? null,
      message,
    });
  }

  /** Several checks read the same table: it is reported once. */
  examined(what: string, n: number): void {
    this.checked[what] = Math.max(this.checked[what] ?? 0, n);
  }

  total(): number {
    return Object.values(this.counts).reduce((a, b) => a + b, 0);
  }
}
