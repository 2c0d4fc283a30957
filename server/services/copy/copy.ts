import fs from "node:fs";
import path from "node:path";
import { isPostgresUrl, redactUrl } from "@/db/pg/client";
import { ConflictError, DomainError, ValidationError } from "@/server/domain/errors";
import { type ProgressListener, noProgress } from "@/server/services/progress";
import { type EngineName, type LedgerReader, type LedgerWriter, PG_MAX_PARAMETERS } from "./engine";
import { type TablePlan, copyPlan } from "./plan";
import { CopyValueError, TableHash, type Value } from "./values";

/** A copy that failed part-way (a row the target refused): nothing of it was kept. Exit 1. */
export class CopyFailedError extends DomainError {
  readonly kind = "conflict" as const;
}

export interface CopyOptions {
  /** A SQLite file or a `postgres://` URL. */
  from: string;
  to: string;
  /** Check both sides and count the rows, write nothing. */
  dryRun?: boolean;
  onProgress?: ProgressListener;
}

export interface TableSummary {
  table: string;
  rows: number;
  /** The order-independent content hash (values.ts), equal on both sides. */
  hash: string;
  /** Copying and verifying this table. */
  milliseconds: number;
}

/** What the operator must carry over by hand: the key that seals webhook secrets and signs sign-in cookies lives outside the database. */
export interface SecretNote {
  /** Whether anything copied depends on the key (webhook signing secrets, sign-in sessions). */
  needed: boolean;
  webhooks: number;
  signInSessions: number;
  /** Where the source's key is: "BETTER_AUTH_SECRET", the key file, or null (none yet, or a PostgreSQL source: its servers' BETTER_AUTH_SECRET). */
  source: string | null;
  instruction: string;
}

export interface CopyResult {
  from: string;
  to: string;
  engines: { from: EngineName; to: EngineName };
  dryRun: boolean;
  /** Dry run: the target's first table that holds rows (the copy would be refused), or null. */
  targetNotEmpty?: string | null;
  /** Every table in copy order (foreign keys point backwards). */
  tables: TableSummary[];
  rows: number;
  /** Foreign-key columns written after every table was in (self-references and the cycle goals → attempts). */
  deferred: string[];
  verified: boolean;
  milliseconds: number;
  secret: SecretNote;
}

interface Endpoint {
  engine: EngineName;
  location: string;
  label: string;
  /** Two endpoints with the same key are the same database. */
  key: string;
}

function endpoint(value: string, flag: "--from" | "--to"): Endpoint {
  if (value.trim() === "") throw new ValidationError(flag, "copy.endpoint", "must name a SQLite file or a postgres:// URL");
  if (isPostgresUrl(value)) {
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      throw new ValidationError(flag, "copy.endpoint", `not a valid postgres:// URL: ${redactUrl(value)}`);
    }
    const host = url.searchParams.get("host") ?? (url.hostname || "localhost");
    const port = url.port || url.searchParams.get("port") || "5432";
    const database = decodeURIComponent(url.pathname.replace(/^\//, "")) || decodeURIComponent(url.username) || "postgres";
    return { engine: "postgres", location: value, label: redactUrl(value), key: `postgres:${host.toLowerCase()}:${port}/${database}` };
  }
  const resolved = path.resolve(value);
  let key = resolved;
  try {
    const stat = fs.statSync(resolved);
    key = `${stat.dev}:${stat.ino}`;
  } catch {
    // Not there yet: its path is its identity.
  }
  return { engine: "sqlite", location: value, label: value, key };
}

const batchOf = (table: TablePlan) => Math.max(1, Math.min(1000, Math.floor(PG_MAX_PARAMETERS / table.columns.length)));

/** A side that cannot be opened (no server there, no such database, not a SQLite file, no permission): the CLI's "database unavailable", exit 4. */
export class CopyUnavailableError extends Error {
  constructor(
    readonly flag: "--from" | "--to",
    label: string,
    cause: unknown,
  ) {
    super(`${flag} ${label}: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
  }
}

async function opening<T>(end: Endpoint, flag: "--from" | "--to", open: () => T | Promise<T>): Promise<T> {
  try {
    return await open();
  } catch (error) {
    if (error instanceof DomainError) throw error;
    throw new CopyUnavailableError(flag, end.label, error);
  }
}

function openReader(end: Endpoint, flag: "--from" | "--to"): Promise<LedgerReader> {
  return opening(end, flag, async () =>
    end.engine === "postgres" ? (await import("./pg")).openPgReader(end.location) : (await import("./sqlite")).openSqliteReader(end.location),
  );
}

function openWriter(end: Endpoint): Promise<LedgerWriter> {
  return opening(end, "--to", async () =>
    end.engine === "postgres" ? (await import("./pg")).openPgWriter(end.location) : (await import("./sqlite")).openSqliteWriter(end.location),
  );
}

/** Every table and column the copy reads must be there (a ledger of an older version lacks some). */
async function checkSchema(reader: LedgerReader, plan: readonly TablePlan[], flag: string): Promise<void> {
  const present = await reader.columns();
  if (!present.has("sessions") || !present.has("tasks"))
    throw new ValidationError(flag, "copy.not_a_ledger", `${reader.label} is not a Proofgate ledger (it has no sessions and tasks tables)`);
  for (const table of plan) {
    const columns = present.get(table.name);
    const missing = columns ? table.columns.find((c) => !columns.has(c.name)) : undefined;
    if (!columns || missing)
      throw new ValidationError(
        flag,
        "copy.schema_behind",
        `${reader.label} has no ${missing ? `column ${table.name}.${missing.name}` : `table ${table.name}`}: it was written by an older Proofgate; open it once with this version (any command on it, e.g. proofgate list-sessions --db, migrates it) and copy again`,
      );
  }
}

/**
 * Copy a whole ledger between engines (SQLite file ⇄ PostgreSQL database, either way, or between
 * two of a kind) with its rules intact: every table in foreign-key order, every column by name, in
 * batches, inside ONE transaction on the target — migrated first and required to hold no ledger
 * row — with the target's triggers off (the insert rules would refuse history, the rollups would
 * count it twice: counters and rollups are copied as they are). Then, before the commit, every
 * table's row count and content hash are compared on both sides; any difference, or any failure
 * on the way, rolls the target back to what it was.
 */
export async function copyLedger(options: CopyOptions): Promise<CopyResult> {
  const started = performance.now();
  const report = options.onProgress ?? noProgress;
  const from = endpoint(options.from, "--from");
  const to = endpoint(options.to, "--to");
  if (from.key === to.key) throw new ValidationError("--to", "copy.same_database", `is the same database as --from (${from.label}): copy into another one`);
  if (from.engine === "sqlite" && !fs.existsSync(from.location)) throw new ValidationError("--from", "copy.source_missing", `no database at ${from.location}`);
  const plan = copyPlan();
  const deferred = plan.flatMap((table) => table.deferred.map((column) => `${table.name}.${column}`));

  const source = await openReader(from, "--from");
  try {
    await opening(from, "--from", () => checkSchema(source, plan, "--from"));
    const counts = new Map<string, number>();
    for (const table of plan) counts.set(table.name, await source.count(table));
    const total = [...counts.values()].reduce((a, b) => a + b, 0);
    const secret = secretNote(from, to, counts);
    const base = { from: from.label, to: to.label, engines: { from: from.engine, to: to.engine }, deferred, secret };

    // Before anything is created or migrated: a target that holds ledger rows, or is some other database, is refused as it is.
    const targetNotEmpty = await inspectTarget(to, plan);
    if (options.dryRun) {
      const tables = plan.map((table) => ({ table: table.name, rows: counts.get(table.name)!, hash: "", milliseconds: 0 }));
      return { ...base, dryRun: true, targetNotEmpty, tables, rows: total, verified: false, milliseconds: Math.round(performance.now() - started) };
    }

    if (targetNotEmpty) throw notEmpty(to, targetNotEmpty);
    const target = await openWriter(to);
    try {
      await checkSchema(target, plan, "--to");
      // Again inside the transaction: a server may have written since the look above.
      const occupied = await target.firstNonEmpty(plan);
      if (occupied) throw notEmpty(to, occupied);
      await target.disableTriggers(plan).catch((error: Error) => {
        throw new CopyFailedError("copy.triggers", `${error.message}; nothing was written`);
      });

      const hashes = new Map<string, TableHash>();
      const times = new Map<string, number>();
      const later: { table: TablePlan; column: string; pairs: [Value, Value][] }[] = [];
      let done = 0;
      report({ phase: "copying", done, total, unit: "rows" });
      for (const table of plan) {
        const tableStarted = performance.now();
        const hash = new TableHash();
        const deferredAt = table.deferred.map((column) => table.columns.findIndex((c) => c.name === column));
        const keyAt = table.columns.findIndex((c) => c.name === table.primaryKey);
        const pending = table.deferred.map((column) => ({ table, column, pairs: [] as [Value, Value][] }));
        let batchNumber = 0;
        try {
          for await (const rows of source.rows(table, batchOf(table))) {
            for (const row of rows) hash.add(row);
            const written = deferredAt.length === 0 ? rows : rows.map((row) => withNulls(row, deferredAt, keyAt, pending));
            try {
              await target.insert(table, written);
            } catch (error) {
              throw failed(error, `${table.name} (rows ${batchNumber * batchOf(table) + 1}–${batchNumber * batchOf(table) + rows.length})`);
            }
            batchNumber += 1;
            done += rows.length;
            report({ phase: "copying", done, total, unit: "rows" });
          }
        } catch (error) {
          if (!(error instanceof CopyValueError)) throw error;
          throw new CopyFailedError(
            "copy.source_value",
            `the source holds a value its column's type does not allow, ${error.message}; the copy was rolled back, the target is as it was`,
          );
        }
        hashes.set(table.name, hash);
        times.set(table.name, performance.now() - tableStarted);
        later.push(...pending.filter((p) => p.pairs.length > 0));
      }
      for (const { table, column, pairs } of later) {
        try {
          await target.update(table, column, pairs);
        } catch (error) {
          throw failed(error, `${table.name}.${column}`);
        }
      }
      await target.enableTriggers();
      for (const table of plan) await target.continueIdentity(table, await source.highWater(table));

      // Verify before the commit: a difference rolls the copy back.
      let checked = 0;
      report({ phase: "verifying", done: 0, total, unit: "rows" });
      const tables: TableSummary[] = [];
      const differences: string[] = [];
      for (const table of plan) {
        const tableStarted = performance.now();
        const copied = new TableHash();
        for await (const rows of target.rows(table, batchOf(table))) {
          for (const row of rows) copied.add(row);
          checked += rows.length;
          report({ phase: "verifying", done: Math.min(checked, total), total, unit: "rows" });
        }
        const original = hashes.get(table.name)!;
        const rows = await target.count(table);
        if (rows !== original.rows || copied.rows !== original.rows) differences.push(`${table.name}: ${original.rows} rows in the source, ${rows} copied`);
        else if (copied.hex() !== original.hex()) differences.push(`${table.name}: the content differs`);
        tables.push({ table: table.name, rows, hash: copied.hex(), milliseconds: Math.round(times.get(table.name)! + performance.now() - tableStarted) });
      }
      report({ phase: "verifying", done: total, total, unit: "rows" });
      if (differences.length > 0)
        throw new CopyFailedError("copy.verify_failed", `the copy differs from the source, so it was rolled back: ${differences.join("; ")}`);
      await target.commit();
      return { ...base, dryRun: false, tables, rows: total, verified: true, milliseconds: Math.round(performance.now() - started) };
    } catch (error) {
      await target.rollback().catch(() => {});
      throw error;
    }
  } finally {
    await source.close();
  }
}

/** The row as inserted: its deferred foreign keys NULL, their values kept to set once every table is in. */
function withNulls(row: Value[], deferredAt: number[], keyAt: number, pending: { pairs: [Value, Value][] }[]): Value[] {
  const copy = [...row];
  deferredAt.forEach((index, i) => {
    if (copy[index] !== null) {
      pending[i]!.pairs.push([row[keyAt]!, copy[index]!]);
      copy[index] = null;
    }
  });
  return copy;
}

/** The target refused a row: say where, and that nothing was kept. */
function failed(error: unknown, where: string): Error {
  if (error instanceof DomainError) return error;
  // PostgreSQL's `detail` ("Failing row contains (…)") is left out: the row may hold a sign-in token or a sealed secret.
  const message = error instanceof Error ? error.message : String(error);
  return new CopyFailedError("copy.failed", `the target refused ${where}: ${message}; the copy was rolled back, the target is as it was`);
}

const notEmpty = (to: Endpoint, table: string) =>
  new ConflictError(
    "copy.target_not_empty",
    `${to.label} already holds ledger rows (table ${table}): the target must be a fresh, empty database; nothing was written`,
  );

/** Bookkeeping a fresh database has besides the ledger's tables (SQLite's, the search index's, the migrations'). */
const BOOKKEEPING = /^(sqlite_|sessions_search|__drizzle_migrations$)/;

/**
 * The target's first ledger table holding a row (null: empty or new), read without creating,
 * migrating or writing anything. A database with tables of its own and none of the ledger's is
 * refused: migrating it would add the ledger's tables to someone else's database.
 */
async function inspectTarget(to: Endpoint, plan: readonly TablePlan[]): Promise<string | null> {
  if (to.engine === "sqlite" && !fs.existsSync(to.location)) return null;
  const reader = await openReader(to, "--to");
  try {
    const present = await opening(to, "--to", () => reader.columns());
    const ours = new Set(plan.map((t) => t.name));
    const others = [...present.keys()].filter((name) => !ours.has(name) && !BOOKKEEPING.test(name)).sort();
    if (others.length > 0 && !plan.some((t) => present.has(t.name)))
      throw new ValidationError(
        "--to",
        "copy.not_a_ledger",
        `${to.label} holds other tables (${others.slice(0, 5).join(", ")}${others.length > 5 ? ", …" : ""}) and no ledger: copy into a new file or an empty database`,
      );
    for (const table of plan) if (present.has(table.name) && (await reader.count(table)) > 0) return table.name;
    return null;
  } finally {
    await reader.close();
  }
}

function secretNote(from: Endpoint, to: Endpoint, counts: Map<string, number>): SecretNote {
  const webhooks = counts.get("webhook_subscriptions") ?? 0;
  const signInSessions = counts.get("auth_sessions") ?? 0;
  const needed = webhooks > 0 || signInSessions > 0;
  const env = (process.env.BETTER_AUTH_SECRET ?? "").length >= 32;
  const keyFile = from.engine === "sqlite" ? `${path.resolve(from.location)}.secret` : null;
  const source = env ? "BETTER_AUTH_SECRET" : keyFile && fs.existsSync(keyFile) ? keyFile : null;
  const what = "the key that seals webhook signing secrets and signs sign-in cookies is not in the database";
  const key =
    source === "BETTER_AUTH_SECRET" ? "the BETTER_AUTH_SECRET in use here" : source ? `the contents of ${source}` : "the BETTER_AUTH_SECRET its servers use";
  const carry =
    to.engine === "sqlite"
      ? `put ${key} into ${path.resolve(to.location)}.secret (mode 0600), or set BETTER_AUTH_SECRET to it wherever the copy is served`
      : `set BETTER_AUTH_SECRET to ${key} on every server of ${to.label}`;
  const consequence = needed
    ? `without it the ${webhooks} webhook(s) cannot sign their deliveries and ${signInSessions} sign-in session(s) end (passwords and API tokens keep working)`
    : "nothing copied depends on it yet (no webhook, no sign-in session); passwords and API tokens never do";
  return {
    needed,
    webhooks,
    signInSessions,
    source,
    instruction:
      from.engine === "sqlite" && !source && !needed ? `${what}; the source has none yet: nothing to carry over` : `${what}: ${carry}; ${consequence}`,
  };
}

/** Every table's row count and content hash (the ones a copy compares), for a SQLite file or a postgres:// URL. */
export async function ledgerHashes(location: string): Promise<Record<string, { rows: number; hash: string }>> {
  const plan = copyPlan();
  const reader = await openReader(endpoint(location, "--from"), "--from");
  try {
    await checkSchema(reader, plan, "--from");
    const out: Record<string, { rows: number; hash: string }> = {};
    for (const table of plan) {
      const hash = new TableHash();
      for await (const rows of reader.rows(table, batchOf(table))) for (const row of rows) hash.add(row);
      out[table.name] = { rows: hash.rows, hash: hash.hex() };
    }
    return out;
  } finally {
    await reader.close();
  }
}
