/**
 * The sessions list's search index (migration 0006): a trigram full-text index of each session's
 * id and requirements, so a substring search reads the index instead of every session (`LIKE
 * '%…%'` cannot use one; server/services/session/list.ts chooses between them). Kept by triggers in
 * the writer's own transaction, whoever writes (services, importers, the demo, a purge). Sessions
 * have a text key and no stable rowid, so an index row is found again by its `id` column — through
 * the index itself for ids of 3 or more characters, which trigram matching needs.
 */

/** Delete the index row of the session `OLD`. */
const FORGET_OLD = [
  `DELETE FROM sessions_search WHERE length(OLD.id) >= 3 AND id = OLD.id AND rowid IN (SELECT rowid FROM sessions_search WHERE sessions_search MATCH '{id} : "' || replace(OLD.id, '"', '""') || '"');`,
  "DELETE FROM sessions_search WHERE length(OLD.id) < 3 AND id = OLD.id;",
];

export function sessionSearchStatements(): string[] {
  return [
    "CREATE VIRTUAL TABLE sessions_search USING fts5(id, requirements, tokenize = 'trigram');",
    "INSERT INTO sessions_search (id, requirements) SELECT id, requirements FROM sessions;",
    `CREATE TRIGGER sessions_search_insert
AFTER INSERT ON sessions
BEGIN
  INSERT INTO sessions_search (id, requirements) VALUES (NEW.id, NEW.requirements);
END;`,
    `CREATE TRIGGER sessions_search_update
AFTER UPDATE OF id, requirements ON sessions
WHEN NEW.id IS NOT OLD.id OR NEW.requirements IS NOT OLD.requirements
BEGIN
  ${FORGET_OLD.join("\n  ")}
  INSERT INTO sessions_search (id, requirements) VALUES (NEW.id, NEW.requirements);
END;`,
    `CREATE TRIGGER sessions_search_delete
AFTER DELETE ON sessions
BEGIN
  ${FORGET_OLD.join("\n  ")}
END;`,
  ];
}

/** The trigger names `sessionSearchStatements()` creates. */
export function sessionSearchTriggerNames(): string[] {
  return sessionSearchStatements().flatMap((statement) => /^CREATE TRIGGER (\w+)$/m.exec(statement)?.[1] ?? []);
}

/** Migration 0006 as committed; `db/session-search.test.ts` fails if the file and this disagree. */
export function sessionSearchMigrationSql(): string {
  return ["-- From db/session-search.ts sessionSearchMigrationSql(). Do not edit by hand.", ...sessionSearchStatements()].join("\n--> statement-breakpoint\n");
}
