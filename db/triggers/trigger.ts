/**
 * A trigger as data, rendered for SQLite (`CREATE TRIGGER … BEGIN … END;`, the text of the
 * committed migrations) or for PostgreSQL (a PL/pgSQL function and a `CREATE TRIGGER … EXECUTE
 * FUNCTION`). The enforcement rules are written once, as `Trigger`s, in db/enforcement.ts and
 * db/completion-gate.ts.
 *
 * What differs between the engines besides the expression helpers of ./sql.ts:
 * - PostgreSQL refuses subqueries in a trigger's WHEN, so the WHEN becomes an `IF` inside the function.
 * - SQLite's `SELECT RAISE(ABORT, 'm')` is `RAISE EXCEPTION` with the same message (SQLSTATE P0001),
 *   so the rule id that starts every message is the same on both engines.
 * - An ordered `SELECT CASE WHEN … THEN RAISE(…)` is an `IF … ELSIF …` chain: the first rule broken
 *   is still the one named.
 * - A BEFORE function returns the row (NEW, or OLD for a DELETE) so the write goes ahead; AFTER returns NULL.
 */
import { type Dialect, type Sql, type SqlPart, literal, raw } from "./sql";

export type Timing = "BEFORE" | "AFTER";
/** `{ update: [columns] }` is `UPDATE OF columns` (fires when one of them is in the SET list), `{ update: null }` any UPDATE. */
export type TriggerEvent = "INSERT" | "DELETE" | { update: readonly string[] | null };

/** What a trigger does: refuse with a message, refuse with the first rule of a list that is broken, or run a statement. */
export type Action = { raise: string } | { firstOf: readonly (readonly [Sql | string, string])[] } | { stmt: Sql | string };

export interface Trigger {
  name: string;
  table: string;
  timing: Timing;
  event: TriggerEvent;
  when: Sql | string | null;
  body: readonly Action[];
}

export const raise = (message: string): Action => ({ raise: message });
export const firstOf = (rules: readonly (readonly [Sql | string, string])[]): Action => ({ firstOf: rules });
export const stmt = (statement: Sql | string): Action => ({ stmt: statement });

/** The trigger, from its parts (`body`: one action or several, run in order). */
export function trigger(
  name: string,
  timing: Timing,
  event: TriggerEvent,
  table: string,
  when: Sql | string | null,
  body: Action | readonly Action[],
): Trigger {
  return { name, table, timing, event, when, body: Array.isArray(body) ? body : [body as Action] };
}

const eventText = (event: TriggerEvent) =>
  typeof event === "string" ? event : event.update && event.update.length > 0 ? `UPDATE OF ${event.update.join(", ")}` : "UPDATE";

const render = (part: SqlPart, dialect: Dialect) => raw(part).render(dialect);

function sqliteAction(action: Action): string {
  if ("raise" in action) return `SELECT RAISE(ABORT, ${literal(action.raise)});`;
  if ("firstOf" in action)
    return `SELECT CASE\n${action.firstOf.map(([when, message]) => `    WHEN ${render(when, "sqlite")} THEN RAISE(ABORT, ${literal(message)})`).join("\n")}\n  END;`;
  return render(action.stmt, "sqlite");
}

/** The SQLite statement creating the trigger. */
export function renderSqlite(t: Trigger): string {
  const when = t.when === null ? "" : `WHEN ${render(t.when, "sqlite")}\n`;
  return `CREATE TRIGGER ${t.name}\n${t.timing} ${eventText(t.event)} ON ${t.table}\n${when}BEGIN\n  ${t.body.map(sqliteAction).join("\n  ")}\nEND;`;
}

const indent = (text: string, by: string) => text.replaceAll("\n", `\n${by}`);
const pgRaise = (message: string) => `RAISE EXCEPTION USING MESSAGE = ${literal(message)};`;

function pgAction(action: Action, by: string): string {
  if ("raise" in action) return pgRaise(action.raise);
  if ("firstOf" in action)
    return `${action.firstOf
      .map(([when, message], i) => `${i === 0 ? "IF" : "ELSIF"} ${indent(render(when, "pg"), by)} THEN\n${by}  ${pgRaise(message)}`)
      .join(`\n${by}`)}\n${by}END IF;`;
  return indent(render(action.stmt, "pg"), by);
}

/** The PL/pgSQL function a trigger runs. */
export const pgFunctionName = (t: Trigger) => `pg_${t.name}`;

/** The PostgreSQL statements creating the trigger: its function, then the trigger. */
export function renderPg(t: Trigger): string[] {
  const by = t.when === null ? "  " : "    ";
  const body = t.body.map((action) => pgAction(action, by)).join(`\n${by}`);
  const guarded = t.when === null ? `  ${body}` : `  IF ${indent(render(t.when, "pg"), "  ")} THEN\n    ${body}\n  END IF;`;
  const result = t.timing === "AFTER" ? "NULL" : t.event === "DELETE" ? "OLD" : "NEW";
  return [
    `CREATE OR REPLACE FUNCTION ${pgFunctionName(t)}() RETURNS trigger LANGUAGE plpgsql AS $$\nBEGIN\n${guarded}\n  RETURN ${result};\nEND\n$$;`,
    `CREATE OR REPLACE TRIGGER ${t.name} ${t.timing} ${eventText(t.event)} ON ${t.table} FOR EACH ROW EXECUTE FUNCTION ${pgFunctionName(t)}();`,
  ];
}
