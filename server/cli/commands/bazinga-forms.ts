/**
 * Every way BAZINGA's own prompts, skills and scripts call `bazinga_db.py` (its repository's
 * `agents/` and `.claude/` folders, at schema v19), in the order a parallel-mode run makes them.
 * `bazinga` is what BAZINGA's real CLI does with the call: "accepts", or the error it exits 1 with
 * (a form its documentation shows but its parser refuses). docs/bazinga-commands.md is generated
 * from this list (scripts/gen-bazinga-commands-doc.ts) and bazinga-forms.test.ts replays it.
 *
 * Placeholders: {S} and {S2} are session ids, {PKG} the context package the run saved, {HASH} the
 * error pattern's hash, {FILE:name} a file from FORM_FILES written to the run's directory.
 */
export interface BazingaForm {
  command: string;
  form: string;
  /** Where in BAZINGA's repository the form is used or documented. */
  source: string;
  bazinga: "accepts" | string;
  /** The placeholder this call's output defines (the id it prints). */
  capture?: "PKG" | "HASH";
  /** Where Proofgate's outcome differs from bazinga_db.py's: the exit code it gives and why. */
  proofgate?: { exit: 0 | 2; note: string };
  args: readonly string[];
}

export const FORM_FILES: Readonly<Record<string, string>> = {"reasoning.txt":"Two operations share a parser; division by zero must raise.","tl_issues.json":"{\"group_id\":\"CALC\",\"iteration\":1,\"issues\":[{\"id\":\"TL-1\",\"severity\":\"minor\",\"title\":\"Name the magic number\"}]}","inv_state.json":"{\"iteration\":1,\"hypotheses\":[\"off-by-one\"]}","inv_event.json":"{\"finding\":\"multiply loops once too often\"}"};

export const CORE_FORMS: readonly BazingaForm[] = [
  { command: "create-session", form: "<session> <mode> <requirements>", source: "bazinga-db-core/SKILL.md", bazinga: "accepts", args: ["create-session", "{S2}", "simple", "Fix the login bug"] },
  { command: "create-session", form: "<session> <mode> <requirements> --initial_branch B --metadata JSON", source: "bazinga_db.py help; orchestrator (project_id in metadata, read by context-assembler)", bazinga: "accepts", args: ["create-session", "{S}", "parallel", "Build a calculator with a UI", "--initial_branch", "main", "--metadata", "{\"project_id\":\"calc\",\"speckit_mode\":false}"] },
  { command: "list-sessions", form: "[limit]", source: ".claude/claude.md", bazinga: "accepts", args: ["--quiet", "list-sessions", "1"] },
  { command: "list-sessions", form: "(no limit)", source: "bazinga-db-core/SKILL.md", bazinga: "accepts", args: ["list-sessions"] },
  { command: "get-session", form: "<session>", source: "bazinga-db-core/SKILL.md", bazinga: "accepts", args: ["get-session", "{S}"] },
  { command: "save-state", form: "<session> <state_type> <json>", source: "bazinga-db-core/SKILL.md", bazinga: "accepts", args: ["save-state", "{S}", "orchestrator", "{\"speckit_mode\":false,\"phase\":\"init\"}"] },
  { command: "log-interaction", form: "<session> <agent_type> <message> <iteration>", source: "bazinga-db-agents/SKILL.md", bazinga: "accepts", args: ["log-interaction", "{S}", "orchestrator", "Spawning the project manager", "1"] },
  { command: "log-interaction", form: "<session> <agent_type> <message> <iteration> <agent_id>", source: "bazinga_db.py help", bazinga: "accepts", args: ["log-interaction", "{S}", "project_manager", "Planning: 2 groups, parallel mode", "2", "project_manager_1"] },
  { command: "save-success-criteria", form: "<session> <json> with extra fields (priority)", source: "bazinga-db-workflow/SKILL.md", bazinga: "accepts", args: ["save-success-criteria", "{S}", "[{\"criterion\":\"All tests pass\",\"status\":\"pending\",\"priority\":2},{\"criterion\":\"Code review approved\",\"status\":\"pending\",\"priority\":1,\"owner\":\"tech_lead\"}]"] },
  { command: "get-success-criteria", form: "<session>", source: ".claude/claude.md", bazinga: "accepts", args: ["get-success-criteria", "{S}"] },
  { command: "save-development-plan", form: "<session> <prompt> <plan> <phases_json> <current> <total> [metadata_json]", source: "bazinga_db.py help", bazinga: "accepts", args: ["save-development-plan", "{S}", "Build a calculator with a UI", "Core, then UI", "[{\"phase\":1,\"name\":\"Core\",\"status\":\"pending\"},{\"phase\":2,\"name\":\"UI\",\"status\":\"pending\"}]", "1", "2", "{\"estimated_groups\":2}"] },
  { command: "save-development-plan", form: "<session> <json_plan> (two arguments)", source: "bazinga-db-workflow/SKILL.md", bazinga: "list index out of range", args: ["save-development-plan", "{S}", "{\"phases\":[{\"name\":\"Core\"}],\"estimated_groups\":2}"] },
  { command: "get-development-plan", form: "<session>", source: "bazinga-db-workflow/SKILL.md", bazinga: "accepts", args: ["get-development-plan", "{S}"] },
  { command: "create-task-group", form: "<group> <session> <name> --specializations --item_count --initial_tier --component-path --complexity --security_sensitive", source: "bazinga-db-workflow/SKILL.md", bazinga: "accepts", args: ["create-task-group", "CALC", "{S}", "Calculator core", "--specializations", "[\"01-languages/python.md\"]", "--item_count", "3", "--initial_tier", "Developer", "--component-path", "src/calc", "--complexity", "5", "--security_sensitive", "0"] },
  { command: "create-task-group", form: "<group> <session> <name> [status] [assigned_to]", source: "bazinga_db.py help", bazinga: "accepts", args: ["create-task-group", "UI", "{S}", "Calculator UI", "pending", "developer_2"] },
  { command: "get-task-groups", form: "<session>", source: ".claude/claude.md", bazinga: "accepts", args: ["get-task-groups", "{S}"] },
  { command: "get-task-groups", form: "<session> [status]", source: "bazinga-db-workflow/SKILL.md", bazinga: "accepts", args: ["get-task-groups", "{S}", "pending"] },
  { command: "save-reasoning", form: "<session> <group> <agent_type> <phase> <content> --confidence N", source: "bazinga-db-agents/SKILL.md", bazinga: "Invalid confidence: 85. Must be one of: ['high', 'low', 'medium']", args: ["save-reasoning", "{S}", "global", "project_manager", "understanding", "Two independent groups", "--confidence", "85"] },
  { command: "save-reasoning", form: "... <content> --tokens N", source: "bazinga-db-agents/SKILL.md", bazinga: "Unknown flag '--tokens'. Valid flags: ['--agent_id', '--confidence', '--content-file', '--iteration', '--references']", args: ["save-reasoning", "{S}", "global", "project_manager", "completion", "Planned", "--tokens", "120"] },
  { command: "log-tokens", form: "<session> <agent_type> <tokens> [agent_id]", source: "bazinga-db-agents/SKILL.md", bazinga: "accepts", args: ["log-tokens", "{S}", "project_manager", "5200", "project_manager_1"] },
  { command: "token-summary", form: "<session> [by]", source: "bazinga-db-agents/SKILL.md", bazinga: "accepts", args: ["token-summary", "{S}"] },
  { command: "update-task-group", form: "<group> <session> --status S --assigned_to A", source: "bazinga-db-workflow/SKILL.md", bazinga: "accepts", args: ["update-task-group", "CALC", "{S}", "--status", "in_progress", "--assigned_to", "developer_1"] },
  { command: "update-task-group", form: "<group> <session> --status S", source: "bazinga-db-workflow/SKILL.md", bazinga: "accepts", args: ["update-task-group", "UI", "{S}", "--status", "in_progress"] },
  { command: "save-skill-output", form: "<session> <skill> <json> (group and agent inside the JSON)", source: "specialization-loader/SKILL.md", bazinga: "accepts", args: ["save-skill-output", "{S}", "specialization-loader", "{\"group_id\":\"CALC\",\"agent_type\":\"developer\",\"templates_used\":[\"python.md\"],\"token_count\":450}"] },
  { command: "save-skill-output", form: "<session> <skill> <json> --agent A", source: "pattern-miner/scripts/mine.sh", bazinga: "accepts", args: ["save-skill-output", "{S}", "pattern-miner", "{\"status\":\"complete\",\"output_file\":\"bazinga/patterns.json\"}", "--agent", "developer"] },
  { command: "save-skill-output", form: "<session> <skill> <json> --agent A --group G", source: "bazinga_db.py help", bazinga: "accepts", args: ["save-skill-output", "{S}", "lint-check", "{\"tool\":\"ruff\",\"results\":[]}", "--agent", "developer", "--group", "CALC"] },
  { command: "save-skill-output", form: "<session> <group> <skill> <json> (four arguments)", source: "bazinga-db-agents/SKILL.md", bazinga: "Invalid JSON in output_data (the group id is read as the skill name, the skill name as the JSON)", args: ["save-skill-output", "{S}", "CALC", "specialization-loader", "{\"templates_used\":[\"python.md\"]}"] },
  { command: "get-skill-output", form: "<session> <skill>", source: ".claude/claude.md", bazinga: "accepts", args: ["get-skill-output", "{S}", "specialization-loader"] },
  { command: "get-skill-output", form: "<session> <skill> --agent A", source: "bazinga_db.py help", bazinga: "accepts", args: ["get-skill-output", "{S}", "lint-check", "--agent", "developer"] },
  { command: "get-skill-output-all", form: "<session> <skill>", source: "bazinga-db-agents/SKILL.md", bazinga: "accepts", args: ["get-skill-output-all", "{S}", "specialization-loader"] },
  { command: "check-skill-evidence", form: "<session> <skills> --agent A --since N", source: "bazinga_db.py help", bazinga: "accepts", args: ["check-skill-evidence", "{S}", "lint-check", "--agent", "developer", "--since", "30"] },
  { command: "check-skill-evidence", form: "<session> <skill> --within-minutes N", source: "bazinga-db-agents/SKILL.md", bazinga: "accepts", args: ["check-skill-evidence", "{S}", "lint-check", "--within-minutes", "30"] },
  { command: "save-reasoning", form: "<session> <group> <agent_type> <phase> --content-file F --confidence high|medium|low", source: "bazinga-db-agents/SKILL.md", bazinga: "accepts", args: ["save-reasoning", "{S}", "CALC", "developer", "understanding", "--content-file", "{FILE:reasoning.txt}", "--confidence", "medium"] },
  { command: "save-reasoning", form: "<session> <group> <agent_type> <phase> --content-file F --confidence N", source: "bazinga-db-agents/SKILL.md", bazinga: "Invalid confidence: 85. Must be one of: ['high', 'low', 'medium']", args: ["save-reasoning", "{S}", "CALC", "developer", "understanding", "--content-file", "{FILE:reasoning.txt}", "--confidence", "85"] },
  { command: "save-reasoning", form: "<session> <group> <agent_type> <phase> <content> --agent_id --iteration --confidence --references", source: "bazinga_db.py help", bazinga: "accepts", args: ["save-reasoning", "{S}", "CALC", "developer", "completion", "Done: 12 tests pass", "--agent_id", "developer_1", "--iteration", "1", "--confidence", "high", "--references", "[\"src/calc.py\"]"] },
  { command: "check-mandatory-phases", form: "<session> <group> <agent_type>", source: ".claude/claude.md", bazinga: "accepts", args: ["check-mandatory-phases", "{S}", "CALC", "developer"] },
  { command: "save-context-package", form: "<session> <group> <type> <file> <producer> <consumers_json> <priority> <summary>", source: "bazinga-db-context/SKILL.md", bazinga: "accepts", capture: "PKG", args: ["save-context-package", "{S}", "CALC", "research", "bazinga/artifacts/{S}/calc-research.md", "requirements_engineer", "[\"developer\",\"qa_expert\"]", "high", "Division by zero must raise"] },
  { command: "get-context-packages", form: "<session> <group> <agent_type> <limit>", source: "context-assembler/SKILL.md", bazinga: "accepts", args: ["get-context-packages", "{S}", "CALC", "developer", "3"] },
  { command: "get-context-packages", form: "<session> \"\" <agent_type> <limit> (empty group)", source: "context-assembler/SKILL.md", bazinga: "group_id cannot be empty", args: ["get-context-packages", "{S}", "", "tech_lead", "5"] },
  { command: "get-context-packages", form: "<session> <group> <agent_type> --include-consumed", source: "bazinga-db-context/SKILL.md", bazinga: "invalid literal for int() with base 10: '--include-consumed'", args: ["get-context-packages", "{S}", "CALC", "developer", "--include-consumed"] },
  { command: "mark-context-consumed", form: "<package_id> <agent_type> <iteration>", source: "context-assembler/SKILL.md", bazinga: "accepts", args: ["mark-context-consumed", "{PKG}", "developer", "1"] },
  { command: "mark-context-consumed", form: "<package_id> <agent_type>", source: "bazinga-db-context/SKILL.md", bazinga: "accepts", args: ["mark-context-consumed", "{PKG}", "qa_expert"] },
  { command: "update-context-references", form: "<group> <session> <ids_json>", source: "bazinga_db.py help", bazinga: "accepts", args: ["update-context-references", "CALC", "{S}", "[{PKG}]"] },
  { command: "update-context-references", form: "<session> <group> <ids_json> (skill's order)", source: "bazinga-db-context/SKILL.md", bazinga: "accepts", args: ["update-context-references", "{S}", "CALC", "[{PKG}]"] },
  { command: "stream-logs", form: "<session> [limit] [offset]", source: "bazinga-db-agents/SKILL.md", bazinga: "accepts", args: ["stream-logs", "{S}", "10", "0"] },
  { command: "save-event", form: "<session> <subtype> --payload-file F --idempotency-key K --group-id G", source: "bazinga-db-agents/SKILL.md", bazinga: "accepts", args: ["save-event", "{S}", "tl_issues", "--payload-file", "{FILE:tl_issues.json}", "--idempotency-key", "{S}|CALC|tl_issues|1", "--group-id", "CALC"] },
  { command: "save-event", form: "<session> <subtype> <json>", source: "bazinga-validator/SKILL.md", bazinga: "accepts", args: ["save-event", "{S}", "tl_issue_responses", "{\"group_id\":\"CALC\",\"iteration\":1,\"responses\":[{\"issue_id\":\"TL-1\",\"action\":\"FIXED\"}]}"] },
  { command: "get-events", form: "<session> <subtype>", source: "bazinga-validator/SKILL.md", bazinga: "accepts", args: ["get-events", "{S}", "tl_issues"] },
  { command: "save-investigation-iteration", form: "<session> <group> <iteration> <status> --state-file F --event-file F", source: "bazinga-db-agents/SKILL.md", bazinga: "accepts", args: ["save-investigation-iteration", "{S}", "CALC", "1", "root_cause_found", "--state-file", "{FILE:inv_state.json}", "--event-file", "{FILE:inv_event.json}"] },
  { command: "update-task-group", form: "<group> <session> --status S --last_review_status --qa_attempts --tl_review_attempts --review_iteration", source: "bazinga-db-workflow/SKILL.md", bazinga: "accepts", args: ["update-task-group", "CALC", "{S}", "--status", "approved_pending_merge", "--last_review_status", "APPROVED", "--qa_attempts", "1", "--tl_review_attempts", "1", "--review_iteration", "1"] },
  { command: "update-task-group", form: "<group> <session> --status completed", source: "bazinga-db-workflow/SKILL.md", bazinga: "accepts", args: ["update-task-group", "CALC", "{S}", "--status", "completed"] },
  { command: "update-task-group", form: "<group> <session> --last_review_status <any word> --speckit_task_ids JSON", source: "bazinga_db.py (v19 flags; the review status is not checked)", bazinga: "accepts", args: ["update-task-group", "UI", "{S}", "--last_review_status", "NEEDS_WORK", "--speckit_task_ids", "[\"T001\",\"T002\"]"] },
  { command: "update-task-group", form: "<group> <session> --status failed", source: "bazinga-db-workflow/SKILL.md", bazinga: "accepts", args: ["update-task-group", "UI", "{S}", "--status", "failed"] },
  { command: "update-success-criterion", form: "<session> <criterion> --status --actual --evidence", source: "bazinga_db.py help", bazinga: "accepts", args: ["update-success-criterion", "{S}", "All tests pass", "--status", "met", "--actual", "12/12 passing", "--evidence", "bazinga/artifacts/test-results.txt"] },
  { command: "update-success-criterion", form: "<session> <criterion> <status> [notes] (positional)", source: "bazinga-db-workflow/SKILL.md", bazinga: "BazingaDB.update_success_criterion() got an unexpected keyword argument 'met'", args: ["update-success-criterion", "{S}", "Code review approved", "met", "Approved by tech lead"] },
  { command: "update-plan-progress", form: "<session> <phase> <status> [percent]", source: "bazinga-db-workflow/SKILL.md", bazinga: "accepts", args: ["update-plan-progress", "{S}", "1", "completed", "100"] },
  { command: "save-event", form: "<session> pm_bazinga <json>", source: "bazinga-validator/SKILL.md", bazinga: "accepts", args: ["save-event", "{S}", "pm_bazinga", "{\"summary\":\"All criteria met\",\"iteration\":6}"] },
  { command: "get-events", form: "<session> <subtype> <limit>", source: "bazinga-validator/SKILL.md", bazinga: "accepts", args: ["get-events", "{S}", "pm_bazinga", "1"] },
  { command: "save-event", form: "<session> validator_verdict <json>", source: "bazinga-validator/SKILL.md", bazinga: "accepts", args: ["save-event", "{S}", "validator_verdict", "{\"verdict\":\"ACCEPT\",\"reason\":\"all met\",\"scope_check\":\"pass\"}"] },
  { command: "get-reasoning", form: "<session> --group_id G", source: "context-assembler/SKILL.md", bazinga: "accepts", args: ["get-reasoning", "{S}", "--group_id", "CALC"] },
  { command: "get-reasoning", form: "<session> [group] [agent_type] [phase] (positional)", source: "bazinga-db-agents/SKILL.md", bazinga: "Usage: get-reasoning <session_id> [--group_id X] [--agent_type X] [--phase X] [--limit N] [--format json|prompt-summary]", args: ["get-reasoning", "{S}", "CALC", "developer"] },
  { command: "reasoning-timeline", form: "<session> --format markdown", source: ".claude/claude.md", bazinga: "accepts", args: ["reasoning-timeline", "{S}", "--format", "markdown"] },
  { command: "reasoning-timeline", form: "<session> --group_id G --format json", source: "bazinga-db-agents/SKILL.md", bazinga: "accepts", args: ["reasoning-timeline", "{S}", "--group_id", "CALC", "--format", "json"] },
  { command: "update-session-status", form: "<session> <status>", source: "bazinga-db-core/SKILL.md", bazinga: "accepts", args: ["update-session-status", "{S}", "completed"] },
  { command: "dashboard-snapshot", form: "<session>", source: ".claude/claude.md", bazinga: "accepts", args: ["dashboard-snapshot", "{S}"] },
  { command: "query", form: "SELECT \u2026 (any read)", source: "bazinga-db-core/SKILL.md", bazinga: "accepts", args: ["--quiet", "query", "SELECT COUNT(*) FROM sessions WHERE status='completed'"] },
  { command: "integrity-check", form: "(none)", source: "bazinga-db-core/SKILL.md", bazinga: "accepts", args: ["integrity-check"] },
];

/** BAZINGA's form as it would appear in a prompt: placeholders filled, quoted where the shell needs it. */
export function exampleLine(form: BazingaForm): string {
  const quote = (a: string) => (/^[\w./:{}@,=-]+$/.test(a) ? a : `'${a.replaceAll("'", "'\\''")}'`);
  return ["proofgate", ...form.args.map((a) => quote(a.replace("{S}", "bazinga_20260112_143022").replace("{S2}", "bazinga_20260112_090000").replace(/\{FILE:([^}]+)\}/, "/tmp/$1")))].join(" ");
}

/** BAZINGA's context-engineering commands (error patterns, strategies, consumption scope), in the run's order. */
export const CONTEXT_ENGINEERING_FORMS: readonly BazingaForm[] = [
  { command: "save-consumption", form: "<session> <group> <agent_type> <iteration> <package_id>", source: "bazinga_db.py help", bazinga: "accepts", args: ["save-consumption", "{S}", "CALC", "developer", "1", "{PKG}"] },
  { command: "save-consumption", form: "<session> <agent_type> <resource_type> <resource_id> [tokens]", source: "bazinga-db-context/SKILL.md", bazinga: "accepts", args: ["save-consumption", "{S}", "developer", "context_package", "{PKG}", "450"] },
  { command: "get-consumption", form: "<session> --group_id G --agent_type A --limit N", source: "bazinga_db.py help", bazinga: "accepts", args: ["get-consumption", "{S}", "--group_id", "CALC", "--agent_type", "developer", "--limit", "10"] },
  { command: "get-consumption", form: "<session> [agent_type] [resource_type]", source: "bazinga-db-context/SKILL.md", bazinga: "accepts", args: ["get-consumption", "{S}", "developer", "context_package"] },
  { command: "save-error-pattern", form: "<project> <error_type> <error_message> <solution> --lang --context_hints --stack_pattern", source: "bazinga_db.py help", bazinga: "accepts", capture: "HASH", args: ["save-error-pattern", "calc", "test", "AssertionError: 2 != 3 (token sk-abcdefghijklmnopqrstuvwxyz012345)", "Fixed off-by-one in multiply", "--lang", "python", "--context_hints", "[\"math\"]", "--stack_pattern", "[\"calc.py\"]"] },
  { command: "save-error-pattern", form: "<session> <group> <type> <signature> <resolution> --confidence N", source: "bazinga-db-context/SKILL.md", bazinga: "Unexpected argument 'Fixed off-by-one error in multiply function'", args: ["save-error-pattern", "{S}", "CALC", "test", "AssertionError: 2 != 3", "Fixed off-by-one error in multiply function", "--confidence", "90"] },
  { command: "get-error-patterns", form: "<project> --lang --min_confidence --limit", source: "bazinga_db.py help", bazinga: "accepts", args: ["get-error-patterns", "calc", "--lang", "python", "--min_confidence", "0.3", "--limit", "5"] },
  { command: "get-error-patterns", form: "--error-type T --min-confidence N --limit N (no project)", source: "bazinga-db-context/SKILL.md", bazinga: "Unexpected argument 'test'", args: ["get-error-patterns", "--error-type", "test", "--min-confidence", "50", "--limit", "5"] },
  { command: "update-error-confidence", form: "<pattern_hash> <project> success|failure", source: "bazinga_db.py help", bazinga: "accepts", args: ["update-error-confidence", "{HASH}", "calc", "success"] },
  { command: "update-error-confidence", form: "<pattern_id> <adjustment>", source: "bazinga-db-context/SKILL.md", bazinga: "update-error-confidence requires 3 args: <pattern_hash> <project_id> <success|failure>", args: ["update-error-confidence", "{HASH}", "0.1"] },
  { command: "query", form: "SELECT \u2026 FROM error_patterns (context-assembler)", source: "context-assembler/SKILL.md", bazinga: "accepts", args: ["--quiet", "query", "SELECT signature_json, solution, confidence, occurrences FROM error_patterns WHERE project_id = 'calc' AND confidence > 0.5 ORDER BY confidence DESC, occurrences DESC LIMIT 3"] },
  { command: "query", form: "project id from session metadata (context-assembler)", source: "context-assembler/SKILL.md", bazinga: "accepts", proofgate: { exit: 2, note: "refuses: Proofgate's sessions table names its key `id`, not `session_id` (no such column); the context assembler then falls back to project 'default'" }, args: ["--quiet", "query", "SELECT COALESCE(json_extract(metadata, '$.project_id'), 'default') as pid FROM sessions WHERE session_id = '{S}'"] },
  { command: "save-strategy", form: "<project> <topic> <insight> --lang --framework --strategy_id", source: "bazinga_db.py help", bazinga: "accepts", args: ["save-strategy", "calc", "implementation", "Write the failing test first", "--lang", "python", "--framework", "pytest", "--strategy_id", "strat_tdd"] },
  { command: "save-strategy", form: "<session> <group> <type> <description> <outcome> --confidence N", source: "bazinga-db-context/SKILL.md", bazinga: "accepts", args: ["save-strategy", "{S}", "CALC", "implementation", "TDD for arithmetic", "success", "--confidence", "80"] },
  { command: "get-strategies", form: "<project> --lang --framework --topic --limit", source: "bazinga_db.py help", bazinga: "accepts", args: ["get-strategies", "calc", "--topic", "implementation", "--limit", "5"] },
  { command: "get-strategies", form: "--strategy-type T --min-confidence N --limit N", source: "bazinga-db-context/SKILL.md", bazinga: "accepts", args: ["get-strategies", "--strategy-type", "implementation", "--min-confidence", "50", "--limit", "5"] },
  { command: "update-strategy-helpfulness", form: "<strategy_id> [increment]", source: "bazinga-db-context/SKILL.md", bazinga: "accepts", args: ["update-strategy-helpfulness", "strat_tdd"] },
  { command: "extract-strategies", form: "<session> <group> <project> --lang --framework", source: "bazinga_db.py help", bazinga: "Failed to extract strategies: no such table: agent_reasoning", proofgate: { exit: 0, note: "accepts (exit 0): bazinga_db.py v19 reads a table its own schema no longer has (agent_reasoning); Proofgate extracts from the reasoning log" }, args: ["extract-strategies", "{S}", "CALC", "calc", "--lang", "python", "--framework", "pytest"] },
  { command: "extract-strategies", form: "<session> --min-confidence N", source: "bazinga-db-context/SKILL.md", bazinga: "Failed to extract strategies: no such table: agent_reasoning", proofgate: { exit: 0, note: "accepts, parsed as bazinga_db.py parses it (group '--min-confidence', project '50'): no reasoning there, nothing extracted" }, args: ["extract-strategies", "{S}", "--min-confidence", "50"] },
  { command: "query", form: "SELECT \u2026 FROM strategies", source: "bazinga-db/references/schema.md", bazinga: "accepts", args: ["query", "SELECT strategy_id, topic, insight, helpfulness FROM strategies WHERE project_id = 'calc' ORDER BY helpfulness DESC"] },
  { command: "cleanup-error-patterns", form: "[project]", source: "bazinga_db.py help", bazinga: "accepts", args: ["cleanup-error-patterns", "calc"] },
];

/** The exit code Proofgate gives a form: 0 where bazinga_db.py accepts it, 2 where it refuses, unless noted. */
export function expectedExit(form: BazingaForm): 0 | 2 {
  return form.proofgate?.exit ?? (form.bazinga === "accepts" ? 0 : 2);
}

/** Every form, in the order a run makes them: context engineering happens after the tech lead's review. */
export const ALL_FORMS: readonly BazingaForm[] = (() => {
  const at = CORE_FORMS.findIndex((f) => f.command === "update-success-criterion");
  return [...CORE_FORMS.slice(0, at), ...CONTEXT_ENGINEERING_FORMS, ...CORE_FORMS.slice(at)];
})();
