// A fresh database for the run: migrated, with the API tokens the clients use, one session and its
// criteria. Written through the services as the local operator (as `proofgate token create` and
// `proofgate create-session` would), then closed before the server opens the database.
import { sql } from "drizzle-orm";
import { closeLedger, openLedger } from "@/db/client";
import { rawGet } from "@/db/query";
import { operatorActor } from "@/server/domain/actors";
import { createToken } from "@/server/services/admin/tokens";
import type { ServiceContext } from "@/server/services/context";
import { saveCriteria } from "@/server/services/criteria/save";
import { createSession } from "@/server/services/session/create";

export interface Fixture {
  sessionId: string;
  tokens: { agent: string; verifier: string; lead: string };
  criteria: string[];
  /** The newest event once set up: the live client starts after it, as a dashboard opened now would. */
  lastEventId: number;
}

export function criterionText(client: number): string {
  return `crash criterion ${client}`;
}

/** Migrate `target` (a SQLite file or a postgres:// URL) and write the fixture into it. */
export async function prepareDatabase(target: string, criteriaWriters: number): Promise<Fixture> {
  const db = await openLedger(target, { poolSize: 1 });
  try {
    const ctx: ServiceContext = { db, actor: operatorActor("crash-setup") };
    const token = async (role: "agent" | "verifier" | "lead") => (await createToken(ctx, { name: `crash-${role}`, role })).token;
    const tokens = { agent: await token("agent"), verifier: await token("verifier"), lead: await token("lead") };
    const session = await createSession(ctx, { id: "crash_run", mode: "parallel", requirements: "crash-safety run" });
    const criteria = Array.from({ length: criteriaWriters }, (_, i) => criterionText(i + 1));
    await saveCriteria(ctx, { sessionId: session.id, criteria: criteria.map((criterion) => ({ criterion })) });
    const lastEventId = (await rawGet<{ id: number }>(db, sql`SELECT max(id) AS id FROM events`)).id;
    return { sessionId: session.id, tokens, criteria, lastEventId };
  } finally {
    await closeLedger(db);
  }
}
