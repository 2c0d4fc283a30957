/**
 * A throwaway PostgreSQL cluster for db/enforcement-pg.test.ts (the shared harness is
 * test/support/pg-cluster.ts; this file is the triggers' own until that one is merged): initdb in a
 * temporary directory as the `postgres` user, a free port, the unix socket in the same directory,
 * stopped and deleted by `stop()` and, failing that, when the process exits. The system cluster is
 * never touched.
 *
 * Also `pgTablesFromSqliteSchema()`: the tables of db/schema as PostgreSQL DDL, a stand-in for the
 * generated baseline migration (db/migrations-pg/0000_baseline.sql) until it is merged.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { SQL, getTableColumns, is } from "drizzle-orm";
import { type SQLiteColumn, SQLiteSyncDialect, SQLiteTable, getTableConfig } from "drizzle-orm/sqlite-core";
import pg from "pg";
import * as schema from "@/db/schema";
import { nowMs } from "@/db/schema/columns";

/** The newest installed PostgreSQL's bin directory (`/usr/lib/postgresql/<version>/bin`), or null. */
export function postgresBinDir(): string | null {
  const root = "/usr/lib/postgresql";
  if (!fs.existsSync(root)) return null;
  const versions = fs
    .readdirSync(root)
    .filter((v) => fs.existsSync(path.join(root, v, "bin", "initdb")))
    .sort((a, b) => Number(b) - Number(a));
  return versions.length > 0 ? path.join(root, versions[0]!, "bin") : null;
}

export interface PgCluster {
  host: string;
  port: number;
  /** A client of database `database` (parsers: bigint and numeric as numbers), connected. */
  connect: (database?: string) => Promise<pg.Client>;
  stop: () => void;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => (typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port"))));
    });
  });
}

/** Start a cluster (about a second). Throws with initdb's or pg_ctl's output if it cannot. */
export async function startPgCluster(): Promise<PgCluster> {
  const bin = postgresBinDir();
  if (!bin) throw new Error("PostgreSQL is not installed (no /usr/lib/postgresql/*/bin/initdb)");
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "proofgate-pgtriggers-"));
  // initdb refuses root: as root, the cluster belongs to the `postgres` user.
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    const uid = Number(execFileSync("id", ["-u", "postgres"], { encoding: "utf8" }).trim());
    const gid = Number(execFileSync("id", ["-g", "postgres"], { encoding: "utf8" }).trim());
    fs.chownSync(dir, uid, gid);
  }
  const run = (tool: string, args: string[]) =>
    asRoot
      ? execFileSync("runuser", ["-u", "postgres", "--", path.join(bin, tool), ...args], { stdio: "pipe" })
      : execFileSync(path.join(bin, tool), args, { stdio: "pipe" });
  const data = path.join(dir, "data");
  let started = false;
  const stop = () => {
    process.off("exit", stop);
    try {
      if (started) run("pg_ctl", ["-D", data, "-m", "immediate", "stop"]);
    } catch {
      // already stopped
    }
    started = false;
    fs.rmSync(dir, { recursive: true, force: true });
  };
  process.on("exit", stop);
  try {
    run("initdb", ["-D", data, "-U", "postgres", "--auth=trust", "--no-sync", "--encoding=UTF8", "--locale=C.UTF-8"]);
    const port = await freePort();
    const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off`;
    started = true;
    run("pg_ctl", ["-D", data, "-l", path.join(dir, "log"), "-w", "-o", options, "start"]);
    const connect = async (database = "postgres") => {
      const client = new pg.Client({
        host: "127.0.0.1",
        port,
        user: "postgres",
        database,
        types: {
          getTypeParser: ((oid: number, format?: "text" | "binary") =>
            oid === 20 || oid === 1700 ? (v: string) => Number(v) : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
        },
      });
      await client.connect();
      return client;
    };
    return { host: "127.0.0.1", port, connect, stop };
  } catch (error) {
    const log = path.join(dir, "log");
    const detail = fs.existsSync(log) ? fs.readFileSync(log, "utf8") : "";
    stop();
    const output = (error as { stderr?: Buffer }).stderr?.toString() ?? "";
    throw new Error(`could not start a PostgreSQL cluster: ${(error as Error).message}\n${output}\n${detail}`);
  }
}

const dialect = new SQLiteSyncDialect();
/** A schema SQL fragment as text without table qualifiers (CHECKs, partial index conditions). */
const fragment = (value: SQL) => {
  const query = dialect.sqlToQuery(value);
  if (query.params.length > 0) throw new Error(`a parameter in a schema fragment: ${query.sql}`);
  return query.sql.replaceAll(/"\w+"\./g, "");
};
const NOW_MS_PG = "(round(extract(epoch from statement_timestamp()) * 1000))::bigint";
const quote = (s: string) => `'${s.replaceAll("'", "''")}'`;

function columnDdl(column: SQLiteColumn, compositeKey: boolean): string {
  const kind = column.columnType;
  const type = kind === "SQLiteBoolean" ? "boolean" : kind === "SQLiteReal" ? "double precision" : column.getSQLType() === "integer" ? "bigint" : "text";
  const parts = [`"${column.name}"`, type];
  if (column.primary && !compositeKey) parts.push(type === "bigint" ? "GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY" : "PRIMARY KEY");
  if (column.notNull && !column.primary) parts.push("NOT NULL");
  if (column.isUnique) parts.push("UNIQUE");
  if (column.default !== undefined) {
    const value = column.default;
    if (is(value, SQL)) {
      if (value !== nowMs) throw new Error(`a SQL default other than nowMs on ${column.name}`);
      parts.push(`DEFAULT ${NOW_MS_PG}`);
    } else if (typeof value === "boolean" || typeof value === "number") parts.push(`DEFAULT ${String(value)}`);
    else if (typeof value === "string") parts.push(`DEFAULT ${quote(value)}`);
    else parts.push(`DEFAULT ${quote(JSON.stringify(value))}`);
  }
  return parts.join(" ");
}

/**
 * The tables of db/schema as PostgreSQL DDL, per the storage table of docs/plans/postgresql.md §2:
 * integer → bigint (an integer primary key → identity), boolean → boolean, real → double
 * precision, text and JSON → text; NOT NULL, defaults (`nowMs` → epoch ms of the statement),
 * primary keys, CHECKs, unique indexes (the rollups' expression index → `UNIQUE NULLS NOT DISTINCT`
 * on the plain columns) and foreign keys with their ON DELETE. Non-unique indexes are left out:
 * they change no outcome.
 */
export function pgTablesFromSqliteSchema(): string[] {
  const tables = Object.values(schema as Record<string, unknown>).filter((value): value is SQLiteTable => is(value, SQLiteTable));
  const statements: string[] = [];
  const foreignKeys: string[] = [];
  for (const table of tables) {
    const config = getTableConfig(table);
    const composite = config.primaryKeys.length > 0;
    const lines = Object.values(getTableColumns(table)).map((c) => columnDdl(c as SQLiteColumn, composite));
    for (const key of config.primaryKeys) lines.push(`PRIMARY KEY (${key.columns.map((c) => `"${c.name}"`).join(", ")})`);
    for (const check of config.checks) lines.push(`CONSTRAINT "${check.name}" CHECK (${fragment(check.value)})`);
    statements.push(`CREATE TABLE "${config.name}" (\n  ${lines.join(",\n  ")}\n)`);
    for (const index of config.indexes) {
      if (!index.config.unique) continue;
      const expressions = index.config.columns.some((c) => is(c, SQL));
      // ifnull(col, …) → the column, under NULLS NOT DISTINCT.
      const columns = index.config.columns.map((c) => (is(c, SQL) ? /ifnull\("?(?:\w+"?\.)?"?(\w+)"?,/.exec(fragment(c))![1] : c.name));
      const where = index.config.where ? ` WHERE ${fragment(index.config.where)}` : "";
      statements.push(
        `CREATE UNIQUE INDEX "${index.config.name}" ON "${config.name}" (${columns.map((c) => `"${c}"`).join(", ")})${expressions ? " NULLS NOT DISTINCT" : ""}${where}`,
      );
    }
    for (const key of config.foreignKeys) {
      const reference = key.reference();
      const onDelete = key.onDelete ? ` ON DELETE ${key.onDelete.toUpperCase()}` : "";
      foreignKeys.push(
        `ALTER TABLE "${config.name}" ADD FOREIGN KEY (${reference.columns.map((c) => `"${c.name}"`).join(", ")}) REFERENCES "${getTableConfig(reference.foreignTable).name}" (${reference.foreignColumns.map((c) => `"${c.name}"`).join(", ")})${onDelete}`,
      );
    }
  }
  return [...statements, ...foreignKeys];
}
