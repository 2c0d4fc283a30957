-- SQLite's functions that BAZINGA's prompts use in `proofgate query`, for the same rows on PostgreSQL (docs/postgresql.md, "proofgate query").
-- Only `query` puts this schema on its search_path (SET LOCAL, inside its read-only transaction); the services never call these.
CREATE SCHEMA IF NOT EXISTS "proofgate_sqlite";
--> statement-breakpoint
-- SQLite's json_extract(X, P) for one path of `$`, `.key`, `."key"`, `[N]` and `[#-N]` steps: NULL for a missing key or index and for JSON
-- null, a string's own text, true/false as 1/0, an object or array as its minified JSON (keys in their order). PostgreSQL returns one type
-- per function, so a number comes back as its text here (SQLite returns the number): CAST it (AS BIGINT, AS DOUBLE PRECISION) to compute.
CREATE OR REPLACE FUNCTION "proofgate_sqlite"."json_extract"(document text, path text) RETURNS text
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
DECLARE
  node json;
  rest text;
  step text[];
  position int;
BEGIN
  IF document IS NULL OR path IS NULL THEN
    RETURN NULL;
  END IF;
  node := document::json;
  IF left(path, 1) <> '$' THEN
    RAISE EXCEPTION 'bad JSON path: ''%''', path USING ERRCODE = '22023';
  END IF;
  rest := substr(path, 2);
  WHILE rest <> '' LOOP
    IF rest ~ '^\."' THEN
      step := regexp_match(rest, '^\."([^"]*)"');
      IF step IS NULL THEN
        RAISE EXCEPTION 'bad JSON path: ''%''', path USING ERRCODE = '22023';
      END IF;
      rest := substr(rest, length(step[1]) + 4);
      node := CASE WHEN json_typeof(node) = 'object' THEN node -> step[1] END;
    ELSIF rest ~ '^\.' THEN
      step := regexp_match(rest, '^\.([^.\[]+)');
      IF step IS NULL THEN
        RAISE EXCEPTION 'bad JSON path: ''%''', path USING ERRCODE = '22023';
      END IF;
      rest := substr(rest, length(step[1]) + 2);
      node := CASE WHEN json_typeof(node) = 'object' THEN node -> step[1] END;
    ELSIF rest ~ '^\[' THEN
      step := regexp_match(rest, '^\[(#-)?([0-9]+)\]');
      IF step IS NULL THEN
        RAISE EXCEPTION 'bad JSON path: ''%''', path USING ERRCODE = '22023';
      END IF;
      rest := substr(rest, length(coalesce(step[1], '')) + length(step[2]) + 3);
      IF json_typeof(node) <> 'array' THEN
        RETURN NULL;
      END IF;
      position := CASE WHEN step[1] IS NULL THEN step[2]::int ELSE json_array_length(node) - step[2]::int END;
      -- PostgreSQL's -> counts a negative index from the end; SQLite has no such element.
      node := CASE WHEN position >= 0 THEN node -> position END;
    ELSE
      RAISE EXCEPTION 'bad JSON path: ''%''', path USING ERRCODE = '22023';
    END IF;
    IF node IS NULL THEN
      RETURN NULL;
    END IF;
  END LOOP;
  RETURN CASE json_typeof(node)
    WHEN 'null' THEN NULL
    WHEN 'string' THEN node #>> '{}'
    WHEN 'number' THEN node #>> '{}'
    WHEN 'boolean' THEN CASE WHEN node::text = 'true' THEN '1' ELSE '0' END
    -- Minified as SQLite prints it: the whitespace between tokens goes, a string's own is kept.
    ELSE regexp_replace(node::text, '("(?:[^"\\]|\\.)*")|[ \t\n\r]+', '\1', 'g')
  END;
END
$$;
--> statement-breakpoint
-- SQLite's group_concat(X [, SEPARATOR]): NULLs skipped, NULL when no value, ',' between values by default.
CREATE OR REPLACE FUNCTION "proofgate_sqlite"."group_concat_step"(accumulated text, value anyelement, separator text) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN value IS NULL THEN accumulated WHEN accumulated IS NULL THEN value::text ELSE accumulated || coalesce(separator, '') || value::text END
$$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION "proofgate_sqlite"."group_concat_step"(accumulated text, value anyelement) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN value IS NULL THEN accumulated WHEN accumulated IS NULL THEN value::text ELSE accumulated || ',' || value::text END
$$;
--> statement-breakpoint
-- The text overloads take an untyped literal (`group_concat('x')`), which PostgreSQL cannot resolve to anyelement.
CREATE OR REPLACE FUNCTION "proofgate_sqlite"."group_concat_step"(accumulated text, value text, separator text) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN value IS NULL THEN accumulated WHEN accumulated IS NULL THEN value ELSE accumulated || coalesce(separator, '') || value END
$$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION "proofgate_sqlite"."group_concat_step"(accumulated text, value text) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN value IS NULL THEN accumulated WHEN accumulated IS NULL THEN value ELSE accumulated || ',' || value END
$$;
--> statement-breakpoint
CREATE OR REPLACE AGGREGATE "proofgate_sqlite"."group_concat"(text) (SFUNC = "proofgate_sqlite"."group_concat_step", STYPE = text);
--> statement-breakpoint
CREATE OR REPLACE AGGREGATE "proofgate_sqlite"."group_concat"(text, text) (SFUNC = "proofgate_sqlite"."group_concat_step", STYPE = text);
--> statement-breakpoint
CREATE OR REPLACE AGGREGATE "proofgate_sqlite"."group_concat"(anyelement) (SFUNC = "proofgate_sqlite"."group_concat_step", STYPE = text);
--> statement-breakpoint
CREATE OR REPLACE AGGREGATE "proofgate_sqlite"."group_concat"(anyelement, text) (SFUNC = "proofgate_sqlite"."group_concat_step", STYPE = text);
--> statement-breakpoint
-- SQLite's ifnull(X, Y): coalesce of two.
CREATE OR REPLACE FUNCTION "proofgate_sqlite"."ifnull"(value anycompatible, fallback anycompatible) RETURNS anycompatible
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT coalesce(value, fallback)
$$;
