/**
 * What makes the ledger's rules hold on a PostgreSQL database, read from its catalog: the
 * enforcement triggers the generator writes (db/triggers/pg-enforcement.ts) present and enabled,
 * and every constraint validated. PostgreSQL has no `integrity_check`; this is what `proofgate
 * check` (server/services/check/database.ts) and the crash run's checker (test/crash/snapshot.ts)
 * read instead, each through its own connection: `all` runs one query and returns its rows.
 */
import { normalPgTriggerDef, pgTriggerDefinitions } from "../triggers/definitions";

export type PgCatalogReader = <T>(query: string) => Promise<T[]>;

export interface PgEnforcementState {
  /** Enforcement triggers the generator writes that the database does not have. */
  missingTriggers: { name: string; table: string }[];
  /** Enforcement triggers present but not firing in an ordinary session (`DISABLE TRIGGER`, or `ENABLE REPLICA` only). */
  disabledTriggers: { name: string; table: string }[];
  /** How many enforcement triggers the current schema should have. */
  examinedTriggers: number;
  /** Enforcement triggers present whose function body or definition differs from the current one (altered by hand, or an older version's). */
  alteredTriggers: { name: string; table: string }[];
  /** Constraints added `NOT VALID` and never validated: rows written before them were not checked. */
  unvalidatedConstraints: { name: string; table: string; kind: "foreign key" | "check" | "other" }[];
}

/** Read the enforcement triggers' and constraints' state of the current schema. */
export async function pgEnforcementState(all: PgCatalogReader): Promise<PgEnforcementState> {
  const triggers = await all<{ name: string; enabled: string; def: string; fn: string; src: string; schema: string }>(
    `SELECT t.tgname AS name, t.tgenabled AS enabled, pg_get_triggerdef(t.oid) AS def, p.proname AS fn, p.prosrc AS src, n.nspname AS schema
     FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid JOIN pg_namespace n ON n.oid = c.relnamespace JOIN pg_proc p ON p.oid = t.tgfoid
     WHERE n.nspname = current_schema() AND NOT t.tgisinternal`,
  );
  const found = new Map(triggers.map((t) => [t.name, t.enabled]));
  const stored = new Map(triggers.map((t) => [t.name, t]));
  const definitions = pgTriggerDefinitions();
  const expected = definitions.map(({ name, table }) => ({ name, table }));
  const unvalidated = await all<{ name: string; table: string; type: string }>(
    `SELECT c.conname AS name, r.relname AS "table", c.contype AS type FROM pg_constraint c JOIN pg_class r ON r.oid = c.conrelid
       JOIN pg_namespace n ON n.oid = c.connamespace
     WHERE n.nspname = current_schema() AND NOT c.convalidated ORDER BY r.relname, c.conname`,
  );
  return {
    examinedTriggers: definitions.length,
    missingTriggers: expected.filter((t) => !found.has(t.name)),
    // 'O' fires in ordinary sessions, 'A' always; 'D' is disabled, 'R' fires only under session_replication_role = replica.
    disabledTriggers: expected.filter((t) => found.has(t.name) && !["O", "A"].includes(found.get(t.name)!)),
    alteredTriggers: definitions
      .filter((d) => {
        const t = stored.get(d.name);
        return t !== undefined && (t.fn !== d.functionName || t.src !== d.functionBody || normalPgTriggerDef(t.def, t.schema) !== d.triggerDef);
      })
      .map(({ name, table }) => ({ name, table })),
    unvalidatedConstraints: unvalidated.map((c) => ({
      name: c.name,
      table: c.table,
      kind: c.type === "f" ? "foreign key" : c.type === "c" ? "check" : "other",
    })),
  };
}

/**
 * amcheck's `bt_index_check(…, heapallindexed)` on every valid B-tree index of the current schema:
 * each index agrees with its table. Takes only AccessShareLock, so writers go on. Needs the
 * `amcheck` extension in the database; the first index that disagrees raises an error.
 */
export const BTREE_INDEX_CHECK_SQL = `SELECT bt_index_check(c.oid, true) FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_am a ON a.oid = c.relam
  JOIN pg_namespace n ON n.oid = c.relnamespace WHERE a.amname = 'btree' AND n.nspname = current_schema() AND i.indisvalid AND i.indisready`;
