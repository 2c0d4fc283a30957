/** Shared set-up for the log service tests: a fresh migrated ledger (in-memory SQLite unless given one), a session, actors by role. */
import { queryAll, queryGet } from "@/db/query";
import { count as countRows, eq } from "drizzle-orm";
import type { SQLiteTable } from "drizzle-orm/sqlite-core";
import { type Db, createMemoryDb } from "@/db/client";
import { events } from "@/db/schema";
import { type Actor, type Role, operatorActor } from "@/server/domain/actors";
import type { ServiceContext } from "@/server/services/context";
import { createSession } from "@/server/services/session/create";

export const SESSION = "bazinga_20250112_143022";
export const T0 = Date.parse("2025-01-12T14:30:00.000Z");

export interface Fixture {
  db: Db;
  admin: ServiceContext;
  /** Move the injected clock (milliseconds since T0). */
  setClock: (msSinceT0: number) => void;
  as: (role: Role, label?: string) => ServiceContext;
}

export function actor(role: Role, label = `${role}_1`): Actor {
  return { principalId: `token:${label}`, principalKind: "token", role, label };
}

export async function setup(db: Db = createMemoryDb()): Promise<Fixture> {
  let clock = T0;
  const now = () => new Date(clock);
  const admin: ServiceContext = { db, actor: operatorActor(), now };
  await createSession(admin, { id: SESSION });
  return {
    db,
    admin,
    setClock: (ms) => {
      clock = T0 + ms;
    },
    as: (role, label) => ({ db, actor: actor(role, label), now }),
  };
}

export async function rowCount(db: Db, table: SQLiteTable): Promise<number> {
  return (await queryGet(db.select({ n: countRows() }).from(table)))!.n;
}

/** The `events` rows of one type, oldest first. */
export async function eventsOfType(db: Db, type: string) {
  return await queryAll(db.select().from(events).where(eq(events.type, type)).orderBy(events.id));
}

// Secrets built from pieces, so no complete secret-shaped literal sits in the source for scanners.
export const SECRETS = {
  openaiKey: "sk-" + "proj-" + "Ab12Cd34Ef56Gh78Ij90KlMn",
  githubToken: "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8",
  awsKeyId: "AKIA" + "IOSFODNN7EXAMPLE",
  jwt: "eyJhbGciOiJIUzI1NiJ9" + ".eyJzdWIiOiIxMjMifQ.c2lnbmF0dXJl",
  pem: ["-----BEGIN RSA " + "PRIVATE KEY-----", "MIIEvQIBADANBgkqhkiG9w0BAQEFAASC", "BKcwggSjAgEAAoIBAQC7", "-----END RSA " + "PRIVATE KEY-----"].join("\n"),
};
