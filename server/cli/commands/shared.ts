import fs from "node:fs";
import { type Command, InvalidArgumentError, Option } from "commander";
import type { z } from "zod";
import { DomainError } from "@/server/domain/errors";
import { SessionId } from "@/server/services/schemas-common";
import { type Api, openApi } from "../api";
import { UsageError } from "../errors";
import type { GlobalOptions } from "../options";
import type { Output } from "../output";
import { pretty } from "../run";

/** What a command prints: `data` with --json, else `text`. A write's confirmation is dropped by --quiet (BAZINGA's meaning). */
export interface Reply {
  data: unknown;
  text: string;
  write?: boolean;
  /** Printed first, then thrown: a check that ran and said no (exit 1) still shows what it found. */
  fail?: Error;
}

/** A check that ran and answered no (the completion gate, mandatory phases): exit 1, naming the rule. */
export class CheckFailed extends DomainError {
  readonly kind = "forbidden" as const;
}

export const read = (data: unknown, text = pretty(data)): Reply => ({ data, text });
export const wrote = (data: unknown, text: string): Reply => ({ data, text, write: true });

/** Null: the command printed its own output as it went (a stream). */
type Plan = (api: Api, globals: GlobalOptions) => Promise<Reply | null>;

/**
 * A command's action in two steps: `prepare` checks and converts the arguments (throwing
 * UsageError → exit 2) before anything is opened, so a bad call never creates a database; the plan
 * it returns then runs against the API in the mode the global flags chose.
 */
export function act<A extends unknown[]>(out: Output, prepare: (...args: A) => Plan): (...args: [...A, Command]) => Promise<void> {
  return async (...all) => {
    const command = all[all.length - 1] as Command;
    const plan = prepare(...(all.slice(0, -1) as unknown as A));
    const globals = command.optsWithGlobals<GlobalOptions>();
    const api = openApi(globals);
    try {
      const reply = await plan(api, globals);
      if (reply === null) return;
      if (!(reply.write && globals.quiet && !globals.json)) out.result(reply.data, reply.text);
      if (reply.fail) throw reply.fail;
    } finally {
      await api.close();
    }
  };
}

export function example(command: Command, ...lines: string[]): Command {
  return command.addHelpText("after", `\nExample${lines.length > 1 ? "s" : ""}:\n${lines.map((l) => `  ${l}`).join("\n")}`);
}

/** Commander's attribute for a flag: `--group-id` → groupId, `--group_id` → group_id. */
function attributeOf(flag: string): string {
  return flag.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
}

const otherSpelling = (flag: string) => (flag.includes("_") ? flag.replace(/_/g, "-") : flag.replace(/-/g, "_"));

/**
 * An option under the spelling BAZINGA's prompts use (`--assigned_to`, `--group-id`), plus the
 * other spelling, hidden: `--assigned-to` and `--group_id` work too.
 */
export function dualOption<T>(command: Command, flag: string, value: string | null, description: string, parse?: (value: string) => T): Command {
  const make = (name: string) => {
    const option = new Option(`--${name}${value ? ` <${value}>` : ""}`, description);
    return parse ? option.argParser((v: string) => parse(v)) : option;
  };
  command.addOption(make(flag));
  const other = otherSpelling(flag);
  if (other !== flag) command.addOption(make(other).hideHelp());
  return command;
}

/** The value of a dual option, whichever spelling was used. */
export function pick<T = string>(options: Record<string, unknown>, flag: string): T | undefined {
  const value = options[attributeOf(flag)] ?? options[attributeOf(otherSpelling(flag))];
  return value as T | undefined;
}

// Argument parsers: commander names the argument or option in its message, we say what is wrong.

export function int(min: number, max = Number.MAX_SAFE_INTEGER) {
  return (value: string): number => {
    const n = Number(value);
    if (!/^-?\d+$/.test(value.trim()) || !Number.isSafeInteger(n) || n < min || n > max) {
      throw new InvalidArgumentError(`must be an integer from ${min} to ${max}`);
    }
    return n;
  };
}

/** A session id as the API accepts it (letters, digits and . _ : -). */
export function sessionArg(value: string): string {
  const result = SessionId.safeParse(value);
  if (!result.success) throw new InvalidArgumentError(result.error.issues[0]?.message ?? "is not a session id");
  return value;
}

export function oneOf<T extends string>(values: readonly T[]) {
  return (value: string): T => {
    if (!(values as readonly string[]).includes(value)) throw new InvalidArgumentError(`must be one of ${values.join(", ")}`);
    return value as T;
  };
}

export function bool(value: string): boolean {
  const v = value.trim().toLowerCase();
  if (["1", "true", "yes"].includes(v)) return true;
  if (["0", "false", "no"].includes(v)) return false;
  throw new InvalidArgumentError("must be true or false (1 or 0)");
}

/** `@path` reads the file; anything else is the value itself. */
export function fileOrText(value: string): string {
  return value.startsWith("@") ? readText(value.slice(1)) : value;
}

export function readText(file: string): string {
  try {
    return fs.readFileSync(file, "utf8");
  } catch (error) {
    throw new InvalidArgumentError(`cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new InvalidArgumentError(`must be JSON (${(error as Error).message})`);
  }
}

/** JSON text (or `@file`) of the expected shape. */
export function json(kind: "object" | "array" | "any" = "any") {
  return (value: string): unknown => {
    const parsed = parseJson(fileOrText(value));
    if (kind === "object" && (parsed === null || typeof parsed !== "object" || Array.isArray(parsed))) throw new InvalidArgumentError("must be a JSON object");
    if (kind === "array" && !Array.isArray(parsed)) throw new InvalidArgumentError("must be a JSON array");
    return parsed;
  };
}

/** A JSON array of strings. */
export function stringList(value: string): string[] {
  const parsed = json("array")(value) as unknown[];
  if (!parsed.every((item) => typeof item === "string")) throw new InvalidArgumentError("must be a JSON array of strings");
  return parsed as string[];
}

/**
 * Check an API input with the procedure's own schema before calling it, and name the command-line
 * argument (not the API field) in the refusal: `session: may contain only letters…`.
 */
export function validate<S extends z.ZodType>(schema: S, input: unknown, names: Record<string, string> = {}): z.input<S> {
  const result = schema.safeParse(input);
  if (result.success) return input as z.input<S>;
  const issue = result.error.issues[0]!;
  const path = issue.code === "unrecognized_keys" ? [...issue.path, issue.keys[0] ?? ""] : issue.path;
  const field = path.reduce<string>((acc, k) => (typeof k === "number" ? `${acc}[${k}]` : acc ? `${acc}.${String(k)}` : String(k)), "") || "input";
  const head = path.length > 0 ? String(path[0]) : "input";
  const name = names[head] ? `${names[head]}${field.slice(head.length)}` : field;
  throw new UsageError(`${name}: ${issue.code === "unrecognized_keys" ? "is not a known field" : issue.message}`);
}

const snake = (key: string) => key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/**
 * A row with BAZINGA's snake_case keys (`session_id`, `required_for_completion`). Only the row's own
 * keys: documents stored inside it (state, payloads, metadata) are printed exactly as saved.
 */
export function snakeKeys<T extends object>(row: T): Record<string, unknown> {
  return Object.fromEntries(Object.entries(row).map(([key, value]) => [snake(key), value]));
}

export function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}
