// JavaScript, not TypeScript: Next compiles a next.config.ts with its SWC binary every time the
// server starts, which keeps that 26 MB native library mapped in the production server for its
// whole life (~26 MB of its resident memory, measured with /proc/<pid>/smaps).

/** @type {import("next").NextConfig} */
const nextConfig = {
  // better-sqlite3 is a native addon: load it from node_modules at run time, never bundle it.
  serverExternalPackages: ["better-sqlite3"],
  poweredByHeader: false,
};

export default nextConfig;
