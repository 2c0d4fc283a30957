/** What one import (or one pass of a follower) did, per entity, with the reason for every skip. */
export interface Skip {
  /** The source row, e.g. `bazinga_20250112_143022|group_a` or `log 42`. */
  key: string;
  reason: string;
}

export interface EntityReport {
  entity: string;
  /** Rows read from the source. */
  read: number;
  /** New in Proofgate. */
  imported: number;
  /** Imported before and changed in the source since: the change was applied (a new transition, update or version). */
  updated: number;
  /** Imported before and unchanged: nothing written. */
  unchanged: number;
  skipped: number;
  skips: Skip[];
}

export interface ImportReport {
  source: "bazinga" | "shots-on-goal";
  file: string;
  /** What the importer found: BAZINGA's schema version and how it knew, or shots-on-goal's schema. */
  schema: { version: string; detectedFrom: string; notes: string[] };
  entities: EntityReport[];
  /** Source tables and columns that have no place in Proofgate (with their row counts). */
  notMapped: string[];
  milliseconds: number;
}

/** Counts per entity, in the order entities are first touched. */
export class Tally {
  private readonly byEntity = new Map<string, EntityReport>();

  constructor(order: readonly string[] = []) {
    for (const entity of order) this.entity(entity);
  }

  entity(name: string): EntityReport {
    let report = this.byEntity.get(name);
    if (!report) {
      report = { entity: name, read: 0, imported: 0, updated: 0, unchanged: 0, skipped: 0, skips: [] };
      this.byEntity.set(name, report);
    }
    return report;
  }

  read(entity: string, n = 1): void {
    this.entity(entity).read += n;
  }

  count(entity: string, outcome: "imported" | "updated" | "unchanged"): void {
    this.entity(entity)[outcome] += 1;
  }

  skip(entity: string, key: string, reason: string): void {
    const report = this.entity(entity);
    report.skipped += 1;
    report.skips.push({ key, reason });
  }

  entities(): EntityReport[] {
    return [...this.byEntity.values()];
  }

  /** Whether anything was written (a follower prints only the passes that did something). */
  changed(): boolean {
    return this.entities().some((e) => e.imported > 0 || e.updated > 0);
  }
}

/** Add one pass's counts into a running total (a follower's summary when it stops). */
export function mergeEntities(total: Tally, pass: readonly EntityReport[]): void {
  for (const e of pass) {
    const into = total.entity(e.entity);
    into.read += e.read;
    into.imported += e.imported;
    into.updated += e.updated;
    into.unchanged += e.unchanged;
    into.skipped += e.skipped;
    into.skips.push(...e.skips);
  }
}

/** The human-readable summary: one line per entity, then each skip reason with the rows it applies to. */
export function formatReport(report: ImportReport): string {
  const lines = [`${report.file}: ${report.source} schema ${report.schema.version} (${report.schema.detectedFrom})`];
  for (const note of report.schema.notes) lines.push(`  note: ${note}`);
  const width = Math.max(6, ...report.entities.map((e) => e.entity.length));
  lines.push(`  ${"entity".padEnd(width)}  ${["read", "imported", "updated", "unchanged", "skipped"].map((h) => h.padStart(10)).join("")}`);
  for (const e of report.entities) {
    lines.push(`  ${e.entity.padEnd(width)}  ${[e.read, e.imported, e.updated, e.unchanged, e.skipped].map((n) => String(n).padStart(10)).join("")}`);
  }
  for (const e of report.entities) {
    for (const [reason, keys] of groupSkips(e.skips)) {
      const shown = keys.slice(0, 5).join(", ");
      lines.push(`  skipped ${e.entity} (${keys.length}): ${reason} — ${shown}${keys.length > 5 ? `, and ${keys.length - 5} more` : ""}`);
    }
  }
  if (report.notMapped.length > 0) lines.push(`  not mapped: ${report.notMapped.join("; ")}`);
  lines.push(`  done in ${(report.milliseconds / 1000).toFixed(1)} s`);
  return lines.join("\n");
}

/** One line for a follower's pass: what it wrote and skipped, entity by entity. */
export function formatPass(report: Pick<ImportReport, "entities">): string {
  const parts = report.entities.flatMap((e) => [
    ...(e.imported > 0 ? [`+${e.imported} ${e.entity}`] : []),
    ...(e.updated > 0 ? [`${e.updated} ${e.entity} updated`] : []),
    ...(e.skipped > 0 ? [`${e.skipped} ${e.entity} skipped (${[...new Set(e.skips.map((s) => s.reason))].join("; ")})`] : []),
  ]);
  return `${new Date().toISOString().slice(11, 19)} ${parts.length > 0 ? parts.join(", ") : "nothing new"}`;
}

function groupSkips(skips: readonly Skip[]): Map<string, string[]> {
  const groups = new Map<string, string[]>();
  for (const skip of skips) {
    const keys = groups.get(skip.reason) ?? [];
    keys.push(skip.key);
    groups.set(skip.reason, keys);
  }
  return groups;
}
