/**
 * The PostgreSQL side of a copy. Loaded only when a `postgres://` URL is given (copy.ts imports it
 * with `await import`), so SQLite copies and every other command never load `pg`.
 */
import type { PoolClient, QueryConfig } from "pg";
import { type PgDb, closePgDatabase, openPgDatabase, redactUrl } from "@/db/pg/client";
import { WRITER_LOCK } from "@/db/pg/write";
import { type LedgerReader, type LedgerWriter, PG_MAX_PARAMETERS, quote } from "./engine";
import type { ColumnKind, TablePlan } from "./plan";
import { type Value, toValue } from "./values";

const CAST: Record<ColumnKind, string> = { integer: "bigint", boolean: "boolean", real: "double precision", text: "text" };
const CURSOR = "proofgate_copy";
const INT8 = 20;
const NUMERIC = 1700;

interface Connection {
  db: PgDb;
  client: PoolClient;
  /** bigint and numeric as their text (exact), every other type as pg parses it: the process-global int8 parser rounds past 2^53. */
  types: NonNullable<QueryConfig["types"]>;
}

async function connect(url: string, migrate: boolean): Promise<Connection> {
  const [{ default: pg }, db] = await Promise.all([import("pg"), openPgDatabase(url, { migrate, max: 1, applicationName: "proofgate copy" })]);
  try {
    const client = await db.$client.connect();
    const types = {
      getTypeParser: ((oid: number, format?: "text" | "binary") =>
        oid === INT8 || oid === NUMERIC ? (text: string) => text : pg.types.getTypeParser(oid, format)) as NonNullable<QueryConfig["types"]>["getTypeParser"],
    };
    return { db, client, types };
  } catch (error) {
    await closePgDatabase(db);
    throw error;
  }
}

function reader({ client, types }: Connection, label: string, end: () => Promise<void>): LedgerReader {
  return {
    engine: "postgres",
    label,
    async columns() {
      const { rows } = await client.query<{ table_name: string; column_name: string }>(
        "SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = current_schema()",
      );
      const tables = new Map<string, Set<string>>();
      for (const row of rows) {
        if (!tables.has(row.table_name)) tables.set(row.table_name, new Set());
        tables.get(row.table_name)!.add(row.column_name);
      }
      return tables;
    },
    async count(table) {
      const { rows } = await client.query<{ n: string }>({ text: `SELECT count(*) AS n FROM ${quote(table.name)}`, types });
      return Number(rows[0]!.n);
    },
    async *rows(table, batch) {
      await client.query(`DECLARE ${CURSOR} NO SCROLL CURSOR FOR SELECT ${table.columns.map((c) => quote(c.name)).join(", ")} FROM ${quote(table.name)}`);
      let open = true;
      try {
        for (;;) {
          const { rows } = await client.query<unknown[]>({ text: `FETCH FORWARD ${batch} FROM ${CURSOR}`, rowMode: "array", types });
          if (rows.length === 0) break;
          yield rows.map((raw) => table.columns.map((column, i) => toValue(table, column, raw[i])));
        }
        await client.query(`CLOSE ${CURSOR}`);
        open = false;
      } finally {
        // Stopped early (the other side failed): close the cursor if the transaction still can.
        if (open) await client.query(`CLOSE ${CURSOR}`).catch(() => {});
      }
    },
    async highWater(table) {
      const sequence = await sequenceOf(client, table);
      if (!sequence) return null;
      const { rows } = await client.query<{ last: string; called: boolean }>({
        text: `SELECT last_value AS last, is_called AS called FROM ${sequence}`,
        types,
      });
      return rows[0]!.called ? BigInt(rows[0]!.last) : null;
    },
    close: end,
  };
}

/** The identity column's sequence, or null (pg_get_serial_sequence answers for identities too). */
async function sequenceOf(client: PoolClient, table: TablePlan): Promise<string | null> {
  if (!table.identity) return null;
  const { rows } = await client.query<{ sequence: string | null }>("SELECT pg_get_serial_sequence($1, $2) AS sequence", [quote(table.name), table.identity]);
  return rows[0]?.sequence ?? null;
}

/** Read a PostgreSQL ledger: one REPEATABLE READ, READ ONLY transaction, so the whole copy reads one snapshot while servers go on writing. */
export async function openPgReader(url: string): Promise<LedgerReader> {
  const connection = await connect(url, false);
  const { client, db } = connection;
  try {
    await client.query("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
  } catch (error) {
    client.release(true);
    await closePgDatabase(db);
    throw error;
  }
  return reader(connection, redactUrl(url), async () => {
    await client.query("COMMIT").catch(() => {});
    client.release();
    await closePgDatabase(db);
  });
}

/**
 * Write into a PostgreSQL ledger: migrated first (db/pg/migrate.ts), then one transaction that
 * takes the writer lock (db/pg/write.ts: no server writes while the copy runs) and holds the
 * whole copy, so a failure half-way leaves the database as it was.
 */
export async function openPgWriter(url: string): Promise<LedgerWriter> {
  const connection = await connect(url, true);
  const { client, db, types } = connection;
  let finished = false;
  const finish = async (statement: "COMMIT" | "ROLLBACK") => {
    if (finished) return;
    finished = true;
    let broken: Error | undefined;
    try {
      await client.query(statement);
    } catch (error) {
      broken = error as Error;
      if (statement === "COMMIT") {
        client.release(broken);
        await closePgDatabase(db);
        throw error;
      }
    }
    client.release(broken);
    await closePgDatabase(db);
  };
  try {
    await client.query("BEGIN ISOLATION LEVEL READ COMMITTED");
    await client.query("SELECT pg_advisory_xact_lock(hashtext($1))", [WRITER_LOCK]);
  } catch (error) {
    await finish("ROLLBACK");
    throw error;
  }
  const base = reader(connection, redactUrl(url), () => finish("ROLLBACK"));
  let disabled: string[] = [];
  return {
    ...base,
    async firstNonEmpty(tables) {
      for (const table of tables) {
        const { rows } = await client.query(`SELECT 1 FROM ${quote(table.name)} LIMIT 1`);
        if (rows.length > 0) return table.name;
      }
      return null;
    },
    async disableTriggers(tables) {
      // USER: the ledger's own triggers; the foreign keys' internal triggers keep checking. The table's owner may do this (session_replication_role needs a superuser).
      for (const table of tables) {
        await client.query(`ALTER TABLE ${quote(table.name)} DISABLE TRIGGER USER`).catch((error: Error) => {
          throw new Error(
            `cannot switch the triggers of ${table.name} off for the copy (${error.message}): connect as the role that owns the ledger's tables (the one that migrated it)`,
          );
        });
      }
      disabled = tables.map((t) => t.name);
    },
    async insert(table, rows) {
      const width = table.columns.length;
      const perStatement = Math.max(1, Math.min(1000, Math.floor(PG_MAX_PARAMETERS / width)));
      const columns = table.columns.map((c) => quote(c.name)).join(", ");
      for (let start = 0; start < rows.length; start += perStatement) {
        const chunk = rows.slice(start, start + perStatement);
        const values: Value[] = [];
        const tuples = chunk.map((row, r) => {
          values.push(...row);
          return `(${row.map((_, c) => `$${r * width + c + 1}`).join(", ")})`;
        });
        await client.query(`INSERT INTO ${quote(table.name)} (${columns}) VALUES ${tuples.join(", ")}`, values);
      }
    },
    async update(table, column, pairs) {
      const key = table.columns.find((c) => c.name === table.primaryKey)!;
      const target = table.columns.find((c) => c.name === column)!;
      for (let start = 0; start < pairs.length; start += 1000) {
        const chunk = pairs.slice(start, start + 1000);
        const tuples = chunk.map((_, i) => `($${2 * i + 1}::${CAST[key.kind]}, $${2 * i + 2}::${CAST[target.kind]})`);
        const result = await client.query(
          `UPDATE ${quote(table.name)} AS t SET ${quote(column)} = v.value FROM (VALUES ${tuples.join(", ")}) AS v(key, value) WHERE t.${quote(key.name)} = v.key`,
          chunk.flat(),
        );
        if (result.rowCount !== chunk.length) throw new Error(`copy: ${table.name}: set ${column} on ${result.rowCount} rows of ${chunk.length}`);
      }
    },
    async enableTriggers() {
      for (const name of disabled) await client.query(`ALTER TABLE ${quote(name)} ENABLE TRIGGER USER`);
      disabled = [];
    },
    async continueIdentity(table, sourceHighWater) {
      const sequence = await sequenceOf(client, table);
      if (!sequence) return;
      const { rows } = await client.query<{ max: string | null }>({ text: `SELECT max(${quote(table.identity!)}) AS max FROM ${quote(table.name)}`, types });
      const max = rows[0]?.max === null || rows[0]?.max === undefined ? 0n : BigInt(rows[0].max);
      const last = sourceHighWater !== null && sourceHighWater > max ? sourceHighWater : max;
      // setval(…, n, true): the next id is n + 1; an empty table starts at 1 again.
      if (last > 0n) await client.query("SELECT setval($1, $2, true)", [sequence, String(last)]);
      else await client.query("SELECT setval($1, 1, false)", [sequence]);
    },
    commit: () => finish("COMMIT"),
    rollback: () => finish("ROLLBACK"),
  };
}
