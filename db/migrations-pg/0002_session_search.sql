-- The sessions list's search (SQLite: the FTS5 trigram table of migration 0006, db/session-search.ts).
-- PostgreSQL needs no table and no trigger: a pg_trgm GIN index on the searched text itself, used by
-- `(id || ' ' || coalesce(requirements, '')) ILIKE '%…%'` (that exact expression). Hand-written.
CREATE EXTENSION IF NOT EXISTS pg_trgm;
--> statement-breakpoint
CREATE INDEX sessions_search_idx ON sessions USING gin ((id || ' ' || coalesce(requirements, '')) gin_trgm_ops);
