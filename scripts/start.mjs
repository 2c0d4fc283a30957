// `npm start`: build if needed, migrate and seed an empty database with demo data, then serve the
// dashboard on http://localhost:${PORT:-3000}. The database is $PROOFGATE_DB or ./data/proofgate.db.
import { spawnSync, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { serveArgs } from "./server-process.mjs";

process.env.NEXT_TELEMETRY_DISABLED = "1";
const run = (cmd, args) => {
  const result = spawnSync(cmd, args, { stdio: "inherit" });
  if (result.status !== 0) process.exit(result.status ?? 1);
};

if (!existsSync(".next/BUILD_ID") || !existsSync("dist/cli.mjs") || !existsSync("dist/server.cjs")) run("npm", ["run", "build"]);
run(process.execPath, ["bin/proofgate.mjs", "demo", "--if-empty", "--sessions", process.env.PROOFGATE_DEMO_SESSIONS ?? "50"]);

const port = process.env.PORT ?? "3000";
// `proofgate serve` on every interface (as `next start` did); $PROOFGATE_WORKERS processes. The
// server's V8 heap settings are in scripts/server-process.mjs (the bench starts it the same way).
const server = spawn(process.execPath, serveArgs(port, process.env.HOSTNAME ?? "0.0.0.0"), { stdio: "inherit" });
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => server.kill(signal));
server.on("exit", (code) => process.exit(code ?? 0));
