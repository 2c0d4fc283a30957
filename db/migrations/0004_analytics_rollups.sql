CREATE TABLE `analytics_reason_kinds` (
	`day` integer NOT NULL,
	`source` text NOT NULL,
	`agent` text NOT NULL,
	`kind` text NOT NULL,
	`checks` integer DEFAULT 0 NOT NULL,
	`example_check_id` integer NOT NULL,
	`example` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `analytics_reason_kinds_key_idx` ON `analytics_reason_kinds` (`day`,`source`,`agent`,`kind`);--> statement-breakpoint
CREATE TABLE `analytics_rollup_state` (
	`name` text PRIMARY KEY NOT NULL,
	`value` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `analytics_rollups` (
	`figure` text NOT NULL,
	`day` integer NOT NULL,
	`source` text NOT NULL,
	`agent` text,
	`model` text,
	`k1` text,
	`k2` integer,
	`k3` integer,
	`n` integer DEFAULT 0 NOT NULL,
	`total` integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `analytics_rollups_key_idx` ON `analytics_rollups` (`figure`,`day`,`source`,ifnull("agent", char(0)),ifnull("model", char(0)),ifnull("k1", char(0)),ifnull("k2", -1),ifnull("k3", -1));--> statement-breakpoint
CREATE INDEX `analytics_rollups_figure_day_idx` ON `analytics_rollups` (`figure`,`day`,`source`,`agent`,`model`,`k1`,`k2`,`k3`,`n`,`total`);--> statement-breakpoint
CREATE INDEX `sessions_status_source_started_at_idx` ON `sessions` (`status`,`source`,`started_at`,`id`);--> statement-breakpoint
CREATE INDEX `sessions_criteria_idx` ON `sessions` (`started_at`,`source`,`criteria_required`,`criteria_required_met`) WHERE "sessions"."criteria_required" > 0;--> statement-breakpoint
-- From db/enforcement.ts analyticsRollupMigrationSql(). Do not edit by hand.
--> statement-breakpoint
UPDATE tasks SET blocked_at = coalesce(
    (SELECT tt.at FROM task_transitions tt WHERE tt.task_id = tasks.id AND tt.to_status = 'blocked' AND tt.from_status IS NOT 'blocked' ORDER BY tt.id DESC LIMIT 1),
    blocked_at, updated_at)
  WHERE status = 'blocked';
--> statement-breakpoint
CREATE TRIGGER task_transitions_blocked_at
AFTER INSERT ON task_transitions
WHEN NEW.to_status = 'blocked' AND NEW.from_status IS NOT 'blocked'
BEGIN
  UPDATE tasks SET blocked_at = NEW.at WHERE id = NEW.task_id AND blocked_at IS NOT NEW.at;
END;
--> statement-breakpoint
CREATE TRIGGER tasks_blocked_at_insert
AFTER INSERT ON tasks
WHEN NEW.status = 'blocked' AND NEW.blocked_at IS NULL
BEGIN
  UPDATE tasks SET blocked_at = NEW.updated_at WHERE id = NEW.id;
END;
--> statement-breakpoint
CREATE TRIGGER tasks_blocked_at_update
AFTER UPDATE OF status, blocked_at ON tasks
WHEN NEW.status = 'blocked' AND NEW.blocked_at IS NULL
BEGIN
  UPDATE tasks SET blocked_at = NEW.updated_at WHERE id = NEW.id;
END;
--> statement-breakpoint
CREATE TRIGGER sessions_identity_immutable
BEFORE UPDATE OF source, models ON sessions
WHEN NEW.source IS NOT OLD.source OR NEW.models IS NOT OLD.models
BEGIN
  SELECT RAISE(ABORT, 'session.identity_immutable: a session''s source and models never change (analytics count by them)');
END;
--> statement-breakpoint
CREATE TRIGGER task_transitions_rollup_claim
AFTER INSERT ON task_transitions
WHEN NEW.move = 'claim'
BEGIN
  INSERT INTO analytics_rollups (figure, day, source, agent, model, k1, k2, k3, n, total)
  SELECT 'claim', (CAST(NEW.at AS INTEGER) / 86400000 * 86400000), (SELECT source FROM sessions WHERE id = NEW.session_id), NEW.actor, (SELECT value FROM json_each((SELECT models FROM sessions WHERE id = NEW.session_id)) WHERE key = rtrim(rtrim(NEW.actor, '0123456789'), '_')), NULL, NULL, NULL, 1, 0 WHERE NEW.move = 'claim'
  ON CONFLICT (figure, day, source, ifnull(agent, char(0)), ifnull(model, char(0)), ifnull(k1, char(0)), ifnull(k2, -1), ifnull(k3, -1)) DO UPDATE SET n = n + excluded.n, total = total + excluded.total;
END;
--> statement-breakpoint
CREATE TRIGGER task_transitions_rollup_judged
AFTER INSERT ON task_transitions
WHEN NEW.move IN ('verify', 'block')
BEGIN
  INSERT INTO analytics_rollups (figure, day, source, agent, model, k1, k2, k3, n, total)
  SELECT 'judged', (CAST(c.at AS INTEGER) / 86400000 * 86400000), (SELECT source FROM sessions WHERE id = c.session_id), c.actor, (SELECT value FROM json_each((SELECT models FROM sessions WHERE id = c.session_id)) WHERE key = rtrim(rtrim(c.actor, '0123456789'), '_')), NEW.move, (NEW.at - c.at) / 1000, NULL, 1, 0 FROM task_transitions c WHERE NEW.move IN ('verify', 'block') AND c.id = (SELECT max(x.id) FROM task_transitions x WHERE x.task_id = NEW.task_id AND x.to_status = 'claimed' AND x.id < NEW.id) AND c.move = 'claim'
  ON CONFLICT (figure, day, source, ifnull(agent, char(0)), ifnull(model, char(0)), ifnull(k1, char(0)), ifnull(k2, -1), ifnull(k3, -1)) DO UPDATE SET n = n + excluded.n, total = total + excluded.total;
  INSERT INTO analytics_rollups (figure, day, source, agent, model, k1, k2, k3, n, total)
  SELECT 'claim', (CAST(c.at AS INTEGER) / 86400000 * 86400000), (SELECT source FROM sessions WHERE id = c.session_id), c.actor, (SELECT value FROM json_each((SELECT models FROM sessions WHERE id = c.session_id)) WHERE key = rtrim(rtrim(c.actor, '0123456789'), '_')), NULL, NULL, NULL, 0, 1 FROM task_transitions c WHERE NEW.move = 'block' AND c.id = (SELECT max(x.id) FROM task_transitions x WHERE x.task_id = NEW.task_id AND x.to_status = 'claimed' AND x.id < NEW.id) AND c.move = 'claim'
  ON CONFLICT (figure, day, source, ifnull(agent, char(0)), ifnull(model, char(0)), ifnull(k1, char(0)), ifnull(k2, -1), ifnull(k3, -1)) DO UPDATE SET n = n + excluded.n, total = total + excluded.total;
  INSERT INTO analytics_rollups (figure, day, source, agent, model, k1, k2, k3, n, total)
  SELECT 'judged_all', 0, (SELECT source FROM sessions WHERE id = c.session_id), NULL, NULL, NEW.move, (NEW.at - c.at) / 1000, NULL, 1, 0 FROM task_transitions c WHERE NEW.move IN ('verify', 'block') AND c.id = (SELECT max(x.id) FROM task_transitions x WHERE x.task_id = NEW.task_id AND x.to_status = 'claimed' AND x.id < NEW.id) AND c.move = 'claim'
  ON CONFLICT (figure, day, source, ifnull(agent, char(0)), ifnull(model, char(0)), ifnull(k1, char(0)), ifnull(k2, -1), ifnull(k3, -1)) DO UPDATE SET n = n + excluded.n, total = total + excluded.total;
END;
--> statement-breakpoint
CREATE TRIGGER task_transitions_rollup_spell
AFTER INSERT ON task_transitions
WHEN (NEW.move = 'approve_reset' OR (NEW.move = 'report' AND NEW.from_status = 'blocked' AND NEW.to_status IS NOT 'blocked'))
BEGIN
  INSERT INTO analytics_rollups (figure, day, source, agent, model, k1, k2, k3, n, total)
  SELECT 'spell', (CAST(b.at AS INTEGER) / 86400000 * 86400000), (SELECT source FROM sessions WHERE id = b.session_id), b.claimant, (SELECT value FROM json_each((SELECT models FROM sessions WHERE id = b.session_id)) WHERE key = rtrim(rtrim(b.claimant, '0123456789'), '_')), NEW.move, (NEW.at - b.at) / 1000, NULL, 1, NEW.at - b.at FROM task_transitions b WHERE (NEW.move = 'approve_reset' OR (NEW.move = 'report' AND NEW.from_status = 'blocked' AND NEW.to_status IS NOT 'blocked')) AND b.to_status = 'blocked' AND b.id = (SELECT max(x.id) FROM task_transitions x WHERE x.task_id = NEW.task_id AND x.to_status = 'blocked' AND x.from_status IS NOT 'blocked' AND x.id < NEW.id)
  ON CONFLICT (figure, day, source, ifnull(agent, char(0)), ifnull(model, char(0)), ifnull(k1, char(0)), ifnull(k2, -1), ifnull(k3, -1)) DO UPDATE SET n = n + excluded.n, total = total + excluded.total;
  INSERT INTO analytics_rollups (figure, day, source, agent, model, k1, k2, k3, n, total)
  SELECT 'spell_all', 0, (SELECT source FROM sessions WHERE id = b.session_id), NULL, NULL, NEW.move, (NEW.at - b.at) / 1000, NULL, 1, NEW.at - b.at FROM task_transitions b WHERE (NEW.move = 'approve_reset' OR (NEW.move = 'report' AND NEW.from_status = 'blocked' AND NEW.to_status IS NOT 'blocked')) AND b.to_status = 'blocked' AND b.id = (SELECT max(x.id) FROM task_transitions x WHERE x.task_id = NEW.task_id AND x.to_status = 'blocked' AND x.from_status IS NOT 'blocked' AND x.id < NEW.id)
  ON CONFLICT (figure, day, source, ifnull(agent, char(0)), ifnull(model, char(0)), ifnull(k1, char(0)), ifnull(k2, -1), ifnull(k3, -1)) DO UPDATE SET n = n + excluded.n, total = total + excluded.total;
  INSERT INTO analytics_rollups (figure, day, source, agent, model, k1, k2, k3, n, total)
  SELECT 'reset', (CAST(b.at AS INTEGER) / 86400000 * 86400000), (SELECT source FROM sessions WHERE id = b.session_id), b.claimant, (SELECT value FROM json_each((SELECT models FROM sessions WHERE id = b.session_id)) WHERE key = rtrim(rtrim(b.claimant, '0123456789'), '_')), NULL, NEW.task_id, NULL, 1, 0 FROM task_transitions b WHERE NEW.move = 'approve_reset' AND b.to_status = 'blocked' AND b.id = (SELECT max(x.id) FROM task_transitions x WHERE x.task_id = NEW.task_id AND x.to_status = 'blocked' AND x.from_status IS NOT 'blocked' AND x.id < NEW.id)
  ON CONFLICT (figure, day, source, ifnull(agent, char(0)), ifnull(model, char(0)), ifnull(k1, char(0)), ifnull(k2, -1), ifnull(k3, -1)) DO UPDATE SET n = n + excluded.n, total = total + excluded.total;
  INSERT INTO analytics_rollups (figure, day, source, agent, model, k1, k2, k3, n, total)
  SELECT * FROM (
    SELECT NULL AS figure, NULL AS day, NULL AS source, NULL AS agent, NULL AS model, NULL AS k1, NULL AS k2, NULL AS k3, NULL AS n, NULL AS total WHERE 0
    UNION ALL SELECT 'reset_hist', 0, (SELECT source FROM sessions WHERE id = b.session_id), NULL, NULL, NULL, (SELECT count(*) FROM task_transitions x WHERE x.task_id = NEW.task_id AND x.move = 'approve_reset' AND x.id < NEW.id
      AND x.id > (SELECT min(y.id) FROM task_transitions y WHERE y.task_id = NEW.task_id AND y.to_status = 'blocked' AND y.from_status IS NOT 'blocked')), NULL, -1, 0 FROM task_transitions b WHERE NEW.move = 'approve_reset' AND b.to_status = 'blocked' AND b.id = (SELECT max(x.id) FROM task_transitions x WHERE x.task_id = NEW.task_id AND x.to_status = 'blocked' AND x.from_status IS NOT 'blocked' AND x.id < NEW.id) AND (SELECT count(*) FROM task_transitions x WHERE x.task_id = NEW.task_id AND x.move = 'approve_reset' AND x.id < NEW.id
      AND x.id > (SELECT min(y.id) FROM task_transitions y WHERE y.task_id = NEW.task_id AND y.to_status = 'blocked' AND y.from_status IS NOT 'blocked')) > 0
    UNION ALL SELECT 'reset_hist', 0, (SELECT source FROM sessions WHERE id = b.session_id), NULL, NULL, NULL, (SELECT count(*) FROM task_transitions x WHERE x.task_id = NEW.task_id AND x.move = 'approve_reset' AND x.id < NEW.id
      AND x.id > (SELECT min(y.id) FROM task_transitions y WHERE y.task_id = NEW.task_id AND y.to_status = 'blocked' AND y.from_status IS NOT 'blocked')) + 1, NULL, 1, 0 FROM task_transitions b WHERE NEW.move = 'approve_reset' AND b.to_status = 'blocked' AND b.id = (SELECT max(x.id) FROM task_transitions x WHERE x.task_id = NEW.task_id AND x.to_status = 'blocked' AND x.from_status IS NOT 'blocked' AND x.id < NEW.id)
  ) WHERE 1
  ON CONFLICT (figure, day, source, ifnull(agent, char(0)), ifnull(model, char(0)), ifnull(k1, char(0)), ifnull(k2, -1), ifnull(k3, -1)) DO UPDATE SET n = n + excluded.n, total = total + excluded.total;
END;
--> statement-breakpoint
CREATE TRIGGER completion_checks_rollup
AFTER INSERT ON completion_checks
BEGIN
  INSERT INTO analytics_rollups (figure, day, source, agent, model, k1, k2, k3, n, total)
  SELECT 'check', (CAST(NEW.at AS INTEGER) / 86400000 * 86400000), (SELECT source FROM sessions WHERE id = NEW.session_id), NEW.actor, NULL, NULL, NEW.accepted, NULL, 1, 0 WHERE 1
  ON CONFLICT (figure, day, source, ifnull(agent, char(0)), ifnull(model, char(0)), ifnull(k1, char(0)), ifnull(k2, -1), ifnull(k3, -1)) DO UPDATE SET n = n + excluded.n, total = total + excluded.total;
END;
--> statement-breakpoint
CREATE TRIGGER attempts_rollup
AFTER INSERT ON attempts
BEGIN
  INSERT INTO analytics_rollups (figure, day, source, agent, model, k1, k2, k3, n, total)
  SELECT 'attempt', (CAST(NEW.timestamp AS INTEGER) / 86400000 * 86400000), (SELECT source FROM sessions WHERE id = g.session_id), NULL, NEW.model, coalesce((SELECT r.status FROM attempt_results r WHERE r.attempt_id = NEW.id), 'running'), (SELECT count(*) FROM attempts p WHERE p.goal_id = NEW.goal_id AND p.attempt_type = 'implementation' AND p.id < NEW.id) + 1, NEW.goal_id, 1, 0 FROM goals g WHERE g.id = NEW.goal_id AND NEW.attempt_type = 'implementation'
  ON CONFLICT (figure, day, source, ifnull(agent, char(0)), ifnull(model, char(0)), ifnull(k1, char(0)), ifnull(k2, -1), ifnull(k3, -1)) DO UPDATE SET n = n + excluded.n, total = total + excluded.total;
  INSERT INTO analytics_rollups (figure, day, source, agent, model, k1, k2, k3, n, total)
  SELECT 'attempt_all', 0, (SELECT source FROM sessions WHERE id = g.session_id), NULL, NEW.model, 'running', (SELECT count(*) FROM attempts p WHERE p.goal_id = NEW.goal_id AND p.attempt_type = 'implementation' AND p.id < NEW.id) + 1, NULL, 1, 0 FROM goals g WHERE g.id = NEW.goal_id AND NEW.attempt_type = 'implementation'
  ON CONFLICT (figure, day, source, ifnull(agent, char(0)), ifnull(model, char(0)), ifnull(k1, char(0)), ifnull(k2, -1), ifnull(k3, -1)) DO UPDATE SET n = n + excluded.n, total = total + excluded.total;
  INSERT INTO analytics_rollups (figure, day, source, agent, model, k1, k2, k3, n, total)
  SELECT * FROM (
    SELECT NULL AS figure, NULL AS day, NULL AS source, NULL AS agent, NULL AS model, NULL AS k1, NULL AS k2, NULL AS k3, NULL AS n, NULL AS total WHERE 0
    UNION ALL SELECT 'goal_hist', 0, (SELECT source FROM sessions WHERE id = g.session_id), NULL, NULL, CASE WHEN EXISTS (SELECT 1 FROM attempts p JOIN attempt_results r ON r.attempt_id = p.id WHERE p.goal_id = NEW.goal_id AND p.attempt_type = 'implementation' AND r.status = 'success' AND p.id <> NEW.id) THEN '1' ELSE '0' END, (SELECT count(*) FROM attempts p WHERE p.goal_id = NEW.goal_id AND p.attempt_type = 'implementation' AND p.id < NEW.id), NULL, -1, 0 FROM goals g WHERE g.id = NEW.goal_id AND NEW.attempt_type = 'implementation' AND (SELECT count(*) FROM attempts p WHERE p.goal_id = NEW.goal_id AND p.attempt_type = 'implementation' AND p.id < NEW.id) > 0
    UNION ALL SELECT 'goal_hist', 0, (SELECT source FROM sessions WHERE id = g.session_id), NULL, NULL, CASE WHEN EXISTS (SELECT 1 FROM attempts p JOIN attempt_results r ON r.attempt_id = p.id WHERE p.goal_id = NEW.goal_id AND p.attempt_type = 'implementation' AND r.status = 'success' AND p.id <> NEW.id) THEN '1' ELSE '0' END, (SELECT count(*) FROM attempts p WHERE p.goal_id = NEW.goal_id AND p.attempt_type = 'implementation' AND p.id < NEW.id) + 1, NULL, 1, 0 FROM goals g WHERE g.id = NEW.goal_id AND NEW.attempt_type = 'implementation'
  ) WHERE 1
  ON CONFLICT (figure, day, source, ifnull(agent, char(0)), ifnull(model, char(0)), ifnull(k1, char(0)), ifnull(k2, -1), ifnull(k3, -1)) DO UPDATE SET n = n + excluded.n, total = total + excluded.total;
  INSERT INTO analytics_rollups (figure, day, source, agent, model, k1, k2, k3, n, total)
  SELECT 'breakdown', (CAST(NEW.timestamp AS INTEGER) / 86400000 * 86400000), (SELECT source FROM sessions WHERE id = g.session_id), NULL, NEW.model, NULL, NULL, NULL, 1, 0 FROM goals g WHERE g.id = NEW.goal_id AND NEW.attempt_type = 'breakdown'
  ON CONFLICT (figure, day, source, ifnull(agent, char(0)), ifnull(model, char(0)), ifnull(k1, char(0)), ifnull(k2, -1), ifnull(k3, -1)) DO UPDATE SET n = n + excluded.n, total = total + excluded.total;
END;
--> statement-breakpoint
CREATE TRIGGER attempt_results_rollup
AFTER INSERT ON attempt_results
BEGIN
  UPDATE analytics_rollups SET k1 = NEW.status
    WHERE rowid = (SELECT r.rowid FROM analytics_rollups r, attempts a, goals g
      WHERE a.id = NEW.attempt_id AND g.id = a.goal_id AND r.figure = 'attempt' AND r.day = (CAST(a.timestamp AS INTEGER) / 86400000 * 86400000) AND r.source = (SELECT source FROM sessions WHERE id = g.session_id)
        AND r.agent IS NULL AND r.model IS a.model AND r.k1 = 'running' AND r.k2 = (SELECT count(*) FROM attempts p WHERE p.goal_id = a.goal_id AND p.attempt_type = 'implementation' AND p.id < a.id) + 1 AND r.k3 = a.goal_id);
  INSERT INTO analytics_rollups (figure, day, source, agent, model, k1, k2, k3, n, total)
  SELECT * FROM (
    SELECT NULL AS figure, NULL AS day, NULL AS source, NULL AS agent, NULL AS model, NULL AS k1, NULL AS k2, NULL AS k3, NULL AS n, NULL AS total WHERE 0
    UNION ALL SELECT 'attempt_all', 0, (SELECT source FROM sessions WHERE id = g.session_id), NULL, a.model, 'running', (SELECT count(*) FROM attempts p WHERE p.goal_id = a.goal_id AND p.attempt_type = 'implementation' AND p.id < a.id) + 1, NULL, -1, 0 FROM attempts a JOIN goals g ON g.id = a.goal_id WHERE a.id = NEW.attempt_id AND a.attempt_type = 'implementation'
    UNION ALL SELECT 'attempt_all', 0, (SELECT source FROM sessions WHERE id = g.session_id), NULL, a.model, NEW.status, (SELECT count(*) FROM attempts p WHERE p.goal_id = a.goal_id AND p.attempt_type = 'implementation' AND p.id < a.id) + 1, NULL, 1, 0 FROM attempts a JOIN goals g ON g.id = a.goal_id WHERE a.id = NEW.attempt_id AND a.attempt_type = 'implementation'
    UNION ALL SELECT 'goal_hist', 0, (SELECT source FROM sessions WHERE id = g.session_id), NULL, NULL, '0', (SELECT count(*) FROM attempts p WHERE p.goal_id = a.goal_id AND p.attempt_type = 'implementation'), NULL, -1, 0 FROM attempts a JOIN goals g ON g.id = a.goal_id WHERE a.id = NEW.attempt_id AND a.attempt_type = 'implementation' AND NEW.status = 'success' AND NOT EXISTS (SELECT 1 FROM attempts p JOIN attempt_results r ON r.attempt_id = p.id WHERE p.goal_id = a.goal_id AND p.attempt_type = 'implementation' AND r.status = 'success' AND p.id <> a.id)
    UNION ALL SELECT 'goal_hist', 0, (SELECT source FROM sessions WHERE id = g.session_id), NULL, NULL, '1', (SELECT count(*) FROM attempts p WHERE p.goal_id = a.goal_id AND p.attempt_type = 'implementation'), NULL, 1, 0 FROM attempts a JOIN goals g ON g.id = a.goal_id WHERE a.id = NEW.attempt_id AND a.attempt_type = 'implementation' AND NEW.status = 'success' AND NOT EXISTS (SELECT 1 FROM attempts p JOIN attempt_results r ON r.attempt_id = p.id WHERE p.goal_id = a.goal_id AND p.attempt_type = 'implementation' AND r.status = 'success' AND p.id <> a.id)
  ) WHERE 1
  ON CONFLICT (figure, day, source, ifnull(agent, char(0)), ifnull(model, char(0)), ifnull(k1, char(0)), ifnull(k2, -1), ifnull(k3, -1)) DO UPDATE SET n = n + excluded.n, total = total + excluded.total;
END;
--> statement-breakpoint
CREATE TRIGGER token_usage_rollup
AFTER INSERT ON token_usage
BEGIN
  INSERT INTO analytics_rollups (figure, day, source, agent, model, k1, k2, k3, n, total)
  SELECT 'tokens', (CAST(NEW.timestamp AS INTEGER) / 86400000 * 86400000), (SELECT source FROM sessions WHERE id = NEW.session_id), NEW.agent_id, NEW.model, NEW.agent_type, NULL, NULL, 1, NEW.tokens_estimated WHERE 1
  ON CONFLICT (figure, day, source, ifnull(agent, char(0)), ifnull(model, char(0)), ifnull(k1, char(0)), ifnull(k2, -1), ifnull(k3, -1)) DO UPDATE SET n = n + excluded.n, total = total + excluded.total;
END;
--> statement-breakpoint
CREATE TRIGGER purges_rollup_rebuild
AFTER UPDATE OF finished_at ON purges
WHEN NEW.finished_at IS NOT NULL
BEGIN
  DELETE FROM analytics_rollups;
  DELETE FROM analytics_reason_kinds;
  DELETE FROM analytics_rollup_state;
  INSERT INTO analytics_rollups (figure, day, source, agent, model, k1, k2, k3, n, total)
  SELECT figure, day, source, agent, model, k1, k2, k3, sum(n), sum(total) FROM (SELECT * FROM (
    SELECT NULL AS figure, NULL AS day, NULL AS source, NULL AS agent, NULL AS model, NULL AS k1, NULL AS k2, NULL AS k3, NULL AS n, NULL AS total WHERE 0
    UNION ALL SELECT 'claim', (CAST(h.at AS INTEGER) / 86400000 * 86400000), (SELECT source FROM sessions WHERE id = h.session_id), h.actor, (SELECT value FROM json_each((SELECT models FROM sessions WHERE id = h.session_id)) WHERE key = rtrim(rtrim(h.actor, '0123456789'), '_')), NULL, NULL, NULL, 1, 0 FROM task_transitions h WHERE h.move = 'claim'
  ) WHERE 1) GROUP BY 1, 2, 3, 4, 5, 6, 7, 8
  ON CONFLICT (figure, day, source, ifnull(agent, char(0)), ifnull(model, char(0)), ifnull(k1, char(0)), ifnull(k2, -1), ifnull(k3, -1)) DO UPDATE SET n = n + excluded.n, total = total + excluded.total;
  INSERT INTO analytics_rollups (figure, day, source, agent, model, k1, k2, k3, n, total)
  SELECT figure, day, source, agent, model, k1, k2, k3, sum(n), sum(total) FROM (SELECT * FROM (
    SELECT NULL AS figure, NULL AS day, NULL AS source, NULL AS agent, NULL AS model, NULL AS k1, NULL AS k2, NULL AS k3, NULL AS n, NULL AS total WHERE 0
    UNION ALL SELECT 'claim', (CAST(c.at AS INTEGER) / 86400000 * 86400000), (SELECT source FROM sessions WHERE id = c.session_id), c.actor, (SELECT value FROM json_each((SELECT models FROM sessions WHERE id = c.session_id)) WHERE key = rtrim(rtrim(c.actor, '0123456789'), '_')), NULL, NULL, NULL, 0, 1 FROM task_transitions h, task_transitions c WHERE h.move = 'block' AND c.id = (SELECT max(x.id) FROM task_transitions x WHERE x.task_id = h.task_id AND x.to_status = 'claimed' AND x.id < h.id) AND c.move = 'claim'
  ) WHERE 1) GROUP BY 1, 2, 3, 4, 5, 6, 7, 8
  ON CONFLICT (figure, day, source, ifnull(agent, char(0)), ifnull(model, char(0)), ifnull(k1, char(0)), ifnull(k2, -1), ifnull(k3, -1)) DO UPDATE SET n = n + excluded.n, total = total + excluded.total;
  INSERT INTO analytics_rollups (figure, day, source, agent, model, k1, k2, k3, n, total)
  SELECT figure, day, source, agent, model, k1, k2, k3, sum(n), sum(total) FROM (SELECT * FROM (
    SELECT NULL AS figure, NULL AS day, NULL AS source, NULL AS agent, NULL AS model, NULL AS k1, NULL AS k2, NULL AS k3, NULL AS n, NULL AS total WHERE 0
    UNION ALL SELECT 'judged', (CAST(c.at AS INTEGER) / 86400000 * 86400000), (SELECT source FROM sessions WHERE id = c.session_id), c.actor, (SELECT value FROM json_each((SELECT models FROM sessions WHERE id = c.session_id)) WHERE key = rtrim(rtrim(c.actor, '0123456789'), '_')), h.move, (h.at - c.at) / 1000, NULL, 1, 0 FROM task_transitions h, task_transitions c WHERE h.move IN ('verify', 'block') AND c.id = (SELECT max(x.id) FROM task_transitions x WHERE x.task_id = h.task_id AND x.to_status = 'claimed' AND x.id < h.id) AND c.move = 'claim'
  ) WHERE 1) GROUP BY 1, 2, 3, 4, 5, 6, 7, 8
  ON CONFLICT (figure, day, source, ifnull(agent, char(0)), ifnull(model, char(0)), ifnull(k1, char(0)), ifnull(k2, -1), ifnull(k3, -1)) DO UPDATE SET n = n + excluded.n, total = total + excluded.total;
  INSERT INTO analytics_rollups (figure, day, source, agent, model, k1, k2, k3, n, total)
  SELECT figure, day, source, agent, model, k1, k2, k3, sum(n), sum(total) FROM (SELECT * FROM (
    SELECT NULL AS figure, NULL AS day, NULL AS source, NULL AS agent, NULL AS model, NULL AS k1, NULL AS k2, NULL AS k3, NULL AS n, NULL AS total WHERE 0
    UNION ALL SELECT 'spell', (CAST(b.at AS INTEGER) / 86400000 * 86400000), (SELECT source FROM sessions WHERE id = b.session_id), b.claimant, (SELECT value FROM json_each((SELECT models FROM sessions WHERE id = b.session_id)) WHERE key = rtrim(rtrim(b.claimant, '0123456789'), '_')), h.move, (h.at - b.at) / 1000, NULL, 1, h.at - b.at FROM task_transitions h, task_transitions b WHERE (h.move = 'approve_reset' OR (h.move = 'report' AND h.from_status = 'blocked' AND h.to_status IS NOT 'blocked')) AND b.to_status = 'blocked' AND b.id = (SELECT max(x.id) FROM task_transitions x WHERE x.task_id = h.task_id AND x.to_status = 'blocked' AND x.from_status IS NOT 'blocked' AND x.id < h.id)
  ) WHERE 1) GROUP BY 1, 2, 3, 4, 5, 6, 7, 8
  ON CONFLICT (figure, day, source, ifnull(agent, char(0)), ifnull(model, char(0)), ifnull(k1, char(0)), ifnull(k2, -1), ifnull(k3, -1)) DO UPDATE SET n = n + excluded.n, total = total + excluded.total;
  INSERT INTO analytics_rollups (figure, day, source, agent, model, k1, k2, k3, n, total)
  SELECT figure, day, source, agent, model, k1, k2, k3, sum(n), sum(total) FROM (SELECT * FROM (
    SELECT NULL AS figure, NULL AS day, NULL AS source, NULL AS agent, NULL AS model, NULL AS k1, NULL AS k2, NULL AS k3, NULL AS n, NULL AS total WHERE 0
    UNION ALL SELECT 'reset', (CAST(b.at AS INTEGER) / 86400000 * 86400000), (SELECT source FROM sessions WHERE id = b.session_id), b.claimant, (SELECT value FROM json_each((SELECT models FROM sessions WHERE id = b.session_id)) WHERE key = rtrim(rtrim(b.claimant, '0123456789'), '_')), NULL, h.task_id, NULL, 1, 0 FROM task_transitions h, task_transitions b WHERE h.move = 'approve_reset' AND b.to_status = 'blocked' AND b.id = (SELECT max(x.id) FROM task_transitions x WHERE x.task_id = h.task_id AND x.to_status = 'blocked' AND x.from_status IS NOT 'blocked' AND x.id < h.id)
  ) WHERE 1) GROUP BY 1, 2, 3, 4, 5, 6, 7, 8
  ON CONFLICT (figure, day, source, ifnull(agent, char(0)), ifnull(model, char(0)), ifnull(k1, char(0)), ifnull(k2, -1), ifnull(k3, -1)) DO UPDATE SET n = n + excluded.n, total = total + excluded.total;
  INSERT INTO analytics_rollups (figure, day, source, agent, model, k1, k2, k3, n, total)
  SELECT figure, day, source, agent, model, k1, k2, k3, sum(n), sum(total) FROM (SELECT * FROM (
    SELECT NULL AS figure, NULL AS day, NULL AS source, NULL AS agent, NULL AS model, NULL AS k1, NULL AS k2, NULL AS k3, NULL AS n, NULL AS total WHERE 0
    UNION ALL SELECT 'check', (CAST(h.at AS INTEGER) / 86400000 * 86400000), (SELECT source FROM sessions WHERE id = h.session_id), h.actor, NULL, NULL, h.accepted, NULL, 1, 0 FROM completion_checks h WHERE 1
  ) WHERE 1) GROUP BY 1, 2, 3, 4, 5, 6, 7, 8
  ON CONFLICT (figure, day, source, ifnull(agent, char(0)), ifnull(model, char(0)), ifnull(k1, char(0)), ifnull(k2, -1), ifnull(k3, -1)) DO UPDATE SET n = n + excluded.n, total = total + excluded.total;
  INSERT INTO analytics_rollups (figure, day, source, agent, model, k1, k2, k3, n, total)
  SELECT figure, day, source, agent, model, k1, k2, k3, sum(n), sum(total) FROM (SELECT * FROM (
    SELECT NULL AS figure, NULL AS day, NULL AS source, NULL AS agent, NULL AS model, NULL AS k1, NULL AS k2, NULL AS k3, NULL AS n, NULL AS total WHERE 0
    UNION ALL SELECT 'attempt', (CAST(h.timestamp AS INTEGER) / 86400000 * 86400000), (SELECT source FROM sessions WHERE id = g.session_id), NULL, h.model, coalesce((SELECT r.status FROM attempt_results r WHERE r.attempt_id = h.id), 'running'), (SELECT count(*) FROM attempts p WHERE p.goal_id = h.goal_id AND p.attempt_type = 'implementation' AND p.id < h.id) + 1, h.goal_id, 1, 0 FROM attempts h, goals g WHERE g.id = h.goal_id AND h.attempt_type = 'implementation'
  ) WHERE 1) GROUP BY 1, 2, 3, 4, 5, 6, 7, 8
  ON CONFLICT (figure, day, source, ifnull(agent, char(0)), ifnull(model, char(0)), ifnull(k1, char(0)), ifnull(k2, -1), ifnull(k3, -1)) DO UPDATE SET n = n + excluded.n, total = total + excluded.total;
  INSERT INTO analytics_rollups (figure, day, source, agent, model, k1, k2, k3, n, total)
  SELECT figure, day, source, agent, model, k1, k2, k3, sum(n), sum(total) FROM (SELECT * FROM (
    SELECT NULL AS figure, NULL AS day, NULL AS source, NULL AS agent, NULL AS model, NULL AS k1, NULL AS k2, NULL AS k3, NULL AS n, NULL AS total WHERE 0
    UNION ALL SELECT 'breakdown', (CAST(h.timestamp AS INTEGER) / 86400000 * 86400000), (SELECT source FROM sessions WHERE id = g.session_id), NULL, h.model, NULL, NULL, NULL, 1, 0 FROM attempts h, goals g WHERE g.id = h.goal_id AND h.attempt_type = 'breakdown'
  ) WHERE 1) GROUP BY 1, 2, 3, 4, 5, 6, 7, 8
  ON CONFLICT (figure, day, source, ifnull(agent, char(0)), ifnull(model, char(0)), ifnull(k1, char(0)), ifnull(k2, -1), ifnull(k3, -1)) DO UPDATE SET n = n + excluded.n, total = total + excluded.total;
  INSERT INTO analytics_rollups (figure, day, source, agent, model, k1, k2, k3, n, total)
  SELECT figure, day, source, agent, model, k1, k2, k3, sum(n), sum(total) FROM (SELECT * FROM (
    SELECT NULL AS figure, NULL AS day, NULL AS source, NULL AS agent, NULL AS model, NULL AS k1, NULL AS k2, NULL AS k3, NULL AS n, NULL AS total WHERE 0
    UNION ALL SELECT 'tokens', (CAST(h.timestamp AS INTEGER) / 86400000 * 86400000), (SELECT source FROM sessions WHERE id = h.session_id), h.agent_id, h.model, h.agent_type, NULL, NULL, 1, h.tokens_estimated FROM token_usage h WHERE 1
  ) WHERE 1) GROUP BY 1, 2, 3, 4, 5, 6, 7, 8
  ON CONFLICT (figure, day, source, ifnull(agent, char(0)), ifnull(model, char(0)), ifnull(k1, char(0)), ifnull(k2, -1), ifnull(k3, -1)) DO UPDATE SET n = n + excluded.n, total = total + excluded.total;
  INSERT INTO analytics_rollups (figure, day, source, agent, model, k1, k2, k3, n, total)
  SELECT 'judged_all', 0, source, NULL, NULL, k1, k2, NULL, sum(n), 0 FROM analytics_rollups WHERE figure = 'judged' GROUP BY source, k1, k2
  ON CONFLICT (figure, day, source, ifnull(agent, char(0)), ifnull(model, char(0)), ifnull(k1, char(0)), ifnull(k2, -1), ifnull(k3, -1)) DO UPDATE SET n = n + excluded.n, total = total + excluded.total;
  INSERT INTO analytics_rollups (figure, day, source, agent, model, k1, k2, k3, n, total)
  SELECT 'spell_all', 0, source, NULL, NULL, k1, k2, NULL, sum(n), sum(total) FROM analytics_rollups WHERE figure = 'spell' GROUP BY source, k1, k2
  ON CONFLICT (figure, day, source, ifnull(agent, char(0)), ifnull(model, char(0)), ifnull(k1, char(0)), ifnull(k2, -1), ifnull(k3, -1)) DO UPDATE SET n = n + excluded.n, total = total + excluded.total;
  INSERT INTO analytics_rollups (figure, day, source, agent, model, k1, k2, k3, n, total)
  SELECT 'reset_hist', 0, source, NULL, NULL, NULL, resets, NULL, count(*), 0 FROM (SELECT source, k2, sum(n) AS resets FROM analytics_rollups WHERE figure = 'reset' GROUP BY source, k2) WHERE 1 GROUP BY source, resets
  ON CONFLICT (figure, day, source, ifnull(agent, char(0)), ifnull(model, char(0)), ifnull(k1, char(0)), ifnull(k2, -1), ifnull(k3, -1)) DO UPDATE SET n = n + excluded.n, total = total + excluded.total;
  INSERT INTO analytics_rollups (figure, day, source, agent, model, k1, k2, k3, n, total)
  SELECT 'attempt_all', 0, source, NULL, model, k1, k2, NULL, sum(n), 0 FROM analytics_rollups WHERE figure = 'attempt' GROUP BY source, model, k1, k2
  ON CONFLICT (figure, day, source, ifnull(agent, char(0)), ifnull(model, char(0)), ifnull(k1, char(0)), ifnull(k2, -1), ifnull(k3, -1)) DO UPDATE SET n = n + excluded.n, total = total + excluded.total;
  INSERT INTO analytics_rollups (figure, day, source, agent, model, k1, k2, k3, n, total)
  SELECT 'goal_hist', 0, source, NULL, NULL, succeeded, attempts, NULL, count(*), 0 FROM (SELECT source, k3, sum(n) AS attempts, CASE WHEN max(k1 = 'success') THEN '1' ELSE '0' END AS succeeded FROM analytics_rollups WHERE figure = 'attempt' GROUP BY source, k3) WHERE 1 GROUP BY source, succeeded, attempts
  ON CONFLICT (figure, day, source, ifnull(agent, char(0)), ifnull(model, char(0)), ifnull(k1, char(0)), ifnull(k2, -1), ifnull(k3, -1)) DO UPDATE SET n = n + excluded.n, total = total + excluded.total;
END;
--> statement-breakpoint
DELETE FROM analytics_rollups;
--> statement-breakpoint
DELETE FROM analytics_reason_kinds;
--> statement-breakpoint
DELETE FROM analytics_rollup_state;
--> statement-breakpoint
INSERT INTO analytics_rollups (figure, day, source, agent, model, k1, k2, k3, n, total)
  SELECT figure, day, source, agent, model, k1, k2, k3, sum(n), sum(total) FROM (SELECT * FROM (
    SELECT NULL AS figure, NULL AS day, NULL AS source, NULL AS agent, NULL AS model, NULL AS k1, NULL AS k2, NULL AS k3, NULL AS n, NULL AS total WHERE 0
    UNION ALL SELECT 'claim', (CAST(h.at AS INTEGER) / 86400000 * 86400000), (SELECT source FROM sessions WHERE id = h.session_id), h.actor, (SELECT value FROM json_each((SELECT models FROM sessions WHERE id = h.session_id)) WHERE key = rtrim(rtrim(h.actor, '0123456789'), '_')), NULL, NULL, NULL, 1, 0 FROM task_transitions h WHERE h.move = 'claim'
  ) WHERE 1) GROUP BY 1, 2, 3, 4, 5, 6, 7, 8
  ON CONFLICT (figure, day, source, ifnull(agent, char(0)), ifnull(model, char(0)), ifnull(k1, char(0)), ifnull(k2, -1), ifnull(k3, -1)) DO UPDATE SET n = n + excluded.n, total = total + excluded.total;
--> statement-breakpoint
INSERT INTO analytics_rollups (figure, day, source, agent, model, k1, k2, k3, n, total)
  SELECT figure, day, source, agent, model, k1, k2, k3, sum(n), sum(total) FROM (SELECT * FROM (
    SELECT NULL AS figure, NULL AS day, NULL AS source, NULL AS agent, NULL AS model, NULL AS k1, NULL AS k2, NULL AS k3, NULL AS n, NULL AS total WHERE 0
    UNION ALL SELECT 'claim', (CAST(c.at AS INTEGER) / 86400000 * 86400000), (SELECT source FROM sessions WHERE id = c.session_id), c.actor, (SELECT value FROM json_each((SELECT models FROM sessions WHERE id = c.session_id)) WHERE key = rtrim(rtrim(c.actor, '0123456789'), '_')), NULL, NULL, NULL, 0, 1 FROM task_transitions h, task_transitions c WHERE h.move = 'block' AND c.id = (SELECT max(x.id) FROM task_transitions x WHERE x.task_id = h.task_id AND x.to_status = 'claimed' AND x.id < h.id) AND c.move = 'claim'
  ) WHERE 1) GROUP BY 1, 2, 3, 4, 5, 6, 7, 8
  ON CONFLICT (figure, day, source, ifnull(agent, char(0)), ifnull(model, char(0)), ifnull(k1, char(0)), ifnull(k2, -1), ifnull(k3, -1)) DO UPDATE SET n = n + excluded.n, total = total + excluded.total;
--> statement-breakpoint
INSERT INTO analytics_rollups (figure, day, source, agent, model, k1, k2, k3, n, total)
  SELECT figure, day, source, agent, model, k1, k2, k3, sum(n), sum(total) FROM (SELECT * FROM (
    SELECT NULL AS figure, NULL AS day, NULL AS source, NULL AS agent, NULL AS model, NULL AS k1, NULL AS k2, NULL AS k3, NULL AS n, NULL AS total WHERE 0
    UNION ALL SELECT 'judged', (CAST(c.at AS INTEGER) / 86400000 * 86400000), (SELECT source FROM sessions WHERE id = c.session_id), c.actor, (SELECT value FROM json_each((SELECT models FROM sessions WHERE id = c.session_id)) WHERE key = rtrim(rtrim(c.actor, '0123456789'), '_')), h.move, (h.at - c.at) / 1000, NULL, 1, 0 FROM task_transitions h, task_transitions c WHERE h.move IN ('verify', 'block') AND c.id = (SELECT max(x.id) FROM task_transitions x WHERE x.task_id = h.task_id AND x.to_status = 'claimed' AND x.id < h.id) AND c.move = 'claim'
  ) WHERE 1) GROUP BY 1, 2, 3, 4, 5, 6, 7, 8
  ON CONFLICT (figure, day, source, ifnull(agent, char(0)), ifnull(model, char(0)), ifnull(k1, char(0)), ifnull(k2, -1), ifnull(k3, -1)) DO UPDATE SET n = n + excluded.n, total = total + excluded.total;
--> statement-breakpoint
INSERT INTO analytics_rollups (figure, day, source, agent, model, k1, k2, k3, n, total)
  SELECT figure, day, source, agent, model, k1, k2, k3, sum(n), sum(total) FROM (SELECT * FROM (
    SELECT NULL AS figure, NULL AS day, NULL AS source, NULL AS agent, NULL AS model, NULL AS k1, NULL AS k2, NULL AS k3, NULL AS n, NULL AS total WHERE 0
    UNION ALL SELECT 'spell', (CAST(b.at AS INTEGER) / 86400000 * 86400000), (SELECT source FROM sessions WHERE id = b.session_id), b.claimant, (SELECT value FROM json_each((SELECT models FROM sessions WHERE id = b.session_id)) WHERE key = rtrim(rtrim(b.claimant, '0123456789'), '_')), h.move, (h.at - b.at) / 1000, NULL, 1, h.at - b.at FROM task_transitions h, task_transitions b WHERE (h.move = 'approve_reset' OR (h.move = 'report' AND h.from_status = 'blocked' AND h.to_status IS NOT 'blocked')) AND b.to_status = 'blocked' AND b.id = (SELECT max(x.id) FROM task_transitions x WHERE x.task_id = h.task_id AND x.to_status = 'blocked' AND x.from_status IS NOT 'blocked' AND x.id < h.id)
  ) WHERE 1) GROUP BY 1, 2, 3, 4, 5, 6, 7, 8
  ON CONFLICT (figure, day, source, ifnull(agent, char(0)), ifnull(model, char(0)), ifnull(k1, char(0)), ifnull(k2, -1), ifnull(k3, -1)) DO UPDATE SET n = n + excluded.n, total = total + excluded.total;
--> statement-breakpoint
INSERT INTO analytics_rollups (figure, day, source, agent, model, k1, k2, k3, n, total)
  SELECT figure, day, source, agent, model, k1, k2, k3, sum(n), sum(total) FROM (SELECT * FROM (
    SELECT NULL AS figure, NULL AS day, NULL AS source, NULL AS agent, NULL AS model, NULL AS k1, NULL AS k2, NULL AS k3, NULL AS n, NULL AS total WHERE 0
    UNION ALL SELECT 'reset', (CAST(b.at AS INTEGER) / 86400000 * 86400000), (SELECT source FROM sessions WHERE id = b.session_id), b.claimant, (SELECT value FROM json_each((SELECT models FROM sessions WHERE id = b.session_id)) WHERE key = rtrim(rtrim(b.claimant, '0123456789'), '_')), NULL, h.task_id, NULL, 1, 0 FROM task_transitions h, task_transitions b WHERE h.move = 'approve_reset' AND b.to_status = 'blocked' AND b.id = (SELECT max(x.id) FROM task_transitions x WHERE x.task_id = h.task_id AND x.to_status = 'blocked' AND x.from_status IS NOT 'blocked' AND x.id < h.id)
  ) WHERE 1) GROUP BY 1, 2, 3, 4, 5, 6, 7, 8
  ON CONFLICT (figure, day, source, ifnull(agent, char(0)), ifnull(model, char(0)), ifnull(k1, char(0)), ifnull(k2, -1), ifnull(k3, -1)) DO UPDATE SET n = n + excluded.n, total = total + excluded.total;
--> statement-breakpoint
INSERT INTO analytics_rollups (figure, day, source, agent, model, k1, k2, k3, n, total)
  SELECT figure, day, source, agent, model, k1, k2, k3, sum(n), sum(total) FROM (SELECT * FROM (
    SELECT NULL AS figure, NULL AS day, NULL AS source, NULL AS agent, NULL AS model, NULL AS k1, NULL AS k2, NULL AS k3, NULL AS n, NULL AS total WHERE 0
    UNION ALL SELECT 'check', (CAST(h.at AS INTEGER) / 86400000 * 86400000), (SELECT source FROM sessions WHERE id = h.session_id), h.actor, NULL, NULL, h.accepted, NULL, 1, 0 FROM completion_checks h WHERE 1
  ) WHERE 1) GROUP BY 1, 2, 3, 4, 5, 6, 7, 8
  ON CONFLICT (figure, day, source, ifnull(agent, char(0)), ifnull(model, char(0)), ifnull(k1, char(0)), ifnull(k2, -1), ifnull(k3, -1)) DO UPDATE SET n = n + excluded.n, total = total + excluded.total;
--> statement-breakpoint
INSERT INTO analytics_rollups (figure, day, source, agent, model, k1, k2, k3, n, total)
  SELECT figure, day, source, agent, model, k1, k2, k3, sum(n), sum(total) FROM (SELECT * FROM (
    SELECT NULL AS figure, NULL AS day, NULL AS source, NULL AS agent, NULL AS model, NULL AS k1, NULL AS k2, NULL AS k3, NULL AS n, NULL AS total WHERE 0
    UNION ALL SELECT 'attempt', (CAST(h.timestamp AS INTEGER) / 86400000 * 86400000), (SELECT source FROM sessions WHERE id = g.session_id), NULL, h.model, coalesce((SELECT r.status FROM attempt_results r WHERE r.attempt_id = h.id), 'running'), (SELECT count(*) FROM attempts p WHERE p.goal_id = h.goal_id AND p.attempt_type = 'implementation' AND p.id < h.id) + 1, h.goal_id, 1, 0 FROM attempts h, goals g WHERE g.id = h.goal_id AND h.attempt_type = 'implementation'
  ) WHERE 1) GROUP BY 1, 2, 3, 4, 5, 6, 7, 8
  ON CONFLICT (figure, day, source, ifnull(agent, char(0)), ifnull(model, char(0)), ifnull(k1, char(0)), ifnull(k2, -1), ifnull(k3, -1)) DO UPDATE SET n = n + excluded.n, total = total + excluded.total;
--> statement-breakpoint
INSERT INTO analytics_rollups (figure, day, source, agent, model, k1, k2, k3, n, total)
  SELECT figure, day, source, agent, model, k1, k2, k3, sum(n), sum(total) FROM (SELECT * FROM (
    SELECT NULL AS figure, NULL AS day, NULL AS source, NULL AS agent, NULL AS model, NULL AS k1, NULL AS k2, NULL AS k3, NULL AS n, NULL AS total WHERE 0
    UNION ALL SELECT 'breakdown', (CAST(h.timestamp AS INTEGER) / 86400000 * 86400000), (SELECT source FROM sessions WHERE id = g.session_id), NULL, h.model, NULL, NULL, NULL, 1, 0 FROM attempts h, goals g WHERE g.id = h.goal_id AND h.attempt_type = 'breakdown'
  ) WHERE 1) GROUP BY 1, 2, 3, 4, 5, 6, 7, 8
  ON CONFLICT (figure, day, source, ifnull(agent, char(0)), ifnull(model, char(0)), ifnull(k1, char(0)), ifnull(k2, -1), ifnull(k3, -1)) DO UPDATE SET n = n + excluded.n, total = total + excluded.total;
--> statement-breakpoint
INSERT INTO analytics_rollups (figure, day, source, agent, model, k1, k2, k3, n, total)
  SELECT figure, day, source, agent, model, k1, k2, k3, sum(n), sum(total) FROM (SELECT * FROM (
    SELECT NULL AS figure, NULL AS day, NULL AS source, NULL AS agent, NULL AS model, NULL AS k1, NULL AS k2, NULL AS k3, NULL AS n, NULL AS total WHERE 0
    UNION ALL SELECT 'tokens', (CAST(h.timestamp AS INTEGER) / 86400000 * 86400000), (SELECT source FROM sessions WHERE id = h.session_id), h.agent_id, h.model, h.agent_type, NULL, NULL, 1, h.tokens_estimated FROM token_usage h WHERE 1
  ) WHERE 1) GROUP BY 1, 2, 3, 4, 5, 6, 7, 8
  ON CONFLICT (figure, day, source, ifnull(agent, char(0)), ifnull(model, char(0)), ifnull(k1, char(0)), ifnull(k2, -1), ifnull(k3, -1)) DO UPDATE SET n = n + excluded.n, total = total + excluded.total;
--> statement-breakpoint
INSERT INTO analytics_rollups (figure, day, source, agent, model, k1, k2, k3, n, total)
  SELECT 'judged_all', 0, source, NULL, NULL, k1, k2, NULL, sum(n), 0 FROM analytics_rollups WHERE figure = 'judged' GROUP BY source, k1, k2
  ON CONFLICT (figure, day, source, ifnull(agent, char(0)), ifnull(model, char(0)), ifnull(k1, char(0)), ifnull(k2, -1), ifnull(k3, -1)) DO UPDATE SET n = n + excluded.n, total = total + excluded.total;
--> statement-breakpoint
INSERT INTO analytics_rollups (figure, day, source, agent, model, k1, k2, k3, n, total)
  SELECT 'spell_all', 0, source, NULL, NULL, k1, k2, NULL, sum(n), sum(total) FROM analytics_rollups WHERE figure = 'spell' GROUP BY source, k1, k2
  ON CONFLICT (figure, day, source, ifnull(agent, char(0)), ifnull(model, char(0)), ifnull(k1, char(0)), ifnull(k2, -1), ifnull(k3, -1)) DO UPDATE SET n = n + excluded.n, total = total + excluded.total;
--> statement-breakpoint
INSERT INTO analytics_rollups (figure, day, source, agent, model, k1, k2, k3, n, total)
  SELECT 'reset_hist', 0, source, NULL, NULL, NULL, resets, NULL, count(*), 0 FROM (SELECT source, k2, sum(n) AS resets FROM analytics_rollups WHERE figure = 'reset' GROUP BY source, k2) WHERE 1 GROUP BY source, resets
  ON CONFLICT (figure, day, source, ifnull(agent, char(0)), ifnull(model, char(0)), ifnull(k1, char(0)), ifnull(k2, -1), ifnull(k3, -1)) DO UPDATE SET n = n + excluded.n, total = total + excluded.total;
--> statement-breakpoint
INSERT INTO analytics_rollups (figure, day, source, agent, model, k1, k2, k3, n, total)
  SELECT 'attempt_all', 0, source, NULL, model, k1, k2, NULL, sum(n), 0 FROM analytics_rollups WHERE figure = 'attempt' GROUP BY source, model, k1, k2
  ON CONFLICT (figure, day, source, ifnull(agent, char(0)), ifnull(model, char(0)), ifnull(k1, char(0)), ifnull(k2, -1), ifnull(k3, -1)) DO UPDATE SET n = n + excluded.n, total = total + excluded.total;
--> statement-breakpoint
INSERT INTO analytics_rollups (figure, day, source, agent, model, k1, k2, k3, n, total)
  SELECT 'goal_hist', 0, source, NULL, NULL, succeeded, attempts, NULL, count(*), 0 FROM (SELECT source, k3, sum(n) AS attempts, CASE WHEN max(k1 = 'success') THEN '1' ELSE '0' END AS succeeded FROM analytics_rollups WHERE figure = 'attempt' GROUP BY source, k3) WHERE 1 GROUP BY source, succeeded, attempts
  ON CONFLICT (figure, day, source, ifnull(agent, char(0)), ifnull(model, char(0)), ifnull(k1, char(0)), ifnull(k2, -1), ifnull(k3, -1)) DO UPDATE SET n = n + excluded.n, total = total + excluded.total;
