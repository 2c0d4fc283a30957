import { type Command, InvalidArgumentError } from "commander";
import { CRITERION_STATUSES } from "@/server/domain/criteria";
import type { CompletionCheckRow } from "@/server/services/completion/check";
import type { CriterionRow } from "@/server/services/criteria/record";
import { SaveCriteriaInput, SetRequiredInput, UpdateCriterionInput, VerifyCriterionInput } from "@/server/services/criteria/schemas";
import { UsageError } from "../errors";
import { type Translated, noteTranslation, splitFields } from "./bazinga-input";
import type { Output } from "../output";
import { CheckFailed, act, bool, dualOption, example, json, oneOf, pick, plural, read, sessionArg, snakeKeys, validate, wrote } from "./shared";

/** BAZINGA's snake_case criterion keys, as the API spells them. */
const KEYS: Readonly<Record<string, string>> = { required_for_completion: "requiredForCompletion" };
/** The criterion fields with a column; any other field BAZINGA's PM attaches goes into `metadata`. */
const CRITERION_FIELDS = new Set([
  "criterion",
  "status",
  "actual",
  "evidence",
  "required_for_completion",
  "requiredForCompletion",
  "priority",
  "supersedes",
  "metadata",
]);

/**
 * One item of BAZINGA's criteria list: an object with snake_case keys, or just the criterion's
 * text. bazinga_db.py stores the fields it knows and ignores the rest; here the rest is kept in the
 * criterion's metadata, a `priority` that is not a whole number too (the column holds 1, 2, …), and
 * an `actual`/`evidence` given as a number is stored as its text (SQLite stored it as given).
 */
function criterionItem(item: unknown, i: number, notes: string[]): unknown {
  if (typeof item === "string") return { criterion: item };
  if (item === null || typeof item !== "object" || Array.isArray(item)) return item;
  const { known, extra } = splitFields(item as Record<string, unknown>, CRITERION_FIELDS);
  if (known.priority !== undefined && known.priority !== null && !Number.isSafeInteger(known.priority)) {
    extra.priority = known.priority;
    delete known.priority;
  }
  const given = known.metadata;
  if (given !== undefined && (given === null || typeof given !== "object" || Array.isArray(given))) {
    extra.metadata = given;
    delete known.metadata;
  }
  if (Object.keys(extra).length > 0) {
    known.metadata = { ...((known.metadata as Record<string, unknown> | undefined) ?? {}), ...extra };
    notes.push(`criteria_json[${i}]: ${Object.keys(extra).join(", ")} kept in the criterion's metadata`);
  }
  const entries = Object.entries(known)
    .map(([key, value]) => [KEYS[key] ?? key, value] as const)
    // BAZINGA writes null for "not given" (its defaults apply), and the flag as 0/1 or "true".
    .filter(([name, value]) => !(value === null && (name === "status" || name === "requiredForCompletion")))
    .map(([name, value]) => [name, name === "requiredForCompletion" && typeof value !== "boolean" ? bool(String(value)) : value])
    .map(([name, value]) => [
      name,
      (name === "actual" || name === "evidence") && (typeof value === "number" || typeof value === "boolean") ? String(value) : value,
    ]);
  return Object.fromEntries(entries);
}

function criteriaList(value: string): Translated<unknown[]> {
  const list = json("array")(value) as unknown[];
  const notes: string[] = [];
  try {
    return { value: list.map((item, i) => criterionItem(item, i, notes)), notes };
  } catch (error) {
    throw new InvalidArgumentError(`required_for_completion ${(error as Error).message}`);
  }
}

const statusOption = oneOf(CRITERION_STATUSES);

/** The success criteria commands and the completion gate. */
export function criteriaCommands(program: Command, out: Output): void {
  example(
    program
      .command("save-success-criteria")
      .description("Save the session's success criteria, all or nothing; saving a criterion again updates it (its text never changes)")
      .argument("<session>", "session id", sessionArg)
      .argument(
        "<criteria_json>",
        "JSON array (or @file) of {criterion, status?, actual?, evidence?, required_for_completion?, priority?, supersedes?}; other fields are kept in the criterion's metadata",
        criteriaList,
      ),
    'proofgate save-success-criteria bazinga_20250112_143022 \'[{"criterion":"All tests passing","status":"pending","required_for_completion":true}]\'',
  ).action(
    act(out, (sessionId: string, criteria: Translated<unknown[]>) => {
      const input = validate(SaveCriteriaInput, { sessionId, criteria: criteria.value }, { sessionId: "session", criteria: "criteria_json" });
      return async (api, globals) => {
        noteTranslation(globals, criteria.notes);
        const rows = await api.mutate<CriterionRow[]>("criteria.save", input);
        return wrote(rows.map(snakeKeys), `✓ Saved ${rows.length} success criteria for session ${sessionId}`);
      };
    }),
  );

  example(
    program.command("get-success-criteria").description("List the session's success criteria").argument("<session>", "session id", sessionArg),
    "proofgate get-success-criteria bazinga_20250112_143022",
  ).action(act(out, (sessionId: string) => async (api) => read((await api.query<CriterionRow[]>("criteria.list", { sessionId })).map(snakeKeys))));

  const update = program
    .command("update-success-criterion")
    .description("Update one criterion's status, actual value and evidence (the claimant's side); --required_for_completion takes a lead")
    .argument("<session>", "session id", sessionArg)
    .argument("<criterion>", "the criterion's exact text")
    .option("--status <status>", CRITERION_STATUSES.join(", "), statusOption)
    .option("--actual <text>", "the value achieved")
    .option("--evidence <text>", "proof: test output, artifact path, link");
  dualOption(update, "required_for_completion", "bool", "whether the completion gate requires it", bool);
  example(
    update,
    'proofgate update-success-criterion bazinga_20250112_143022 "All tests passing" --status met --actual "711/711 passing" --evidence artifacts/test-results.txt',
  ).action(
    act(out, (sessionId: string, criterion: string, options: { status?: string; actual?: string; evidence?: string }) => {
      const required = pick<boolean>(options, "required_for_completion");
      const claim = { status: options.status, actual: options.actual, evidence: options.evidence };
      const claimed = Object.values(claim).some((v) => v !== undefined);
      if (!claimed && required === undefined) throw new UsageError("--status: give at least one of --status, --actual, --evidence, --required_for_completion");
      const input = claimed ? validate(UpdateCriterionInput, { sessionId, criterion, ...claim }, { actual: "--actual", evidence: "--evidence" }) : null;
      if (required !== undefined) validate(SetRequiredInput, { sessionId, criterion, required });
      return async (api) => {
        let row = input ? await api.mutate<CriterionRow>("criteria.update", input) : null;
        if (required !== undefined) row = await api.mutate<CriterionRow>("criteria.setRequired", { sessionId, criterion, required });
        return wrote(snakeKeys(row!), `✓ Updated criterion: ${criterion} (${row!.status}${row!.requiredForCompletion ? "" : ", not required"})`);
      };
    }),
  );

  example(
    program
      .command("verify-success-criterion")
      .description("Record a verifier's finding beside the claim; where they disagree the completion gate trusts the verifier")
      .argument("<session>", "session id", sessionArg)
      .argument("<criterion>", "the criterion's exact text")
      .requiredOption("--status <status>", CRITERION_STATUSES.join(", "), statusOption)
      .option("--actual <text>", "the value the verifier found")
      .option("--evidence <text>", "the verifier's proof"),
    'proofgate verify-success-criterion bazinga_20250112_143022 "All tests passing" --status failed --actual "3 failing" --agent-id validator_1',
  ).action(
    act(out, (sessionId: string, criterion: string, options: { status: string; actual?: string; evidence?: string }) => {
      const input = validate(VerifyCriterionInput, { sessionId, criterion, ...options }, { sessionId: "session", criterion: "criterion", status: "--status" });
      return async (api) => {
        const row = await api.mutate<CriterionRow>("criteria.verify", input);
        return wrote(snakeKeys(row), `✓ Verified criterion: ${criterion} (claimed ${row.status}, verifier found ${row.verifierStatus})`);
      };
    }),
  );

  example(
    program
      .command("check-completion")
      .description("Run the completion gate and record the check: exit 0 when accepted, 1 when rejected, printing each reason")
      .argument("<session>", "session id", sessionArg)
      .option("--claimed-verdict <text>", "what the orchestrator claimed, e.g. BAZINGA", (v: string) => {
        if (v.length > 200) throw new InvalidArgumentError("must be at most 200 characters");
        return v;
      }),
    "proofgate check-completion bazinga_20250112_143022",
  ).action(
    act(out, (sessionId: string, options: { claimedVerdict?: string }) => async (api) => {
      const check = await api.mutate<CompletionCheckRow>("completion.check", {
        sessionId,
        ...(options.claimedVerdict ? { claimedVerdict: options.claimedVerdict } : {}),
      });
      const head = `Completion check #${check.id} for ${sessionId}: ${check.accepted ? "ACCEPTED" : "REJECTED"} (${check.metCount}/${check.totalCount} required criteria met)`;
      const text = [head, ...check.reasons.map((reason) => `  - ${reason}`)].join("\n");
      const fail = check.accepted
        ? undefined
        : new CheckFailed(
            "completion.rejected",
            `session ${sessionId} cannot complete: the completion gate rejected it (${plural(check.reasons.length, "reason")})`,
          );
      return { data: check, text, fail };
    }),
  );
}
