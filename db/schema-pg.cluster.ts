/**
 * A throwaway PostgreSQL cluster for db/schema-pg.test.ts (initdb into a temporary directory, a free
 * port, the unix socket inside that directory), stopped and deleted by `stop()` or at process exit.
 * Never the system cluster. The shared harness (test/support/pg-cluster.ts) replaces this at merge.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";

export interface Cluster {
  /** postgres://postgres@127.0.0.1:<port>/postgres */
  url: string;
  stop(): void;
}

/** The highest installed PostgreSQL's bin directory holding initdb, or null. */
export function findPgBin(): string | null {
  const base = "/usr/lib/postgresql";
  if (!fs.existsSync(base)) return null;
  const versions = fs
    .readdirSync(base)
    .filter((v) => fs.existsSync(path.join(base, v, "bin", "initdb")))
    .sort((a, b) => Number(b) - Number(a));
  return versions.length ? path.join(base, versions[0]!, "bin") : null;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** initdb refuses root: as root, run the server binaries as the `postgres` user. */
function run(bin: string, args: string[]) {
  const asRoot = process.getuid?.() === 0;
  return asRoot ? execFileSync("runuser", ["-u", "postgres", "--", bin, ...args], { stdio: "pipe" }) : execFileSync(bin, args, { stdio: "pipe" });
}

export async function startCluster(bin: string): Promise<Cluster> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "proofgate-pgschema-"));
  const data = path.join(dir, "data");
  let started = false;
  const stop = () => {
    if (started) {
      try {
        run(path.join(bin, "pg_ctl"), ["-D", data, "-m", "immediate", "stop"]);
      } catch {
        // already stopped
      }
      started = false;
    }
    fs.rmSync(dir, { recursive: true, force: true });
    process.off("exit", stop);
  };
  process.on("exit", stop);
  try {
    if (process.getuid?.() === 0) execFileSync("chown", ["postgres:", dir]);
    run(path.join(bin, "initdb"), ["-D", data, "-U", "postgres", "--auth=trust", "--no-sync", "--encoding=UTF8", "--locale=C.UTF-8"]);
    for (let attempt = 1; ; attempt++) {
      const port = await freePort();
      const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off`;
      try {
        run(path.join(bin, "pg_ctl"), ["-D", data, "-l", path.join(dir, "log"), "-w", "-o", options, "start"]);
        started = true;
        return { url: `postgres://postgres@127.0.0.1:${port}/postgres`, stop };
      } catch (error) {
        if (attempt >= 3) {
          const log = fs.existsSync(path.join(dir, "log")) ? fs.readFileSync(path.join(dir, "log"), "utf8") : "";
          throw new Error(`pg_ctl start failed: ${String(error)}\n${log}`);
        }
      }
    }
  } catch (error) {
    stop();
    throw error;
  }
}
