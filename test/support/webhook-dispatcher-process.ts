// A server process's webhook side alone, for crash tests: runs what Next.js runs at start-up
// (instrumentation.ts `register`) on $PROOFGATE_DB, then stays up until killed.
import { register } from "@/instrumentation";

process.env.NEXT_RUNTIME = "nodejs";
await register();
process.stdout.write("ready\n");
setInterval(() => undefined, 60_000);
