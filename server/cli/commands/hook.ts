import fs from "node:fs";
import type { HookAnswer } from "@/server/services/runtime/hook";
import type { GlobalOptions } from "../options";

/** The endpoint a remote hook posts to (app/api/hooks/claude-code/route.ts). */
export const CLAUDE_CODE_HOOK_PATH = "/api/hooks/claude-code";
/** How long a remote hook waits for the server before failing open (or closed). */
const REMOTE_TIMEOUT_MS = 10_000;
const MAX_STDIN_BYTES = 16 * 1024 * 1024;

export interface HookFlags {
  maxBlocks: number;
  failClosed?: boolean;
}

/** What the process answers Claude Code: stdout (JSON or nothing), stderr, exit code. */
export interface HookReply {
  stdout: string;
  stderr: string;
  exitCode: number;
}

/** Proofgate could not be asked (unreachable, no database, refused, bad input): the fail-open / fail-closed choice applies. */
class HookFailure extends Error {}

/**
 * The command's whole run once its arguments are parsed (hook-command.ts with commander, or
 * hook-entry.ts's fast path): read stdin, answer, write Claude Code's output, set the exit code.
 */
export async function runClaudeCodeHook(globals: GlobalOptions, flags: HookFlags): Promise<void> {
  const reply = await answerClaudeCodeHook(await readStdin(), globals, flags);
  if (reply.stdout) writeAll(1, reply.stdout);
  if (reply.stderr) writeAll(2, reply.stderr);
  process.exitCode = reply.exitCode;
}

/**
 * Write to stdout (1) or stderr (2) directly: process.stdout loads Node's stream, net and tty
 * modules first (~1-2 ms of every call), for a write that is synchronous on a pipe or file anyway.
 * A non-blocking descriptor that is full (EAGAIN) gets the rest through the stream.
 */
function writeAll(fd: 1 | 2, text: string): void {
  let rest = Buffer.from(text);
  try {
    while (rest.length > 0) rest = rest.subarray(fs.writeSync(fd, rest));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EAGAIN") throw error;
    (fd === 1 ? process.stdout : process.stderr).write(rest);
  }
}

/** `--max-blocks`: an integer from 1 to 100, or the rule it breaks. */
export function parseMaxBlocks(value: string): number | { error: string } {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < 1 || n > 100) return { error: "must be an integer from 1 to 100" };
  return n;
}

/**
 * One hook call, start to finish: parse stdin, ask Proofgate (in-process with --db, else the
 * server), and turn the answer, or the failure to get one, into Claude Code's output. Exit 0 always:
 * Claude Code reads exit 2 as "block" with stderr as the reason, which a failure must never cause
 * by accident; a chosen block is the JSON `decision`.
 */
export async function answerClaudeCodeHook(stdin: string, globals: GlobalOptions, flags: HookFlags, env: NodeJS.ProcessEnv = process.env): Promise<HookReply> {
  let payload: unknown;
  let event: { name?: string; sessionId?: string; stopHookActive?: boolean } = {};
  try {
    payload = parseStdin(stdin);
    event = eventOf(payload);
    // SessionStart: later commands of this runtime session carry its id, so the sessions they create are linked.
    if (event.name === "SessionStart" && event.sessionId && env.CLAUDE_ENV_FILE) exportRuntimeSession(env.CLAUDE_ENV_FILE, event.sessionId);
    const remoteUrl = globals.db ? undefined : (globals.url ?? env.PROOFGATE_URL);
    const answer = remoteUrl
      ? await askServer(remoteUrl, globals.token ?? env.PROOFGATE_TOKEN, globals.agentId, stdin, flags.maxBlocks)
      : await askLocally(globals, payload, flags.maxBlocks);
    return { stdout: answer ? `${JSON.stringify(answer)}\n` : "", stderr: "", exitCode: 0 };
  } catch (error) {
    return failed(error instanceof HookFailure ? error.message : `unexpected failure: ${error instanceof Error ? error.message : String(error)}`, flags, event);
  }
}

function failed(message: string, flags: HookFlags, event: { name?: string; stopHookActive?: boolean }): HookReply {
  const stderr = `proofgate hook claude-code: ${message}\n`;
  // Fail-closed holds, except a stop the runtime is already continuing because of a hook: held
  // again it could loop for as long as Proofgate stays unreachable.
  if (!flags.failClosed || event.stopHookActive)
    return { stdout: "", stderr: `${stderr}${flags.failClosed ? "" : "(failing open: the agent goes on; --fail-closed holds instead)\n"}`, exitCode: 0 };
  const reason = `Proofgate could not check the completion gate (${message}), and this hook is configured --fail-closed: fix Proofgate's configuration or availability before finishing.`;
  return { stdout: `${JSON.stringify({ decision: "block", reason })}\n`, stderr, exitCode: 0 };
}

function parseStdin(stdin: string): unknown {
  if (stdin.trim() === "") throw new HookFailure("stdin: expected the hook's JSON input, got nothing");
  try {
    return JSON.parse(stdin) as unknown;
  } catch (error) {
    throw new HookFailure(`stdin: must be the hook's JSON input (${(error as Error).message})`);
  }
}

/** The fields the adapter itself needs before Proofgate answers (the service checks them all again). */
function eventOf(payload: unknown): { name?: string; sessionId?: string; stopHookActive?: boolean } {
  if (payload === null || typeof payload !== "object" || Array.isArray(payload)) throw new HookFailure("hook input: must be a JSON object");
  const p = payload as Record<string, unknown>;
  return {
    name: typeof p.hook_event_name === "string" ? p.hook_event_name : undefined,
    sessionId: typeof p.session_id === "string" && /^[A-Za-z0-9._:-]{1,200}$/.test(p.session_id) ? p.session_id : undefined,
    stopHookActive: p.stop_hook_active === true,
  };
}

/** Append `export PROOFGATE_RUNTIME_SESSION=<id>` to Claude Code's env file (the id is checked to be shell-safe). */
function exportRuntimeSession(file: string, sessionId: string): void {
  try {
    fs.appendFileSync(file, `export PROOFGATE_RUNTIME_SESSION=${sessionId}\n`);
  } catch (error) {
    throw new HookFailure(`CLAUDE_ENV_FILE: could not append to ${file} (${(error as Error).message})`);
  }
}

async function askLocally(globals: GlobalOptions, payload: unknown, maxBlocks: number): Promise<Record<string, string> | null> {
  const [{ openLedger, closeLedger, isPostgresTarget, resolveLedger }, { handleClaudeCodeHook }, { claudeCodeOutput }, { operatorActor }, { DomainError }] =
    await Promise.all([
      import("@/db/client"),
      import("@/server/services/runtime/hook"),
      import("@/server/services/runtime/claude-code-output"),
      import("@/server/domain/actors"),
      import("@/server/domain/errors"),
    ]);
  let file: string;
  try {
    file = resolveLedger({ db: globals.db, databaseUrl: globals.databaseUrl });
  } catch (error) {
    throw new HookFailure((error as Error).message);
  }
  // A hook never creates a ledger: a mistyped path is reported, not started afresh.
  if (!isPostgresTarget(file) && file !== ":memory:" && !fs.existsSync(file))
    throw new HookFailure(`database unavailable: no database at ${file} (check --db / PROOFGATE_DB)`);
  let db;
  try {
    db = await openLedger(file);
  } catch (error) {
    throw new HookFailure(`database unavailable: ${(error as Error).message}`);
  }
  try {
    let answer: HookAnswer;
    try {
      answer = await handleClaudeCodeHook({ db, actor: operatorActor(globals.agentId ?? "claude-code") }, payload, { maxBlocks });
    } catch (error) {
      if (error instanceof DomainError) throw new HookFailure(error.message);
      throw new HookFailure(`database unavailable: ${(error as Error).message}`);
    }
    return claudeCodeOutput(answer);
  } finally {
    await closeLedger(db);
  }
}

/** POST the hook's input to the server's endpoint: the same service answers, in the same JSON. */
async function askServer(
  url: string,
  token: string | undefined,
  agentId: string | undefined,
  body: string,
  maxBlocks: number,
): Promise<Record<string, string> | null> {
  const { request } = await import("../http");
  const endpoint = `${url.replace(/\/$/, "")}${CLAUDE_CODE_HOOK_PATH}?max_blocks=${maxBlocks}`;
  const signal = AbortSignal.timeout(REMOTE_TIMEOUT_MS);
  let response;
  let text: string;
  try {
    response = await request(endpoint, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...(agentId ? { "x-proofgate-agent": agentId } : {}),
      },
      body,
      signal,
    });
    text = await response.text();
  } catch (error) {
    throw new HookFailure(`server unreachable at ${url}: ${(error as Error).message}`);
  }
  if (!response.ok) {
    let message = text.slice(0, 500);
    try {
      const parsed = JSON.parse(text) as { error?: { message?: string } };
      if (parsed.error?.message) message = parsed.error.message;
    } catch {
      // Not JSON (a proxy's error page): its first characters say enough.
    }
    throw new HookFailure(`server refused (HTTP ${response.status}): ${message}`);
  }
  try {
    const answer = text.trim() === "" ? {} : (JSON.parse(text) as Record<string, string>);
    return Object.keys(answer).length === 0 ? null : answer;
  } catch {
    throw new HookFailure(`server answered with something other than JSON: ${text.slice(0, 200)}`);
  }
}

/**
 * The hook's input, read from fd 0 directly: `process.stdin` would load Node's stream and tty
 * modules first (about 4 ms of CPU on every call). A terminal or a closed stdin has no hook input;
 * a non-blocking descriptor (EAGAIN: a parent shared its own) is read through the stream instead.
 */
async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    if (fs.fstatSync(0).isCharacterDevice()) return "";
    const buffer = Buffer.allocUnsafe(64 * 1024);
    for (let n = fs.readSync(0, buffer); n > 0; n = fs.readSync(0, buffer)) {
      chunks.push(Buffer.from(buffer.subarray(0, n)));
      size += n;
      // More is no hook input: what was read fails to parse, and the failure is reported as such.
      if (size > MAX_STDIN_BYTES) break;
    }
    return Buffer.concat(chunks).toString("utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EBADF") return "";
    if ((error as NodeJS.ErrnoException).code !== "EAGAIN") throw error;
  }
  if (process.stdin.isTTY) return "";
  for await (const chunk of process.stdin) {
    size += (chunk as Buffer).length;
    chunks.push(chunk as Buffer);
    if (size > MAX_STDIN_BYTES) break;
  }
  return Buffer.concat(chunks).toString("utf8");
}
