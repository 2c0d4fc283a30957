// The Playwright web server: a fresh database seeded with demo data, served by the built app.
import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, rmSync } from "node:fs";
import path from "node:path";

const [db, port] = process.argv.slice(2);
if (!db || !port) throw new Error("usage: e2e-server.mjs <db> <port>");
mkdirSync(path.dirname(db), { recursive: true });
for (const suffix of ["", "-wal", "-shm"]) rmSync(db + suffix, { force: true });
const seeded = spawnSync(process.execPath, ["bin/proofgate.mjs", "demo", "--db", db, "--sessions", "40", "--seed", "7"], { stdio: "inherit" });
if (seeded.status !== 0) process.exit(seeded.status ?? 1);
const server = spawn(process.execPath, ["node_modules/next/dist/bin/next", "start", "-p", port, "-H", "127.0.0.1"], {
  stdio: "inherit",
  env: { ...process.env, PROOFGATE_DB: db, NEXT_TELEMETRY_DISABLED: "1" },
});
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => server.kill(signal));
server.on("exit", (code) => process.exit(code ?? 0));
