/**
 * What each enforcement trigger should be, as each engine stores it, so `proofgate check` can name
 * a trigger whose body differs from the current definition: altered by hand, or left by a
 * migration that an older version shipped and a newer one did not replace.
 * - SQLite keeps a trigger's CREATE statement as written (`sqlite_master.sql`, without the final `;`).
 * - PostgreSQL keeps the function's body as written (`pg_proc.prosrc`) and renders the trigger
 *   itself (`pg_get_triggerdef`).
 */
import { sessionSearchStatements } from "../session-search";
import { currentTriggers } from "./pg-enforcement";
import { pgFunctionName, renderPg, renderSqlite } from "./trigger";

export interface SqliteTriggerDefinition {
  name: string;
  table: string;
  sql: string;
}

/** A CREATE TRIGGER statement as SQLite stores it: no surrounding space, no final semicolon. */
export const storedSqliteSql = (statement: string): string => statement.trim().replace(/;$/, "");

/** Every trigger a current SQLite ledger has, with the text SQLite should hold for it. */
export function sqliteTriggerDefinitions(): SqliteTriggerDefinition[] {
  const search = sessionSearchStatements()
    .filter((s) => s.startsWith("CREATE TRIGGER "))
    .map((s) => ({ name: /^CREATE TRIGGER (\w+)$/m.exec(s)![1]!, table: "sessions", sql: storedSqliteSql(s) }));
  return [...currentTriggers().map((t) => ({ name: t.name, table: t.table, sql: storedSqliteSql(renderSqlite(t)) })), ...search];
}

export interface PgTriggerDefinition {
  name: string;
  table: string;
  functionName: string;
  /** The function's body between its `$$` quotes, as `pg_proc.prosrc` holds it. */
  functionBody: string;
  /** The CREATE TRIGGER statement with the table and function unqualified, as `normalPgTriggerDef` leaves `pg_get_triggerdef`'s. */
  triggerDef: string;
}

/** `pg_get_triggerdef`'s text (or ours) with schema qualifiers, `OR REPLACE` and the final `;` taken out. */
export function normalPgTriggerDef(def: string, schema?: string): string {
  const text = def
    .trim()
    .replace(/;$/, "")
    .replace(/^CREATE OR REPLACE TRIGGER /, "CREATE TRIGGER ");
  return schema ? text.replaceAll(` "${schema}".`, " ").replaceAll(` ${schema}.`, " ") : text;
}

/** Every PostgreSQL enforcement trigger, with its function's body and its definition. */
export function pgTriggerDefinitions(): PgTriggerDefinition[] {
  return currentTriggers().map((t) => {
    const [fn = "", trigger = ""] = renderPg(t);
    const body = /AS \$\$([\s\S]*)\$\$;$/.exec(fn);
    if (!body) throw new Error(`the PL/pgSQL of trigger ${t.name} has no $$-quoted body`);
    return { name: t.name, table: t.table, functionName: pgFunctionName(t), functionBody: body[1]!, triggerDef: normalPgTriggerDef(trigger) };
  });
}
