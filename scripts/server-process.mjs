// How the production server's process is started: `npm start` (scripts/start.mjs) and the bench
// (bench/lib/proc.ts) both spawn `next start` with these, so the bench measures what a user runs.
//
// V8's heap, left to its defaults on a machine with gigabytes free, lets the server's old space
// fill with garbage to ~3x what is live before a full collection (measured: 55-65 MB live, old space
// 150-170 MB, RSS ~300 MB after 1,000 mixed requests with 50 SSE streams open), and keeps a 32 MB
// young generation. A heap that grows by at most 20% over what the last full collection kept, and
// 4 MB semi-spaces, hold RSS at ~170 MB for the same load, for ~15% more CPU time in the collector.
// (--optimize-for-size held it at ~150 MB but cost ~75% more CPU: the JIT optimises less.)
export const SERVER_NODE_FLAGS = ["--heap-growing-percent=20", "--max-semi-space-size=4"];

/** The arguments to `node` that start the production server on `port` (and `host`, if given). */
export function nextStartArgs(port, host) {
  return [...SERVER_NODE_FLAGS, "node_modules/next/dist/bin/next", "start", "-p", String(port), ...(host ? ["-H", host] : [])];
}
