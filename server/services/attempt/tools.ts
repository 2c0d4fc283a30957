import { queryAll, queryGet } from "@/db/query";
import { and, eq, inArray } from "drizzle-orm";
import type { Tx } from "@/db/client";
import { tools } from "@/db/schema";
import type { ToolSpec } from "./schemas";

export type ToolRow = typeof tools.$inferSelect;

/**
 * The session's tools by name, creating the missing ones (003: tools are session-scoped, since
 * their implementations may differ between sessions). An existing tool keeps its description:
 * tool rows are history and never change.
 */
export async function ensureTools(
  tx: Tx,
  sessionId: string,
  specs: readonly ToolSpec[],
  now: Date,
): Promise<{ byName: Map<string, ToolRow>; created: string[] }> {
  const wanted = new Map<string, string | null>();
  for (const spec of specs) {
    const name = typeof spec === "string" ? spec : spec.name;
    const description = typeof spec === "string" ? null : (spec.description ?? null);
    if (!wanted.has(name) || wanted.get(name) === null) wanted.set(name, description);
  }
  const byName = new Map<string, ToolRow>();
  if (wanted.size === 0) return { byName, created: [] };
  for (const row of await queryAll(
    tx
      .select()
      .from(tools)
      .where(and(eq(tools.sessionId, sessionId), inArray(tools.name, [...wanted.keys()]))),
  ))
    byName.set(row.name, row);
  const created = [...wanted.keys()].filter((name) => !byName.has(name));
  for (const name of created) {
    byName.set(
      name,
      await queryGet(
        tx
          .insert(tools)
          .values({ sessionId, name, description: wanted.get(name) ?? null, timestamp: now })
          .returning(),
      ),
    );
  }
  return { byName, created };
}
