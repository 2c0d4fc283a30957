/**
 * Property-based hostile arguments for every command of every group (COMMAND_GROUPS, so a new
 * command must be given a valid call here), run in-process through `main` on a seeded ledger, a
 * SQLite file and a PostgreSQL database (where the SQLite-only commands are refused): one argument of a valid call is replaced by megabytes of text, NUL, a lone surrogate,
 * SQL, a negative or enormous number, an unknown enum value, malformed or deeply nested JSON; or
 * an argument is dropped, or an extra one or an unknown flag added.
 *
 * Never an unexpected failure (exit 4, or a throw out of `main`); a refused call (exit ≠ 0)
 * writes no row of any table; text no argument may hold (NUL, lone surrogates, nesting deeper
 * than the limit) exits 2 with a message naming the argument.
 */
import fc from "fast-check";
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { type Db, closeLedger, openLedger } from "@/db/client";
import { callerFor } from "@/test/support/api-helpers";
import { CONTRACT } from "@/test/support/procedure-inputs";
import { operatorActor } from "@/server/domain/actors";
import { COMMAND_GROUPS } from "./index";
import { type Ledger, cli, ledgerWorkspace, removeWorkspaces, workspace } from "@/test/support/cli-harness";
import { describeSharedPath } from "@/test/support/engines";
import { tableCountsOf } from "@/test/support/rows";

vi.setConfig({ testTimeout: 120_000 });
afterAll(removeWorkspaces);

/** Runs per command; about 70 commands. */
const RUNS = Number(process.env.PROOFGATE_FUZZ_RUNS_CLI ?? 5);

/** A folder for the files some calls name (an import's source, a copy's target). */
const ws = workspace();
/** Stands for the seeded ledger's file or URL in a call (copy's --from). */
const LEDGER = "{LEDGER}";

/** A valid call of every top-level command against the seeded database. */
const VALID: Record<string, string[]> = {
  "create-session": ["create-session", "s2", "parallel", "req", "--metadata", '{"a":1}'],
  "get-session": ["get-session", "s"],
  "list-sessions": ["list-sessions", "5"],
  "update-session-status": ["update-session-status", "s", "active"],
  "log-interaction": ["log-interaction", "s", "developer", "hello", "1", "dev_1"],
  "stream-logs": ["stream-logs", "s", "10", "0"],
  "log-tokens": ["log-tokens", "s", "developer", "100", "dev_1"],
  "token-summary": ["token-summary", "s", "agent_type"],
  "save-state": ["save-state", "s", "pm", '{"a":1}'],
  "get-state": ["get-state", "s", "pm"],
  "save-skill-output": ["save-skill-output", "s", "lint", '{"ok":true}'],
  "get-skill-output": ["get-skill-output", "s", "lint"],
  "get-skill-output-all": ["get-skill-output-all", "s", "lint"],
  "check-skill-evidence": ["check-skill-evidence", "s", "lint,security-scan", "--since", "30"],
  "save-development-plan": ["save-development-plan", "s", "prompt", "plan", '[{"phase":1,"name":"n"}]', "1", "1"],
  "get-development-plan": ["get-development-plan", "s"],
  "update-plan-progress": ["update-plan-progress", "s", "1", "completed"],
  "create-task-group": ["create-task-group", "B", "s", "Group B", "pending", "dev_1"],
  "update-task-group": ["update-task-group", "A", "s", "--status", "in_progress"],
  "get-task": ["get-task", "s", "A"],
  "get-task-groups": ["get-task-groups", "s", "pending"],
  start: ["start", "s", "A"],
  claim: ["claim", "s", "A", "--evidence", '["out.txt"]'],
  verify: ["verify", "s", "A", "--check", "tests=pass"],
  block: ["block", "s", "A", "--failures", '["x"]'],
  complete: ["complete", "s", "A"],
  "request-reset": ["request-reset", "s", "A", "--reason", "r"],
  "approve-reset": ["approve-reset", "s", "A", "--reason", "r"],
  "decline-reset": ["decline-reset", "s", "A", "--reason", "r"],
  "save-success-criteria": ["save-success-criteria", "s", '["Tests pass"]'],
  "get-success-criteria": ["get-success-criteria", "s"],
  "update-success-criterion": ["update-success-criterion", "s", "Tests pass", "--status", "met"],
  "verify-success-criterion": ["verify-success-criterion", "s", "Tests pass", "--status", "met"],
  "check-completion": ["check-completion", "s"],
  "create-goal": ["create-goal", "s", "a goal"],
  "add-validation-step": ["add-validation-step", "1", "npm test"],
  "set-goal-contract": ["set-goal-contract", "1", JSON.stringify(CONTRACT)],
  "create-branch": ["create-branch", "s", "feature/x"],
  "create-worktree": ["create-worktree", "1", "/tmp/wt-x"],
  "start-attempt": ["start-attempt", "1"],
  "record-tool-calls": ["record-tool-calls", "2", '[{"tool":"bash","input":{"command":"ls"},"output":"a"}]'],
  "finish-attempt": ["finish-attempt", "2", "success", "--metrics", '{"cv_accuracy_mean":0.8}'],
  "record-validation-run": ["record-validation-run", "1", "1", "0"],
  "record-trust-score": ["record-trust-score", "1", "90"],
  "record-merge": ["record-merge", "2", "1", "--from-commit", "abcdef1", "--to-commit", "abcdef2", "--result-commit", "abcdef3"],
  "evaluate-goal": ["evaluate-goal", "1", "1"],
  "get-goal-tree": ["get-goal-tree", "s"],
  "get-goal": ["get-goal", "1"],
  "get-attempt": ["get-attempt", "1"],
  "save-reasoning": ["save-reasoning", "s", "A", "developer", "understanding", "thinking"],
  "get-reasoning": ["get-reasoning", "s"],
  "reasoning-timeline": ["reasoning-timeline", "s"],
  "check-mandatory-phases": ["check-mandatory-phases", "s", "A", "developer"],
  "save-event": ["save-event", "s", "pm_bazinga", '{"a":1}'],
  "save-investigation-iteration": ["save-investigation-iteration", "s", "A", "1", "under_investigation"],
  "get-events": ["get-events", "s", "pm_bazinga", "5"],
  events: ["events", "--session", "s", "--since", "0"],
  "save-context-package": ["save-context-package", "s", "A", "research", "f.md", "pm", '["developer"]', "high", "summary"],
  "get-context-packages": ["get-context-packages", "s", "A", "developer", "3"],
  "mark-context-consumed": ["mark-context-consumed", "1", "developer"],
  "update-context-references": ["update-context-references", "A", "s", "[1]"],
  "save-error-pattern": ["save-error-pattern", "p", "TypeError", "x is undefined", "define x", "--lang", "python", "--context_hints", '["h"]'],
  "get-error-patterns": ["get-error-patterns", "p", "--min_confidence", "0.5", "--limit", "5"],
  "update-error-confidence": ["update-error-confidence", "h", "p", "success"],
  "cleanup-error-patterns": ["cleanup-error-patterns", "p"],
  "save-consumption": ["save-consumption", "s", "A", "developer", "1", "1"],
  "get-consumption": ["get-consumption", "s", "--group_id", "A", "--limit", "10"],
  "save-strategy": ["save-strategy", "p", "implementation", "test first", "--lang", "python", "--strategy_id", "st1"],
  "get-strategies": ["get-strategies", "p", "--topic", "implementation"],
  "update-strategy-helpfulness": ["update-strategy-helpfulness", "st1", "2"],
  "extract-strategies": ["extract-strategies", "s", "A", "p"],
  query: ["query", "SELECT count(*) AS n FROM sessions"],
  "integrity-check": ["integrity-check"],
  "dashboard-snapshot": ["dashboard-snapshot", "s"],
  user: ["user", "create", "--email", "u@example.com", "--password", "correct horse battery", "--role", "lead"],
  token: ["token", "create", "--name", "bot", "--role", "agent"],
  webhook: ["webhook", "add", "https://hooks.example.com/pg", "--events", "task.blocked,session.failed", "--format", "slack", "--session-source", "api"],
  import: ["import", "bazinga", `${ws.dir}/no-such-bazinga.db`],
  check: ["check", "--limit", "5"],
  purge: ["purge", "--before", "2020-01-01", "--dry-run", "--reason", "retention"],
  // A dry run (the flag first, so no dropped value can take it as a file name): reads the seeded file, creates and writes nothing.
  copy: ["copy", "--dry-run", "--from", LEDGER, "--to", `${ws.dir}/copy-target.db`],
  // Prints the block (writes no file); the global --db the harness appends picks local mode.
  init: ["init", "mcp", "--agent-id", "dev_1"],
  hook: ["hook", "claude-code", "--max-blocks", "3"],
  mcp: ["mcp"],
};

/**
 * Commands whose input is not their arguments. `mcp` serves the MCP protocol on stdin until its
 * client closes it, and takes no argument besides the global mode flags; its tools' arguments are
 * refused in server/mcp/stdio.test.ts. `hook` reads Claude Code's JSON on stdin and answers by
 * Claude Code's exit-code contract, where 2 means "block" (so a bad flag exits 1); its hostile input
 * (malformed JSON, wrong field types, a bad flag) is tested in hook.test.ts.
 */
const NOT_ARGUMENT_DRIVEN: ReadonlySet<string> = new Set(["mcp", "hook"]);

/** Commands whose exit 1 is a gate's recorded verdict, not a refusal. */
const VERDICTS: ReadonlySet<string> = new Set(["check-completion", "evaluate-goal", "update-session-status"]);

type Category = "huge" | "nul" | "surrogate" | "deep_json" | "bad_json" | "sql" | "number" | "enum" | "flag_like";
/** No argument accepts these (an import's file path may: a lone surrogate is just a file that is not there). */
const ALWAYS_REFUSED: ReadonlySet<Category> = new Set(["nul", "surrogate"]);
const DEEP_JSON = `{"a":${"[".repeat(5_000)}${"]".repeat(5_000)}}`;
const HUGE = "x".repeat(2_100_000);

const hostileArg: fc.Arbitrary<{ category: Category; value: string }> = fc.oneof(
  fc.constant({ category: "huge" as const, value: HUGE }),
  fc.string({ maxLength: 8 }).map((s) => ({ category: "nul" as const, value: `${s}\u0000${s}` })),
  fc.constantFrom("\uD800", "a\uDFFFb").map((value) => ({ category: "surrogate" as const, value })),
  fc.constant({ category: "deep_json" as const, value: DEEP_JSON }),
  fc.constantFrom("{", "[1,", '{"a":}', "null", "[]", "{}", '"text"', "1e999").map((value) => ({ category: "bad_json" as const, value })),
  fc.constantFrom("'; DROP TABLE sessions; --", "s' OR '1'='1", "1; DELETE FROM events", "%", "_").map((value) => ({ category: "sql" as const, value })),
  fc
    .constantFrom("-1", "0", "-0", "1.5", "1e309", "99999999999999999999", "NaN", "Infinity", "0x10", " 7", "")
    .map((value) => ({ category: "number" as const, value })),
  fc.constantFrom("not_a_known_value", "PASSED ", "Pending").map((value) => ({ category: "enum" as const, value })),
  fc.constantFrom("--", "-", "--help=x", "--json", "--quiet").map((value) => ({ category: "flag_like" as const, value })),
);

type Mutation = { kind: "replace"; index: number; category: Category; value: string } | { kind: "drop"; index: number } | { kind: "extra"; value: string };

function mutations(valid: string[]): fc.Arbitrary<Mutation> {
  // The command's words (`user create`) stay; flag names are replaced only as a whole argument.
  const first = valid[0] === "user" || valid[0] === "token" || valid[0] === "webhook" || valid[0] === "import" || valid[0] === "init" ? 2 : 1;
  const values = valid.map((arg, index) => ({ arg, index })).filter(({ arg, index }) => index >= first && !arg.startsWith("--"));
  const extra = fc.constantFrom("extra", "--bogus-flag", "--follow=no").map((value): Mutation => ({ kind: "extra", value }));
  // A command without arguments (integrity-check) can only be given extra ones.
  if (values.length === 0) return extra;
  const indexes = fc.constantFrom(...values.map(({ index }) => index));
  return fc.oneof(
    { weight: 4, arbitrary: fc.tuple(indexes, hostileArg).map(([index, h]): Mutation => ({ kind: "replace", index, category: h.category, value: h.value })) },
    { weight: 1, arbitrary: indexes.map((index): Mutation => ({ kind: "drop", index })) },
    { weight: 1, arbitrary: extra },
  );
}

function apply(valid: string[], mutation: Mutation): string[] {
  const args = [...valid];
  if (mutation.kind === "replace") args[mutation.index] = mutation.value;
  else if (mutation.kind === "drop") args.splice(mutation.index, 1);
  else args.push(mutation.value);
  return args;
}

const commands = COMMAND_GROUPS.flatMap((group) => group.commands);
const fuzzed = commands.filter((command) => !NOT_ARGUMENT_DRIVEN.has(command));

it("has a valid call for every command", () => {
  expect(Object.keys(VALID).sort()).toEqual([...commands].sort());
});

// In order, also under --sequence.shuffle: the last test reads the tally of the ones before it.
describeSharedPath(
  "every command, given hostile arguments",
  (engine) => {
    let ledger: Ledger;
    /** The seeded ledger, opened once for the counts (as an auditor would, beside the commands' own handles). */
    let reader: Db;
    const tally = { calls: 0, exits: {} as Record<string, number> };

    beforeAll(async () => {
      ledger = await ledgerWorkspace(engine);
      const db = await openLedger(ledger.target, { poolSize: 2 });
      const op = callerFor(db, operatorActor("orchestrator_1"));
      await op.session.create({ id: "s", enforcement: "observe" });
      await op.task.create({ sessionId: "s", key: "A", title: "Group A" });
      await op.criteria.save({ sessionId: "s", criteria: [{ criterion: "Tests pass" }] });
      await op.log.saveContextPackage({
        sessionId: "s",
        groupId: "A",
        packageType: "research",
        filePath: "f.md",
        producerAgent: "pm",
        consumers: ["developer"],
        summary: "s",
      });
      await op.goal.create({ sessionId: "s", goalText: "root goal" });
      await op.goal.setContract({ goalId: 1, contract: CONTRACT });
      await op.goal.addValidationStep({ goalId: 1, command: "npm test" });
      await op.goal.createBranch({ sessionId: "s", name: "main" });
      await op.goal.createBranch({ sessionId: "s", name: "feature/y", parentBranchId: 1 });
      await op.attempt.start({ goalId: 1 });
      await op.attempt.finish({ attemptId: 1, status: "success", metrics: { cv_accuracy_mean: 0.8 } });
      await op.attempt.start({ goalId: 1 });
      reader = db;
    }, 60_000);
    afterAll(async () => {
      if (reader) await closeLedger(reader);
    });

    const tableCounts = () => tableCountsOf(reader);

    it.each(fuzzed)(
      "%s never fails unexpectedly, writes nothing when it refuses, and exits 2 naming the argument for text no argument may hold",
      async (command) => {
        const valid = VALID[command]!.map((arg) => (arg === LEDGER ? ledger.target : arg));
        await fc.assert(
          fc.asyncProperty(mutations(valid), async (mutation) => {
            const args = apply(valid, mutation);
            const before = await tableCounts();
            const run = await cli([...args, ...ledger.flag]);
            tally.calls++;
            tally.exits[String(run.code)] = (tally.exits[String(run.code)] ?? 0) + 1;
            const shown = `${command} ${mutation.kind}${mutation.kind === "replace" ? ` [${mutation.index}] ${mutation.category}` : ""}: exit ${run.code}: ${run.stderr.slice(0, 300)}`;
            expect([0, 1, 2, 3], shown).toContain(run.code);
            // A gate's verdict is recorded even when it rejects (a completion check, a goal-gate evaluation).
            const recordedVerdict = run.code === 1 && VERDICTS.has(command);
            if (run.code !== 0 && !recordedVerdict) expect(await tableCounts(), `${shown} — refused but wrote rows`).toEqual(before);
            if (mutation.kind === "replace" && ALWAYS_REFUSED.has(mutation.category) && command !== "import") {
              expect(run.code, shown).toBe(2);
              // `argument 'id': …`, `--metadata: …`, `criteria_json[0].criterion: …`, or commander's
              // `… is invalid for argument 'session'` / `… for option '--status <status>'`.
              const names =
                /proofgate: (?:argument '[\w-]+'|--[\w-]+|[\w$-]+(?:\[\d+\]|\.[\w$-]+)*…?):|invalid for (?:argument '[\w-]+'|option '--[\w-]+)|unknown option '|option '--[\w-]+ <[^>]+>' argument /;
              expect(names.test(run.stderr), shown).toBe(true);
            }
          }),
          // No shrinking: each step is a whole command run, and the first counterexample already names the argument.
          { numRuns: RUNS, endOnFailure: true },
        );
      },
    );

    it("tried every command", () => {
      console.info(`hostile-args on ${engine}: ${tally.calls} calls over ${fuzzed.length} commands; exit codes ${JSON.stringify(tally.exits)}`);
      expect(tally.calls).toBeGreaterThanOrEqual(fuzzed.length * RUNS);
    });
  },
  { shuffle: false },
);
