/**
 * One writer process for the concurrent-writers test: it runs `proofgate` commands through the
 * CLI's own `main()` — local mode (`--db FILE`, its own connection per call) or remote mode
 * (`--url … --token …` against the test's server) — one call at a time, as the parent tells it
 * over IPC, and reports each call's exit code and output.
 *
 *   load: a list of calls, run in order; race: one call, run as soon as the current one ends.
 */
import { main } from "@/server/cli/index";

export interface Call {
  id: string;
  args: string[];
}

export interface CallResult {
  id: string;
  code: number;
  stdout: string;
  stderr: string;
}

export type ToWriter = { type: "load"; calls: Call[] } | { type: "race"; call: Call } | { type: "exit" };
export type FromWriter = { type: "ready" } | { type: "loaded"; results: CallResult[] } | { type: "raced"; result: CallResult };

let queue: Promise<unknown> = Promise.resolve();

/** Run one call with stdout and stderr captured; calls in this process never overlap. */
function run(call: Call): Promise<CallResult> {
  const next = queue.then(async () => {
    let stdout = "";
    let stderr = "";
    const out = process.stdout.write.bind(process.stdout);
    const err = process.stderr.write.bind(process.stderr);
    process.stdout.write = ((chunk: string | Uint8Array) => ((stdout += String(chunk)), true)) as typeof process.stdout.write;
    process.stderr.write = ((chunk: string | Uint8Array) => ((stderr += String(chunk)), true)) as typeof process.stderr.write;
    try {
      const code = await main(["node", "proofgate", ...call.args]);
      return { id: call.id, code, stdout, stderr };
    } catch (error) {
      return { id: call.id, code: -1, stdout, stderr: stderr + String(error) };
    } finally {
      process.stdout.write = out;
      process.stderr.write = err;
    }
  });
  queue = next;
  return next;
}

const send = (message: FromWriter) => process.send!(message);

process.on("message", (message: ToWriter) => {
  if (message.type === "exit") process.exit(0);
  if (message.type === "race") void run(message.call).then((result) => send({ type: "raced", result }));
  if (message.type === "load") {
    void (async () => {
      const results: CallResult[] = [];
      for (const call of message.calls) {
        results.push(await run(call));
        // Let a race waiting in the IPC channel in between the calls of the load.
        await new Promise((resolve) => setImmediate(resolve));
      }
      send({ type: "loaded", results });
    })();
  }
});
send({ type: "ready" });
