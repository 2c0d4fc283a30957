/** Where a server's CPU time went: self time per function from V8's .cpuprofile files (--profile). */
import fs from "node:fs";
import path from "node:path";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}
interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

export interface ProfileSummary {
  totalMs: number;
  byArea: { area: string; ms: number; share: number }[];
  topFunctions: { fn: string; where: string; ms: number; share: number }[];
}

/** The code a frame belongs to, coarse enough to say what the time is spent on. */
function area(url: string, fn: string): string {
  if (fn === "(idle)") return "idle";
  if (fn === "(garbage collector)") return "garbage collection";
  if (fn === "(program)") return "V8/native (program)";
  if (url === "") return `native: ${fn}`;
  if (url.includes("better-sqlite3")) return "better-sqlite3 (SQLite)";
  if (url.includes("node_modules/next/") || url.includes("next/dist")) return "Next.js server";
  if (url.includes("react-dom") || url.includes("react-server")) return "React rendering";
  if (url.startsWith("node:")) return `Node core (${url.slice(5).split("/").slice(0, 2).join("/")})`;
  if (url.includes(".next/server")) return "app server bundle (tRPC, zod, drizzle, services)";
  return path.basename(url);
}

export function summarizeProfiles(dir: string): ProfileSummary | null {
  if (!fs.existsSync(dir)) return null;
  const files = fs.readdirSync(dir).filter((f) => f.endsWith(".cpuprofile"));
  if (files.length === 0) return null;
  const areas = new Map<string, number>();
  const fns = new Map<string, { where: string; ms: number }>();
  let total = 0;
  for (const file of files) {
    const profile = JSON.parse(fs.readFileSync(path.join(dir, file), "utf8")) as CpuProfile;
    const byId = new Map(profile.nodes.map((n) => [n.id, n]));
    profile.samples.forEach((id, i) => {
      const node = byId.get(id);
      if (!node) return;
      const ms = (profile.timeDeltas[i] ?? 0) / 1000;
      const { functionName, url, lineNumber } = node.callFrame;
      const a = area(url, functionName);
      if (a === "idle") return;
      total += ms;
      areas.set(a, (areas.get(a) ?? 0) + ms);
      const key = `${functionName || "(anonymous)"} ${url}:${lineNumber}`;
      const entry = fns.get(key) ?? { where: `${path.basename(url) || "native"}:${lineNumber + 1}`, ms: 0 };
      entry.ms += ms;
      fns.set(key, entry);
    });
  }
  const share = (ms: number) => Math.round((ms / total) * 1000) / 10;
  return {
    totalMs: Math.round(total),
    byArea: [...areas]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 15)
      .map(([a, ms]) => ({ area: a, ms: Math.round(ms), share: share(ms) })),
    topFunctions: [...fns]
      .sort((a, b) => b[1].ms - a[1].ms)
      .slice(0, 25)
      .map(([key, v]) => ({ fn: key.split(" ")[0]!, where: v.where, ms: Math.round(v.ms), share: share(v.ms) })),
  };
}
