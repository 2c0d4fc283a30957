import { createHash } from "node:crypto";
import type { ColumnPlan, TablePlan } from "./plan";

/**
 * A value between the engines: integers (ids, counters, epoch-ms timestamps) as bigint, so no
 * value past 2^53 is rounded on the way; booleans as booleans (SQLite's 1/0, PostgreSQL's
 * true/false); reals as numbers; text (JSON included) as the exact string.
 */
export type Value = bigint | boolean | number | string | null;

export class CopyValueError extends Error {}

/** A value read from either engine, checked against its column's kind. */
export function toValue(table: TablePlan, column: ColumnPlan, raw: unknown): Value {
  if (raw === null || raw === undefined) return null;
  const refuse = (what: string): never => {
    throw new CopyValueError(`${table.name}.${column.name}: ${what} (${column.kind} column): ${JSON.stringify(typeof raw === "bigint" ? String(raw) : raw)}`);
  };
  switch (column.kind) {
    case "integer":
      if (typeof raw === "bigint") return raw;
      if (typeof raw === "number") return Number.isInteger(raw) ? BigInt(raw) : refuse("not an integer");
      if (typeof raw === "string" && /^-?\d+$/.test(raw)) return BigInt(raw);
      return refuse("not an integer");
    case "boolean":
      if (typeof raw === "boolean") return raw;
      if (raw === 0n || raw === 0) return false;
      if (raw === 1n || raw === 1) return true;
      return refuse("not a boolean (0 or 1)");
    case "real":
      if (typeof raw === "number") return raw;
      if (typeof raw === "bigint") return Number(raw);
      return refuse("not a number");
    case "text":
      if (typeof raw === "string") return raw;
      return refuse("not text");
  }
}

/** A row's canonical bytes: each value tagged with its kind and, for text, its length (no separator can be forged). */
function canonical(row: readonly Value[]): string {
  let out = "";
  for (const value of row) {
    if (value === null) out += "n;";
    else if (typeof value === "bigint") out += `i${value};`;
    else if (typeof value === "boolean") out += value ? "t;" : "f;";
    else if (typeof value === "number") out += `r${Object.is(value, -0) ? "-0" : String(value)};`;
    else out += `s${value.length}:${value};`;
  }
  return out;
}

const MASK = (1n << 64n) - 1n;

/**
 * An order-independent hash of a table's rows: the sum, lane by lane modulo 2^64, of each row's
 * sha256 (a multiset hash: the same rows in any order give the same sum, a changed, missing or
 * extra row changes it).
 */
export class TableHash {
  rows = 0;
  private lanes = [0n, 0n, 0n, 0n];

  add(row: readonly Value[]): void {
    const digest = createHash("sha256").update(canonical(row)).digest();
    for (let i = 0; i < 4; i++) this.lanes[i] = (this.lanes[i]! + digest.readBigUInt64LE(i * 8)) & MASK;
    this.rows += 1;
  }

  hex(): string {
    return this.lanes.map((lane) => lane.toString(16).padStart(16, "0")).join("");
  }
}
