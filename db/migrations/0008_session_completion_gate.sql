ALTER TABLE `sessions` ADD `checks_stale_through` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `sessions` ADD `completion_check_id` integer;--> statement-breakpoint
CREATE INDEX `completion_checks_session_id_id_idx` ON `completion_checks` (`session_id`,`id`);
--> statement-breakpoint
-- From db/completion-gate.ts completionGateMigrationSql(). Do not edit by hand.
--> statement-breakpoint
UPDATE sessions SET checks_stale_through = coalesce((SELECT max(id) FROM completion_checks c WHERE c.session_id = sessions.id), 0);
--> statement-breakpoint
CREATE TRIGGER success_criteria_gate_stale_insert
AFTER INSERT ON success_criteria
BEGIN
  UPDATE sessions SET checks_stale_through = (SELECT max(id) FROM completion_checks WHERE session_id = sessions.id) WHERE id = NEW.session_id AND checks_stale_through < (SELECT max(id) FROM completion_checks WHERE session_id = sessions.id);
END;
--> statement-breakpoint
CREATE TRIGGER success_criteria_gate_stale_update
AFTER UPDATE OF criterion, status, actual, evidence, required_for_completion, verifier_status, verifier_actual, verifier_evidence ON success_criteria
WHEN (NEW.criterion IS NOT OLD.criterion OR NEW.status IS NOT OLD.status OR NEW.actual IS NOT OLD.actual OR NEW.evidence IS NOT OLD.evidence OR NEW.required_for_completion IS NOT OLD.required_for_completion OR NEW.verifier_status IS NOT OLD.verifier_status OR NEW.verifier_actual IS NOT OLD.verifier_actual OR NEW.verifier_evidence IS NOT OLD.verifier_evidence)
BEGIN
  UPDATE sessions SET checks_stale_through = (SELECT max(id) FROM completion_checks WHERE session_id = sessions.id) WHERE id = NEW.session_id AND checks_stale_through < (SELECT max(id) FROM completion_checks WHERE session_id = sessions.id);
END;
--> statement-breakpoint
CREATE TRIGGER success_criteria_gate_stale_delete
AFTER DELETE ON success_criteria
BEGIN
  UPDATE sessions SET checks_stale_through = (SELECT max(id) FROM completion_checks WHERE session_id = sessions.id) WHERE id = OLD.session_id AND checks_stale_through < (SELECT max(id) FROM completion_checks WHERE session_id = sessions.id);
END;
--> statement-breakpoint
CREATE TRIGGER tasks_gate_stale_insert
AFTER INSERT ON tasks
BEGIN
  UPDATE sessions SET checks_stale_through = (SELECT max(id) FROM completion_checks WHERE session_id = sessions.id) WHERE id = NEW.session_id AND checks_stale_through < (SELECT max(id) FROM completion_checks WHERE session_id = sessions.id);
END;
--> statement-breakpoint
CREATE TRIGGER tasks_gate_stale_update
AFTER UPDATE OF key, title, status, verification ON tasks
WHEN (NEW.key IS NOT OLD.key OR NEW.title IS NOT OLD.title OR NEW.status IS NOT OLD.status OR NEW.verification IS NOT OLD.verification)
BEGIN
  UPDATE sessions SET checks_stale_through = (SELECT max(id) FROM completion_checks WHERE session_id = sessions.id) WHERE id = NEW.session_id AND checks_stale_through < (SELECT max(id) FROM completion_checks WHERE session_id = sessions.id);
END;
--> statement-breakpoint
CREATE TRIGGER tasks_gate_stale_delete
AFTER DELETE ON tasks
BEGIN
  UPDATE sessions SET checks_stale_through = (SELECT max(id) FROM completion_checks WHERE session_id = sessions.id) WHERE id = OLD.session_id AND checks_stale_through < (SELECT max(id) FROM completion_checks WHERE session_id = sessions.id);
END;
--> statement-breakpoint
CREATE TRIGGER goal_contracts_gate_stale_insert
AFTER INSERT ON goal_contracts
BEGIN
  UPDATE sessions SET checks_stale_through = (SELECT max(id) FROM completion_checks WHERE session_id = sessions.id) WHERE id = (SELECT session_id FROM goals WHERE id = NEW.goal_id) AND checks_stale_through < (SELECT max(id) FROM completion_checks WHERE session_id = sessions.id);
END;
--> statement-breakpoint
CREATE TRIGGER goal_contracts_gate_stale_update
AFTER UPDATE OF goal_id ON goal_contracts
WHEN (NEW.goal_id IS NOT OLD.goal_id)
BEGIN
  UPDATE sessions SET checks_stale_through = (SELECT max(id) FROM completion_checks WHERE session_id = sessions.id) WHERE id = (SELECT session_id FROM goals WHERE id = OLD.goal_id) AND checks_stale_through < (SELECT max(id) FROM completion_checks WHERE session_id = sessions.id);
  UPDATE sessions SET checks_stale_through = (SELECT max(id) FROM completion_checks WHERE session_id = sessions.id) WHERE id = (SELECT session_id FROM goals WHERE id = NEW.goal_id) AND checks_stale_through < (SELECT max(id) FROM completion_checks WHERE session_id = sessions.id);
END;
--> statement-breakpoint
CREATE TRIGGER goal_contracts_gate_stale_delete
AFTER DELETE ON goal_contracts
BEGIN
  UPDATE sessions SET checks_stale_through = (SELECT max(id) FROM completion_checks WHERE session_id = sessions.id) WHERE id = (SELECT session_id FROM goals WHERE id = OLD.goal_id) AND checks_stale_through < (SELECT max(id) FROM completion_checks WHERE session_id = sessions.id);
END;
--> statement-breakpoint
CREATE TRIGGER goal_gate_evaluations_gate_stale_insert
AFTER INSERT ON goal_gate_evaluations
BEGIN
  UPDATE sessions SET checks_stale_through = (SELECT max(id) FROM completion_checks WHERE session_id = sessions.id) WHERE id = (SELECT session_id FROM goals WHERE id = NEW.goal_id) AND checks_stale_through < (SELECT max(id) FROM completion_checks WHERE session_id = sessions.id);
END;
--> statement-breakpoint
CREATE TRIGGER goal_gate_evaluations_gate_stale_delete
AFTER DELETE ON goal_gate_evaluations
BEGIN
  UPDATE sessions SET checks_stale_through = (SELECT max(id) FROM completion_checks WHERE session_id = sessions.id) WHERE id = (SELECT session_id FROM goals WHERE id = OLD.goal_id) AND checks_stale_through < (SELECT max(id) FROM completion_checks WHERE session_id = sessions.id);
END;
--> statement-breakpoint
CREATE TRIGGER sessions_completion_insert
BEFORE INSERT ON sessions
WHEN NEW.status = 'completed' OR NEW.completion_check_id IS NOT NULL
BEGIN
  SELECT CASE
    WHEN NEW.status = 'completed' THEN RAISE(ABORT, 'completion.check_required: a session is created active and completes on a completion check recorded after it')
    WHEN 1 THEN RAISE(ABORT, 'completion.bookkeeping: completion_check_id is recorded by a completion, never written')
  END;
END;
--> statement-breakpoint
CREATE TRIGGER sessions_completion_gate
BEFORE UPDATE OF status ON sessions
WHEN NEW.status = 'completed' AND OLD.status IS NOT 'completed'
BEGIN
  SELECT CASE
    WHEN (SELECT max(id) FROM completion_checks WHERE session_id = NEW.id) IS NULL OR (SELECT max(id) FROM completion_checks WHERE session_id = NEW.id) <= OLD.checks_stale_through THEN RAISE(ABORT, 'completion.check_required: a session completes only on a completion check recorded after the last change to its criteria, tasks and goal verdicts; run the completion check, then complete')
    WHEN NEW.enforcement IS NOT 'observe' AND NOT (SELECT accepted FROM completion_checks WHERE id = (SELECT max(id) FROM completion_checks WHERE session_id = NEW.id)) THEN RAISE(ABORT, 'completion.rejected: the latest completion check rejected this enforce session; it completes only once a check accepts it')
  END;
END;
--> statement-breakpoint
CREATE TRIGGER sessions_completion_record
AFTER UPDATE OF status ON sessions
WHEN NEW.status = 'completed' AND OLD.status IS NOT 'completed'
BEGIN
  UPDATE sessions SET completion_check_id = (SELECT max(id) FROM completion_checks WHERE session_id = NEW.id), checks_stale_through = (SELECT max(id) FROM completion_checks WHERE session_id = NEW.id) WHERE id = NEW.id;
END;
--> statement-breakpoint
CREATE TRIGGER sessions_completion_bookkeeping
BEFORE UPDATE OF checks_stale_through, completion_check_id ON sessions
WHEN (NEW.checks_stale_through IS NOT OLD.checks_stale_through OR NEW.completion_check_id IS NOT OLD.completion_check_id)
BEGIN
  SELECT CASE
    WHEN NEW.checks_stale_through < OLD.checks_stale_through THEN RAISE(ABORT, 'completion.bookkeeping: checks_stale_through only grows; a stale completion check never becomes fresh again')
    WHEN NEW.checks_stale_through > coalesce((SELECT max(id) FROM completion_checks WHERE session_id = NEW.id), 0) THEN RAISE(ABORT, 'completion.bookkeeping: checks_stale_through names a completion check of this session')
    WHEN NEW.completion_check_id IS NOT OLD.completion_check_id AND NOT (NEW.status = 'completed' AND NEW.completion_check_id IS (SELECT max(id) FROM completion_checks WHERE session_id = NEW.id) AND OLD.checks_stale_through < NEW.completion_check_id AND NEW.checks_stale_through = NEW.completion_check_id AND (NEW.enforcement = 'observe' OR (SELECT accepted FROM completion_checks WHERE id = NEW.completion_check_id))) THEN RAISE(ABORT, 'completion.bookkeeping: completion_check_id is recorded by a completion, never written')
  END;
END;
