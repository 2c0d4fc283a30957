-- From db/session-search.ts sessionSearchMigrationSql(). Do not edit by hand.
--> statement-breakpoint
CREATE VIRTUAL TABLE sessions_search USING fts5(id, requirements, tokenize = 'trigram');
--> statement-breakpoint
INSERT INTO sessions_search (id, requirements) SELECT id, requirements FROM sessions;
--> statement-breakpoint
CREATE TRIGGER sessions_search_insert
AFTER INSERT ON sessions
BEGIN
  INSERT INTO sessions_search (id, requirements) VALUES (NEW.id, NEW.requirements);
END;
--> statement-breakpoint
CREATE TRIGGER sessions_search_update
AFTER UPDATE OF id, requirements ON sessions
WHEN NEW.id IS NOT OLD.id OR NEW.requirements IS NOT OLD.requirements
BEGIN
  DELETE FROM sessions_search WHERE length(OLD.id) >= 3 AND id = OLD.id AND rowid IN (SELECT rowid FROM sessions_search WHERE sessions_search MATCH '{id} : "' || replace(OLD.id, '"', '""') || '"');
  DELETE FROM sessions_search WHERE length(OLD.id) < 3 AND id = OLD.id;
  INSERT INTO sessions_search (id, requirements) VALUES (NEW.id, NEW.requirements);
END;
--> statement-breakpoint
CREATE TRIGGER sessions_search_delete
AFTER DELETE ON sessions
BEGIN
  DELETE FROM sessions_search WHERE length(OLD.id) >= 3 AND id = OLD.id AND rowid IN (SELECT rowid FROM sessions_search WHERE sessions_search MATCH '{id} : "' || replace(OLD.id, '"', '""') || '"');
  DELETE FROM sessions_search WHERE length(OLD.id) < 3 AND id = OLD.id;
END;
