// JavaScript, not TypeScript: Next compiles a next.config.ts with its SWC binary every time the
// server starts, which keeps that 26 MB native library mapped in the production server for its
// whole life (~26 MB of its resident memory, measured with /proc/<pid>/smaps).

/** @type {import("next").NextConfig} */
const nextConfig = {
  // better-sqlite3 is a native addon: load it from node_modules at run time, never bundle it.
  serverExternalPackages: ["better-sqlite3"],
  poweredByHeader: false,
  // Each page's server code loads when the page is first asked for, not all at server start: the
  // API (/api/trpc, /api/mcp, /api/hooks) is answered by `proofgate serve` itself, so Next's copies
  // of those route handlers never load at all. Measured on the demo database: 129 → 116 MB at
  // start; after every page was rendered, 167 → 164 MB.
  experimental: { preloadEntriesOnStart: false },
};

export default nextConfig;
