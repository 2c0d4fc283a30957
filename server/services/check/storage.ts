import { sql } from "drizzle-orm";
import { type DbOrTx, engineOf } from "@/db/client";
import { rawAll, rawGet } from "@/db/query";
import { BTREE_INDEX_CHECK_SQL, pgEnforcementState } from "@/db/pg/enforcement-state";
import { sqliteTriggerDefinitions, storedSqliteSql } from "@/db/triggers/definitions";
import type { FindingCollector } from "./findings";
import { guarded } from "./guarded";

/**
 * What the engine says about its own storage, and what makes the ledger's rules hold there: on
 * SQLite `integrity_check` and `foreign_key_check`, and every enforcement trigger present; on
 * PostgreSQL (which has no `integrity_check`) every enforcement trigger present and enabled, every
 * constraint validated, no row pointing at nothing, and, where the `amcheck` extension is
 * installed, every B-tree index agreeing with its table.
 */
export async function checkStorage(db: DbOrTx, found: FindingCollector): Promise<void> {
  if (engineOf(db) === "postgres") await checkPgStorage(db, found);
  else await checkSqliteStorage(db, found);
}

const alteredMessage = (t: { name: string; table: string }) =>
  `enforcement trigger ${t.name} on ${t.table} differs from the current definition (altered by hand, or an older version's): its rule may not hold`;

const orphanMessage = (table: string, id: unknown, parent: string) =>
  `${table} row ${id === null || id === undefined ? "?" : String(id)} refers to a ${parent} row that does not exist`;

async function checkSqliteStorage(db: DbOrTx, found: FindingCollector): Promise<void> {
  const integrity = await rawAll<{ integrity_check: string }>(db, sql`PRAGMA integrity_check`);
  found.examined("integrity_check", 1);
  for (const { integrity_check: message } of integrity) {
    if (message !== "ok") found.add("database.integrity", {}, `integrity_check: ${message}`);
  }
  const orphans = await rawAll<{ table: string; rowid: number | null; parent: string }>(db, sql`PRAGMA foreign_key_check`);
  found.examined("foreign_key_check", 1);
  for (const orphan of orphans)
    found.add("database.foreign_keys", { table: orphan.table, id: orphan.rowid }, orphanMessage(orphan.table, orphan.rowid, orphan.parent));
  const present = new Map(
    (await rawAll<{ name: string; sql: string }>(db, sql`SELECT name, sql FROM sqlite_master WHERE type = 'trigger'`)).map((t) => [t.name, t.sql]),
  );
  const expected = sqliteTriggerDefinitions();
  found.examined("triggers", expected.length);
  for (const t of expected) {
    const stored = present.get(t.name);
    if (stored === undefined) found.add("database.triggers", { table: t.table }, `enforcement trigger ${t.name} on ${t.table} is missing`);
    else if (storedSqliteSql(stored) !== t.sql) found.add("database.triggers", { table: t.table }, alteredMessage(t));
  }
}

async function checkPgStorage(db: DbOrTx, found: FindingCollector): Promise<void> {
  const all = <T>(query: string) => rawAll<T>(db, sql.raw(query));
  const state = await pgEnforcementState(all);
  found.examined("triggers", state.examinedTriggers);
  for (const t of state.missingTriggers) found.add("database.triggers", { table: t.table }, `enforcement trigger ${t.name} on ${t.table} is missing`);
  for (const t of state.alteredTriggers) found.add("database.triggers", { table: t.table }, alteredMessage(t));
  for (const t of state.disabledTriggers)
    found.add("database.triggers", { table: t.table }, `enforcement trigger ${t.name} on ${t.table} is disabled: writes on ${t.table} go unchecked`);
  for (const c of state.unvalidatedConstraints) {
    found.add(
      c.kind === "foreign key" ? "database.foreign_keys" : "database.integrity",
      { table: c.table },
      `${c.kind} constraint ${c.name} on ${c.table} is not validated: rows written before it were not checked`,
    );
  }
  await checkPgForeignKeyRows(db, found);
  const amcheck = await rawGet<{ n: number } | undefined>(db, sql`SELECT count(*) AS n FROM pg_extension WHERE extname = 'amcheck'`);
  if (Number(amcheck?.n ?? 0) > 0) {
    await guarded(db, found, "bt_index_check", async () => {
      found.examined("bt_index_check", (await all(BTREE_INDEX_CHECK_SQL)).length);
    });
  }
}

interface ForeignKey {
  name: string;
  child: string;
  parent: string;
  child_columns: string[];
  parent_columns: string[];
  child_has_id: boolean;
}

const ident = (name: string) => `"${name.replaceAll('"', '""')}"`;

/**
 * PostgreSQL's twin of `foreign_key_check`: rows whose foreign key names no row. A validated key
 * holds for every write made with its triggers firing; one made with them off
 * (`session_replication_role = replica`, or a trigger disabled by hand) can leave such rows.
 */
async function checkPgForeignKeyRows(db: DbOrTx, found: FindingCollector): Promise<void> {
  const keys = await rawAll<ForeignKey>(
    db,
    sql.raw(`SELECT c.conname AS name, ch.relname AS child, pa.relname AS parent,
       ARRAY(SELECT a.attname::text FROM unnest(c.conkey) WITH ORDINALITY k(n, i) JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.n ORDER BY k.i) AS child_columns,
       ARRAY(SELECT a.attname::text FROM unnest(c.confkey) WITH ORDINALITY k(n, i) JOIN pg_attribute a ON a.attrelid = c.confrelid AND a.attnum = k.n ORDER BY k.i) AS parent_columns,
       EXISTS (SELECT 1 FROM pg_attribute a WHERE a.attrelid = c.conrelid AND a.attname = 'id' AND NOT a.attisdropped) AS child_has_id
     FROM pg_constraint c JOIN pg_class ch ON ch.oid = c.conrelid JOIN pg_class pa ON pa.oid = c.confrelid JOIN pg_namespace n ON n.oid = c.connamespace
     WHERE c.contype = 'f' AND n.nspname = current_schema() ORDER BY ch.relname, c.conname`),
  );
  found.examined("foreign keys", keys.length);
  for (const key of keys) {
    const present = key.child_columns.map((column) => `x.${ident(column)} IS NOT NULL`).join(" AND ");
    const matches = key.child_columns.map((column, i) => `p.${ident(key.parent_columns[i]!)} = x.${ident(column)}`).join(" AND ");
    const orphans = await rawAll<{ id: unknown }>(
      db,
      sql.raw(
        `SELECT ${key.child_has_id ? "x.id" : "NULL"} AS id FROM ${ident(key.child)} x WHERE ${present} AND NOT EXISTS (SELECT 1 FROM ${ident(key.parent)} p WHERE ${matches})`,
      ),
    );
    for (const orphan of orphans)
      found.add("database.foreign_keys", { table: key.child, id: orphan.id as string | number | null }, orphanMessage(key.child, orphan.id, key.parent));
  }
}
