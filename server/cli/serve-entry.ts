/**
 * What `proofgate serve` loads, and the entry of its own bundle (dist/server.cjs; see
 * scripts/build-cli.mjs): the server, tRPC's HTTP side and better-auth stay out of the bundle every
 * other command reads.
 */
export { defaultWorkers, serve } from "@/server/serve/server";
