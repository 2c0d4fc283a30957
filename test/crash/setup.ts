// A fresh database for the run: migrated, with the API tokens the clients use, one session and its
// criteria. Written through the services as the local operator (as `proofgate token create` and
// `proofgate create-session` would), then closed before the server opens the file.
import { openDatabase } from "@/db/client";
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

export async function prepareDatabase(file: string, criteriaWriters: number): Promise<Fixture> {
  const db = openDatabase(file);
  try {
    const ctx: ServiceContext = { db, actor: operatorActor("crash-setup") };
    const token = async (role: "agent" | "verifier" | "lead") => (await createToken(ctx, { name: `crash-${role}`, role })).token;
    const tokens = { agent: await token("agent"), verifier: await token("verifier"), lead: await token("lead") };
    const session = await createSession(ctx, { id: "crash_run", mode: "parallel", requirements: "crash-safety run" });
    const criteria = Array.from({ length: criteriaWriters }, (_, i) => criterionText(i + 1));
    await saveCriteria(ctx, { sessionId: session.id, criteria: criteria.map((criterion) => ({ criterion })) });
    const lastEventId = (db.$client.prepare("SELECT max(id) AS id FROM events").get() as { id: number }).id;
    return { sessionId: session.id, tokens, criteria, lastEventId };
  } finally {
    db.$client.close();
  }
}
