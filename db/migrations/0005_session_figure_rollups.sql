-- Custom SQL migration file, put your code below! --
--> statement-breakpoint
-- From db/enforcement.ts sessionFigureRollupMigrationSql(). Do not edit by hand.
--> statement-breakpoint
CREATE TRIGGER sessions_rollup_criteria_insert
AFTER INSERT ON sessions
WHEN NEW.criteria_required > 0
BEGIN
  INSERT INTO analytics_rollups (figure, day, source, agent, model, k1, k2, k3, n, total)
  SELECT 'criteria', (CAST(NEW.started_at AS INTEGER) / 86400000 * 86400000), NEW.source, NULL, NULL, NULL, NEW.criteria_required, NEW.criteria_required_met, 1, 0 WHERE NEW.criteria_required > 0
  ON CONFLICT (figure, day, source, ifnull(agent, char(0)), ifnull(model, char(0)), ifnull(k1, char(0)), ifnull(k2, -1), ifnull(k3, -1)) DO UPDATE SET n = n + excluded.n, total = total + excluded.total;
END;
--> statement-breakpoint
CREATE TRIGGER sessions_rollup_criteria_update
AFTER UPDATE OF started_at, criteria_required, criteria_required_met ON sessions
WHEN (OLD.criteria_required > 0 OR NEW.criteria_required > 0) AND (NEW.started_at IS NOT OLD.started_at OR NEW.criteria_required IS NOT OLD.criteria_required OR NEW.criteria_required_met IS NOT OLD.criteria_required_met)
BEGIN
  INSERT INTO analytics_rollups (figure, day, source, agent, model, k1, k2, k3, n, total)
  SELECT figure, day, source, agent, model, k1, k2, k3, -n, -total FROM (SELECT * FROM (
    SELECT NULL AS figure, NULL AS day, NULL AS source, NULL AS agent, NULL AS model, NULL AS k1, NULL AS k2, NULL AS k3, NULL AS n, NULL AS total WHERE 0
    UNION ALL SELECT 'criteria', (CAST(OLD.started_at AS INTEGER) / 86400000 * 86400000), OLD.source, NULL, NULL, NULL, OLD.criteria_required, OLD.criteria_required_met, 1, 0 WHERE OLD.criteria_required > 0
  ) WHERE 1) WHERE 1
  ON CONFLICT (figure, day, source, ifnull(agent, char(0)), ifnull(model, char(0)), ifnull(k1, char(0)), ifnull(k2, -1), ifnull(k3, -1)) DO UPDATE SET n = n + excluded.n, total = total + excluded.total;
  INSERT INTO analytics_rollups (figure, day, source, agent, model, k1, k2, k3, n, total)
  SELECT 'criteria', (CAST(NEW.started_at AS INTEGER) / 86400000 * 86400000), NEW.source, NULL, NULL, NULL, NEW.criteria_required, NEW.criteria_required_met, 1, 0 WHERE NEW.criteria_required > 0
  ON CONFLICT (figure, day, source, ifnull(agent, char(0)), ifnull(model, char(0)), ifnull(k1, char(0)), ifnull(k2, -1), ifnull(k3, -1)) DO UPDATE SET n = n + excluded.n, total = total + excluded.total;
END;
--> statement-breakpoint
CREATE TRIGGER sessions_rollup_started_at
AFTER UPDATE OF started_at ON sessions
WHEN (NEW.started_at IS NOT OLD.started_at)
BEGIN
  INSERT INTO analytics_rollups (figure, day, source, agent, model, k1, k2, k3, n, total)
  SELECT 'criterion_' || coalesce(c.verifier_status, c.status), (CAST(OLD.started_at AS INTEGER) / 86400000 * 86400000), OLD.source, NULL, NULL, c.criterion, NULL, NULL, -count(*), 0
    FROM success_criteria c WHERE c.session_id = OLD.id AND coalesce(c.verifier_status, c.status) IN ('blocked', 'failed') GROUP BY coalesce(c.verifier_status, c.status), c.criterion
  ON CONFLICT (figure, day, source, ifnull(agent, char(0)), ifnull(model, char(0)), ifnull(k1, char(0)), ifnull(k2, -1), ifnull(k3, -1)) DO UPDATE SET n = n + excluded.n, total = total + excluded.total;
  INSERT INTO analytics_rollups (figure, day, source, agent, model, k1, k2, k3, n, total)
  SELECT 'criterion_' || coalesce(c.verifier_status, c.status), (CAST(NEW.started_at AS INTEGER) / 86400000 * 86400000), NEW.source, NULL, NULL, c.criterion, NULL, NULL, count(*), 0
    FROM success_criteria c WHERE c.session_id = NEW.id AND coalesce(c.verifier_status, c.status) IN ('blocked', 'failed') GROUP BY coalesce(c.verifier_status, c.status), c.criterion
  ON CONFLICT (figure, day, source, ifnull(agent, char(0)), ifnull(model, char(0)), ifnull(k1, char(0)), ifnull(k2, -1), ifnull(k3, -1)) DO UPDATE SET n = n + excluded.n, total = total + excluded.total;
END;
--> statement-breakpoint
CREATE TRIGGER success_criteria_rollup_found_insert
AFTER INSERT ON success_criteria
WHEN coalesce(NEW.verifier_status, NEW.status) IN ('blocked', 'failed')
BEGIN
  INSERT INTO analytics_rollups (figure, day, source, agent, model, k1, k2, k3, n, total)
  SELECT 'criterion_' || coalesce(NEW.verifier_status, NEW.status), (CAST(s.started_at AS INTEGER) / 86400000 * 86400000), s.source, NULL, NULL, NEW.criterion, NULL, NULL, 1, 0 FROM sessions s WHERE s.id = NEW.session_id AND coalesce(NEW.verifier_status, NEW.status) IN ('blocked', 'failed')
  ON CONFLICT (figure, day, source, ifnull(agent, char(0)), ifnull(model, char(0)), ifnull(k1, char(0)), ifnull(k2, -1), ifnull(k3, -1)) DO UPDATE SET n = n + excluded.n, total = total + excluded.total;
END;
--> statement-breakpoint
CREATE TRIGGER success_criteria_rollup_found_update
AFTER UPDATE OF status, verifier_status ON success_criteria
WHEN coalesce(OLD.verifier_status, OLD.status) IS NOT coalesce(NEW.verifier_status, NEW.status) AND (coalesce(OLD.verifier_status, OLD.status) IN ('blocked', 'failed') OR coalesce(NEW.verifier_status, NEW.status) IN ('blocked', 'failed'))
BEGIN
  INSERT INTO analytics_rollups (figure, day, source, agent, model, k1, k2, k3, n, total)
  SELECT figure, day, source, agent, model, k1, k2, k3, -n, -total FROM (SELECT * FROM (
    SELECT NULL AS figure, NULL AS day, NULL AS source, NULL AS agent, NULL AS model, NULL AS k1, NULL AS k2, NULL AS k3, NULL AS n, NULL AS total WHERE 0
    UNION ALL SELECT 'criterion_' || coalesce(OLD.verifier_status, OLD.status), (CAST(s.started_at AS INTEGER) / 86400000 * 86400000), s.source, NULL, NULL, OLD.criterion, NULL, NULL, 1, 0 FROM sessions s WHERE s.id = OLD.session_id AND coalesce(OLD.verifier_status, OLD.status) IN ('blocked', 'failed')
  ) WHERE 1) WHERE 1
  ON CONFLICT (figure, day, source, ifnull(agent, char(0)), ifnull(model, char(0)), ifnull(k1, char(0)), ifnull(k2, -1), ifnull(k3, -1)) DO UPDATE SET n = n + excluded.n, total = total + excluded.total;
  INSERT INTO analytics_rollups (figure, day, source, agent, model, k1, k2, k3, n, total)
  SELECT 'criterion_' || coalesce(NEW.verifier_status, NEW.status), (CAST(s.started_at AS INTEGER) / 86400000 * 86400000), s.source, NULL, NULL, NEW.criterion, NULL, NULL, 1, 0 FROM sessions s WHERE s.id = NEW.session_id AND coalesce(NEW.verifier_status, NEW.status) IN ('blocked', 'failed')
  ON CONFLICT (figure, day, source, ifnull(agent, char(0)), ifnull(model, char(0)), ifnull(k1, char(0)), ifnull(k2, -1), ifnull(k3, -1)) DO UPDATE SET n = n + excluded.n, total = total + excluded.total;
END;
--> statement-breakpoint
CREATE TRIGGER tasks_rollup_unverified_insert
AFTER INSERT ON tasks
WHEN (NEW.status = 'completed' AND NEW.verification IS 'none')
BEGIN
  INSERT INTO analytics_rollups (figure, day, source, agent, model, k1, k2, k3, n, total)
  SELECT 'unverified', (CAST(coalesce(NEW.completed_at, NEW.updated_at) AS INTEGER) / 86400000 * 86400000), (SELECT source FROM sessions WHERE id = NEW.session_id), coalesce(NEW.claimed_by, NEW.assignee), (SELECT value FROM json_each((SELECT models FROM sessions WHERE id = NEW.session_id)) WHERE key = rtrim(rtrim(coalesce(NEW.claimed_by, NEW.assignee), '0123456789'), '_')), NULL, NULL, NULL, 1, 0 WHERE (NEW.status = 'completed' AND NEW.verification IS 'none')
  ON CONFLICT (figure, day, source, ifnull(agent, char(0)), ifnull(model, char(0)), ifnull(k1, char(0)), ifnull(k2, -1), ifnull(k3, -1)) DO UPDATE SET n = n + excluded.n, total = total + excluded.total;
END;
--> statement-breakpoint
CREATE TRIGGER tasks_rollup_unverified_update
AFTER UPDATE OF status, verification, completed_at, updated_at, claimed_by, assignee ON tasks
WHEN ((OLD.status = 'completed' AND OLD.verification IS 'none') OR (NEW.status = 'completed' AND NEW.verification IS 'none')) AND (NEW.status IS NOT OLD.status OR NEW.verification IS NOT OLD.verification OR NEW.completed_at IS NOT OLD.completed_at OR NEW.updated_at IS NOT OLD.updated_at OR NEW.claimed_by IS NOT OLD.claimed_by OR NEW.assignee IS NOT OLD.assignee)
BEGIN
  INSERT INTO analytics_rollups (figure, day, source, agent, model, k1, k2, k3, n, total)
  SELECT figure, day, source, agent, model, k1, k2, k3, -n, -total FROM (SELECT * FROM (
    SELECT NULL AS figure, NULL AS day, NULL AS source, NULL AS agent, NULL AS model, NULL AS k1, NULL AS k2, NULL AS k3, NULL AS n, NULL AS total WHERE 0
    UNION ALL SELECT 'unverified', (CAST(coalesce(OLD.completed_at, OLD.updated_at) AS INTEGER) / 86400000 * 86400000), (SELECT source FROM sessions WHERE id = OLD.session_id), coalesce(OLD.claimed_by, OLD.assignee), (SELECT value FROM json_each((SELECT models FROM sessions WHERE id = OLD.session_id)) WHERE key = rtrim(rtrim(coalesce(OLD.claimed_by, OLD.assignee), '0123456789'), '_')), NULL, NULL, NULL, 1, 0 WHERE (OLD.status = 'completed' AND OLD.verification IS 'none')
  ) WHERE 1) WHERE 1
  ON CONFLICT (figure, day, source, ifnull(agent, char(0)), ifnull(model, char(0)), ifnull(k1, char(0)), ifnull(k2, -1), ifnull(k3, -1)) DO UPDATE SET n = n + excluded.n, total = total + excluded.total;
  INSERT INTO analytics_rollups (figure, day, source, agent, model, k1, k2, k3, n, total)
  SELECT 'unverified', (CAST(coalesce(NEW.completed_at, NEW.updated_at) AS INTEGER) / 86400000 * 86400000), (SELECT source FROM sessions WHERE id = NEW.session_id), coalesce(NEW.claimed_by, NEW.assignee), (SELECT value FROM json_each((SELECT models FROM sessions WHERE id = NEW.session_id)) WHERE key = rtrim(rtrim(coalesce(NEW.claimed_by, NEW.assignee), '0123456789'), '_')), NULL, NULL, NULL, 1, 0 WHERE (NEW.status = 'completed' AND NEW.verification IS 'none')
  ON CONFLICT (figure, day, source, ifnull(agent, char(0)), ifnull(model, char(0)), ifnull(k1, char(0)), ifnull(k2, -1), ifnull(k3, -1)) DO UPDATE SET n = n + excluded.n, total = total + excluded.total;
END;
--> statement-breakpoint
DROP TRIGGER purges_rollup_rebuild;
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
  SELECT figure, day, source, agent, model, k1, k2, k3, sum(n), sum(total) FROM (SELECT * FROM (
    SELECT NULL AS figure, NULL AS day, NULL AS source, NULL AS agent, NULL AS model, NULL AS k1, NULL AS k2, NULL AS k3, NULL AS n, NULL AS total WHERE 0
    UNION ALL SELECT 'criteria', (CAST(h.started_at AS INTEGER) / 86400000 * 86400000), h.source, NULL, NULL, NULL, h.criteria_required, h.criteria_required_met, 1, 0 FROM sessions h WHERE h.criteria_required > 0
  ) WHERE 1) GROUP BY 1, 2, 3, 4, 5, 6, 7, 8
  ON CONFLICT (figure, day, source, ifnull(agent, char(0)), ifnull(model, char(0)), ifnull(k1, char(0)), ifnull(k2, -1), ifnull(k3, -1)) DO UPDATE SET n = n + excluded.n, total = total + excluded.total;
  INSERT INTO analytics_rollups (figure, day, source, agent, model, k1, k2, k3, n, total)
  SELECT figure, day, source, agent, model, k1, k2, k3, sum(n), sum(total) FROM (SELECT * FROM (
    SELECT NULL AS figure, NULL AS day, NULL AS source, NULL AS agent, NULL AS model, NULL AS k1, NULL AS k2, NULL AS k3, NULL AS n, NULL AS total WHERE 0
    UNION ALL SELECT 'criterion_' || coalesce(h.verifier_status, h.status), (CAST(s.started_at AS INTEGER) / 86400000 * 86400000), s.source, NULL, NULL, h.criterion, NULL, NULL, 1, 0 FROM success_criteria h, sessions s WHERE s.id = h.session_id AND coalesce(h.verifier_status, h.status) IN ('blocked', 'failed')
  ) WHERE 1) GROUP BY 1, 2, 3, 4, 5, 6, 7, 8
  ON CONFLICT (figure, day, source, ifnull(agent, char(0)), ifnull(model, char(0)), ifnull(k1, char(0)), ifnull(k2, -1), ifnull(k3, -1)) DO UPDATE SET n = n + excluded.n, total = total + excluded.total;
  INSERT INTO analytics_rollups (figure, day, source, agent, model, k1, k2, k3, n, total)
  SELECT figure, day, source, agent, model, k1, k2, k3, sum(n), sum(total) FROM (SELECT * FROM (
    SELECT NULL AS figure, NULL AS day, NULL AS source, NULL AS agent, NULL AS model, NULL AS k1, NULL AS k2, NULL AS k3, NULL AS n, NULL AS total WHERE 0
    UNION ALL SELECT 'unverified', (CAST(coalesce(h.completed_at, h.updated_at) AS INTEGER) / 86400000 * 86400000), (SELECT source FROM sessions WHERE id = h.session_id), coalesce(h.claimed_by, h.assignee), (SELECT value FROM json_each((SELECT models FROM sessions WHERE id = h.session_id)) WHERE key = rtrim(rtrim(coalesce(h.claimed_by, h.assignee), '0123456789'), '_')), NULL, NULL, NULL, 1, 0 FROM tasks h WHERE (h.status = 'completed' AND h.verification IS 'none')
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
INSERT INTO analytics_rollups (figure, day, source, agent, model, k1, k2, k3, n, total)
  SELECT figure, day, source, agent, model, k1, k2, k3, sum(n), sum(total) FROM (SELECT * FROM (
    SELECT NULL AS figure, NULL AS day, NULL AS source, NULL AS agent, NULL AS model, NULL AS k1, NULL AS k2, NULL AS k3, NULL AS n, NULL AS total WHERE 0
    UNION ALL SELECT 'criteria', (CAST(h.started_at AS INTEGER) / 86400000 * 86400000), h.source, NULL, NULL, NULL, h.criteria_required, h.criteria_required_met, 1, 0 FROM sessions h WHERE h.criteria_required > 0
  ) WHERE 1) GROUP BY 1, 2, 3, 4, 5, 6, 7, 8
  ON CONFLICT (figure, day, source, ifnull(agent, char(0)), ifnull(model, char(0)), ifnull(k1, char(0)), ifnull(k2, -1), ifnull(k3, -1)) DO UPDATE SET n = n + excluded.n, total = total + excluded.total;
--> statement-breakpoint
INSERT INTO analytics_rollups (figure, day, source, agent, model, k1, k2, k3, n, total)
  SELECT figure, day, source, agent, model, k1, k2, k3, sum(n), sum(total) FROM (SELECT * FROM (
    SELECT NULL AS figure, NULL AS day, NULL AS source, NULL AS agent, NULL AS model, NULL AS k1, NULL AS k2, NULL AS k3, NULL AS n, NULL AS total WHERE 0
    UNION ALL SELECT 'criterion_' || coalesce(h.verifier_status, h.status), (CAST(s.started_at AS INTEGER) / 86400000 * 86400000), s.source, NULL, NULL, h.criterion, NULL, NULL, 1, 0 FROM success_criteria h, sessions s WHERE s.id = h.session_id AND coalesce(h.verifier_status, h.status) IN ('blocked', 'failed')
  ) WHERE 1) GROUP BY 1, 2, 3, 4, 5, 6, 7, 8
  ON CONFLICT (figure, day, source, ifnull(agent, char(0)), ifnull(model, char(0)), ifnull(k1, char(0)), ifnull(k2, -1), ifnull(k3, -1)) DO UPDATE SET n = n + excluded.n, total = total + excluded.total;
--> statement-breakpoint
INSERT INTO analytics_rollups (figure, day, source, agent, model, k1, k2, k3, n, total)
  SELECT figure, day, source, agent, model, k1, k2, k3, sum(n), sum(total) FROM (SELECT * FROM (
    SELECT NULL AS figure, NULL AS day, NULL AS source, NULL AS agent, NULL AS model, NULL AS k1, NULL AS k2, NULL AS k3, NULL AS n, NULL AS total WHERE 0
    UNION ALL SELECT 'unverified', (CAST(coalesce(h.completed_at, h.updated_at) AS INTEGER) / 86400000 * 86400000), (SELECT source FROM sessions WHERE id = h.session_id), coalesce(h.claimed_by, h.assignee), (SELECT value FROM json_each((SELECT models FROM sessions WHERE id = h.session_id)) WHERE key = rtrim(rtrim(coalesce(h.claimed_by, h.assignee), '0123456789'), '_')), NULL, NULL, NULL, 1, 0 FROM tasks h WHERE (h.status = 'completed' AND h.verification IS 'none')
  ) WHERE 1) GROUP BY 1, 2, 3, 4, 5, 6, 7, 8
  ON CONFLICT (figure, day, source, ifnull(agent, char(0)), ifnull(model, char(0)), ifnull(k1, char(0)), ifnull(k2, -1), ifnull(k3, -1)) DO UPDATE SET n = n + excluded.n, total = total + excluded.total;
