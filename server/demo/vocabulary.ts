/** Words the demo generator draws from, so generated sessions read like real orchestration runs. */
export const REQUIREMENTS = [
  "Add JWT authentication with refresh tokens to the API",
  "Migrate the billing service from REST polling to webhooks",
  "Build a CSV import for customer records with validation report",
  "Fix flaky integration tests in the payments module",
  "Add dark mode and keyboard navigation to the settings page",
  "Replace the hand-written SQL in reports with the query builder",
  "Implement rate limiting for the public search endpoint",
  "Port the notification worker from Python to TypeScript",
  "Add OpenTelemetry tracing to the order pipeline",
  "Build a churn prediction model with at least 80% accuracy",
  "Upgrade the monorepo from Node 18 to Node 20 and fix breakages",
  "Add per-tenant feature flags with an admin UI",
];

export const TASK_TITLES = [
  "Database schema and migrations",
  "API endpoints",
  "Input validation",
  "Unit tests",
  "Integration tests",
  "Error handling and retries",
  "Admin UI",
  "Documentation",
  "Performance tuning",
  "Security review fixes",
  "Logging and metrics",
  "Feature flag wiring",
  "Data backfill script",
  "CI pipeline changes",
];

export const CRITERIA = [
  "All tests passing",
  "Coverage >70%",
  "No security vulnerabilities (high or critical)",
  "API p95 latency under 200 ms",
  "Lint and type checks clean",
  "Migration runs on a copy of production data",
  "Documentation updated",
  "No regressions in the e2e suite",
  "Feature works behind a flag",
  "cv_accuracy_mean >= 0.80",
];

export const EXTERNAL_BLOCKERS = [
  "https://status.sendgrid.com - service outage, email tests cannot run",
  "Staging database credentials not yet issued by the platform team (ticket OPS-412)",
  "Third-party sandbox API rate-limited until tomorrow 09:00 UTC",
];

export const FAILURES = [
  "component_tests - 3 tests failing",
  "browser_screenshot - screenshot missing",
  "visual_review - /visual-review not run",
  "coverage - 58% is below the 70% threshold",
  "lint - 12 errors in src/api",
  "migration - fails on a table with existing rows",
  "security_scan - 1 high severity finding (SQL injection in search)",
  "e2e - checkout flow times out",
];

export const CHECKS = ["unit_tests", "integration_tests", "lint", "typecheck", "coverage", "security_scan", "e2e", "build"];

export const DEVELOPERS = ["developer_1", "developer_2", "developer_3", "senior_software_engineer_1"];
export const VERIFIERS = ["qa_expert_1", "tech_lead_1", "verifier_1"];
export const MODELS = ["claude-sonnet-4.5", "claude-opus-4.1", "claude-haiku-4.5", "gpt-5", "gemini-2.5-pro"];
export const AGENT_TYPES = ["pm", "developer", "qa_expert", "tech_lead", "orchestrator", "investigator", "senior_software_engineer"];

export const INTERACTIONS = [
  "Implemented the endpoint and added request validation; tests added for the happy path and two error cases.",
  "Ran the test suite: 142 passed, 0 failed. Coverage 74.2%.",
  "Reviewed the change set. Two comments: missing index on the lookup column, and an unhandled promise in the retry loop.",
  "Spawning developer for group {group} with the research context package.",
  "QA found 3 failing component tests; sending back to development.",
  "Merged feature branch into {branch} after rebasing on the latest main.",
  "Planning: split the work into {n} task groups, parallel mode.",
  "Investigated the flaky test: it depends on wall-clock time; replaced with a fake clock.",
  "Configured the client with api_key=sk-demo{secret} for the sandbox run.",
];

export const REASONING = [
  "The requirement implies refresh-token rotation; the existing session table can hold the token family id.",
  "Two approaches: extend the current middleware, or add a gateway layer. The middleware is smaller and testable.",
  "Risk: the migration locks the orders table. Mitigation: batch the backfill in 5k-row chunks.",
  "Blocked on staging credentials; continuing with the parts that do not need them.",
  "Pivot: the first model family plateaued at 0.76; trying gradient boosting with tenure features.",
  "Completion: all acceptance checks pass locally and in CI; evidence attached in the proofpack.",
  "Decided to keep the public API unchanged and add the new fields as optional.",
];

export const TOOL_NAMES = ["list_directory", "read_file", "write_file", "run_command", "search_code", "bazel_query", "apply_patch"];

export const GOAL_TEXTS = [
  "Migrate the build from Make to Bazel",
  "Make the test suite pass under Node 20",
  "Reach >= 0.80 cross-validated accuracy on the churn dataset",
  "Remove the deprecated payment client",
  "Split the monolith's auth module into its own package",
];

export const SUBGOAL_TEXTS = [
  "Add BUILD files for the core library",
  "Port the code generator step",
  "Fix the three tests that depend on the old runtime",
  "Update the CI image",
  "Add a baseline model and record its accuracy",
  "Engineer tenure and usage features",
];
