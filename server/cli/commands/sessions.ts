import { type Command, Option } from "commander";
import { ENFORCEMENTS, SESSION_STATUSES } from "@/server/domain/vocabulary";
import type { CompletionCheckRow } from "@/server/services/completion/check";
import type { SessionRow } from "@/server/services/session/load";
import { CreateSessionInput, UpdateSessionStatusInput } from "@/server/services/session/schemas";
import { UsageError } from "../errors";
import type { Output } from "../output";
import { act, dualOption, example, int, json, oneOf, pick, read, sessionArg, snakeKeys, validate, wrote } from "./shared";

/** A session as BAZINGA's `get-session` shows it (`session_id`, `original_requirements`…), with Proofgate's columns beside. */
export function sessionView(session: SessionRow): Record<string, unknown> {
  return {
    session_id: session.id,
    ...snakeKeys(session),
    original_requirements: session.requirements,
    start_time: session.startedAt,
    end_time: session.endedAt,
  };
}

type Enforcement = (typeof ENFORCEMENTS)[number];

/** `--enforcement`, else PROOFGATE_ENFORCEMENT, else the server's default. */
function enforcementOf(flag: Enforcement | undefined): Enforcement | undefined {
  if (flag) return flag;
  const env = process.env.PROOFGATE_ENFORCEMENT?.trim();
  if (!env) return undefined;
  if (!(ENFORCEMENTS as readonly string[]).includes(env))
    throw new UsageError(`PROOFGATE_ENFORCEMENT: must be one of ${ENFORCEMENTS.join(", ")}, got "${env}"`);
  return env as Enforcement;
}

/** BAZINGA's session commands: create-session, get-session, list-sessions, update-session-status. */
export function sessionCommands(program: Command, out: Output): void {
  const create = program
    .command("create-session")
    .description("Create a session (enforce by default; --enforcement observe or PROOFGATE_ENFORCEMENT=observe records BAZINGA's statuses as reported)")
    .argument("<id>", "session id, e.g. bazinga_20250112_143022", sessionArg)
    .argument("<mode>", "execution mode: simple or parallel")
    .argument("<requirements>", "the user's original request")
    .option("--metadata <json>", "a JSON object kept with the session", json("object"))
    .option(
      "--runtime-session <runtime:id>",
      "link it to this agent runtime session (e.g. claude-code:<its session id>), for runtimes that cannot set PROOFGATE_RUNTIME_SESSION: the runtime's stops then answer to this session's gate",
    )
    .addOption(
      new Option("--enforcement <policy>", "enforce: every move is checked; observe: reported statuses are recorded and flagged").choices(ENFORCEMENTS),
    );
  dualOption(create, "initial_branch", "branch", "the base branch all work merges back to");
  example(
    create,
    'proofgate create-session bazinga_20250112_143022 parallel "Add JWT authentication" --initial_branch main',
    'PROOFGATE_ENFORCEMENT=observe proofgate create-session bazinga_20250112_143022 parallel "Add JWT authentication"',
    'proofgate create-session bazinga_20250112_143022 simple "Fix the login bug" --runtime-session claude-code:9c1f2a7e-3b4d-4e5f-8a6b-7c8d9e0f1a2b',
  ).action(
    act(out, (id: string, mode: string, requirements: string, options: Record<string, unknown>) => {
      const input = validate(
        CreateSessionInput,
        {
          id,
          mode,
          requirements,
          initialBranch: pick<string>(options, "initial_branch"),
          metadata: options.metadata as Record<string, unknown> | undefined,
          enforcement: enforcementOf(options.enforcement as Enforcement | undefined),
          runtimeSession: options.runtimeSession as string | undefined,
        },
        {
          id: "id",
          mode: "mode",
          requirements: "requirements",
          initialBranch: "--initial_branch",
          metadata: "--metadata",
          runtimeSession: "--runtime-session",
        },
      );
      return async (api) => {
        const session = await api.mutate<SessionRow>("session.create", input);
        return wrote(sessionView(session), `✓ Created session ${session.id} (${session.mode ?? "no mode"}, ${session.enforcement})`);
      };
    }),
  );

  example(
    program.command("get-session").description("Show a session").argument("<id>", "session id", sessionArg),
    "proofgate get-session bazinga_20250112_143022",
  ).action(act(out, (id: string) => async (api) => read(sessionView(await api.query<SessionRow>("session.get", { id })))));

  example(
    program
      .command("list-sessions")
      .description("List the most recent sessions, newest first")
      .argument("[limit]", "how many (1–200, default 10)", int(1, 200)),
    "proofgate list-sessions 5",
  ).action(
    act(out, (limit: number | undefined) => async (api) => {
      const page = await api.query<{ items: SessionRow[] }>("session.list", { limit: limit ?? 10 });
      return read(page.items.map(sessionView));
    }),
  );

  example(
    program
      .command("update-session-status")
      .description("Set a session's status; completing it runs the completion gate (an enforce session that fails it stays active, exit 1)")
      .argument("<id>", "session id", sessionArg)
      .argument("<status>", `one of ${SESSION_STATUSES.join(", ")}`, oneOf(SESSION_STATUSES)),
    "proofgate update-session-status bazinga_20250112_143022 completed",
  ).action(
    act(out, (id: string, status: (typeof SESSION_STATUSES)[number]) => {
      const input = validate(UpdateSessionStatusInput, { sessionId: id, status }, { sessionId: "id" });
      return async (api) => {
        const result = await api.mutate<{ session: SessionRow; check: CompletionCheckRow | null }>("session.updateStatus", input);
        const gate = result.check && !result.check.accepted ? ` (completion gate rejected it: ${result.check.reasons.join("; ")} — recorded)` : "";
        return wrote({ session: sessionView(result.session), check: result.check }, `✓ Session ${id} is ${result.session.status}${gate}`);
      };
    }),
  );
}
