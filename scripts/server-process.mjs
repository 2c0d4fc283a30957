// How the production server's process is started: `npm start` (scripts/start.mjs), the Playwright
// server (scripts/e2e-server.mjs) and the bench (bench/lib/proc.ts) all spawn `proofgate serve`
// with these, so the tests and the bench run what a user runs.
//
// Left to its defaults on a machine with gigabytes free, V8 lets the server's old space fill with
// garbage to ~3x what is live before a full collection (measured on the 50-session and the
// 10,000-session databases alike: 55-65 MB live, old space 150-170 MB, RSS ~300 MB after rounds of
// 1,000 mixed requests with 50 SSE streams open; heap, not SQLite or buffers: external memory stays
// ~4 MB), and keeps a 32 MB young generation. With the heap allowed to grow 20% over what the last
// full collection kept, and 8 MB semi-spaces, the same load settles at ~175 MB for ~10% more CPU
// time in the server. Measured alternatives (50 sessions, one round; server CPU time against the
// defaults'): 4 MB semi-spaces 167-174 MB for +16-21%; growth 25% and 6 MB 182 MB, +6%; growth 20%
// alone 200 MB, +5%; --optimize-for-size 150-159 MB but +75% (the JIT optimises less).
export const SERVER_NODE_FLAGS = ["--heap-growing-percent=20", "--max-semi-space-size=8"];

/**
 * The arguments to `node` that start the production server (`proofgate serve`: the API answered
 * directly, the pages by Next; PROOFGATE_WORKERS processes) on `port` and `host`. The database is
 * $PROOFGATE_DB. Worker processes inherit these node flags (node:cluster forks with the primary's).
 */
export function serveArgs(port, host) {
  return [...SERVER_NODE_FLAGS, "bin/proofgate.mjs", "serve", "--port", String(port), "--host", host];
}
