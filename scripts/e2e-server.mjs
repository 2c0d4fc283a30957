// The Playwright web server: a fresh database seeded with demo data and one person per human role,
// served by the built app.
import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, rmSync } from "node:fs";
import path from "node:path";
import { serveArgs } from "./server-process.mjs";

const [db, port] = process.argv.slice(2);
if (!db || !port) throw new Error("usage: e2e-server.mjs <db> <port>");
mkdirSync(path.dirname(db), { recursive: true });
for (const suffix of ["", "-wal", "-shm", ".secret"]) rmSync(db + suffix, { force: true });

const cli = (...args) => {
  const run = spawnSync(process.execPath, ["bin/proofgate.mjs", ...args, "--db", db, "--quiet"], { stdio: "inherit" });
  if (run.status !== 0) process.exit(run.status ?? 1);
};
cli("demo", "--sessions", "40", "--seed", "7");
// Keep in step with e2e/users.ts.
for (const role of ["admin", "lead", "viewer"]) cli("user", "create", "--email", `${role}@proofgate.test`, "--password", "e2e-password-123", "--role", role);

// The same node flags as `npm start`, so the browser tests run the server users run. e2e/webhooks.spec.ts's
// receiver listens on 127.0.0.1, which the server refuses as a webhook target unless allowed.
const server = spawn(process.execPath, serveArgs(port, "127.0.0.1"), {
  stdio: "inherit",
  env: { ...process.env, PROOFGATE_DB: db, NEXT_TELEMETRY_DISABLED: "1", PROOFGATE_SIGNIN_LIMIT: "1000", PROOFGATE_WEBHOOK_ALLOW_PRIVATE: "1" },
});
let stopping = false;
for (const signal of ["SIGINT", "SIGTERM"]) {
  process.on(signal, () => {
    stopping = true;
    server.kill(signal);
  });
}
// A server that dies by a signal nobody asked for (SIGKILL, SIGSEGV, the OOM killer) is a failure,
// said loudly, not a clean exit that hides it.
server.on("exit", (code, signal) => {
  if (signal && !stopping) {
    console.error(`e2e-server: the server died by ${signal}`);
    process.exit(1);
  }
  process.exit(code ?? 0);
});
