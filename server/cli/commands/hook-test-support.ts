/** Runs the built `proofgate` executable as Claude Code runs a command hook: JSON on stdin, answer on stdout. */
import { spawn } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
const BIN = path.join(ROOT, "bin", "proofgate.mjs");

export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function proofgate(args: string[], options: { stdin?: string; env?: Record<string, string | undefined>; cwd?: string } = {}): Promise<Run> {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const key of ["PROOFGATE_DB", "PROOFGATE_URL", "PROOFGATE_TOKEN", "PROOFGATE_RUNTIME_SESSION", "CLAUDE_ENV_FILE"]) delete env[key];
  for (const [key, value] of Object.entries(options.env ?? {})) if (value !== undefined) env[key] = value;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd: options.cwd ?? ROOT, env, stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    const guard = setTimeout(() => child.kill("SIGKILL"), 60_000);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(guard);
      resolve({ code, stdout, stderr });
    });
    child.stdin.end(options.stdin ?? "");
  });
}
