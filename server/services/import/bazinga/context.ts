import { addContextReader, markContextConsumed } from "../../log/mark-context-consumed";
import { saveContextPackage } from "../../log/save-context-package";
import type { SaveContextPackageInput } from "../../log/schemas";
import { type ImportRun, apply, at } from "../run";
import { firstTime, int, label, parseTime, text } from "../values";
import type { Row } from "./read";
import type { SessionGate } from "./sessions";

const consumerKey = (sessionId: string, row: Row) => `${sessionId}|${int(row.package_id)}|${text(row.agent_type)}|${int(row.iteration) ?? 1}`;

/**
 * Context packages and who reads them. A package is saved with its first-iteration readers (the
 * context service creates them unconsumed, as BAZINGA's save does) — none, if it has none; a
 * reader of a later iteration is added waiting; each reading BAZINGA recorded (`consumed_at`) is
 * then marked through the same service, now or when it happens later.
 */
export async function importContext(run: ImportRun, packages: readonly Row[], consumers: readonly Row[], gate: SessionGate): Promise<void> {
  const sessionOf = new Map<number, string>();
  const justCreated = new Set<string>();
  for (const pkg of packages) {
    run.tally.read("context packages");
    const id = int(pkg.id) ?? 0;
    const sessionId = text(pkg.session_id) ?? "";
    sessionOf.set(id, sessionId);
    const key = `${sessionId}|${id}`;
    if (await run.book.get("context_package", key)) {
      run.tally.count("context packages", "unchanged");
      continue;
    }
    const refusal = gate.refusal(sessionId);
    if (refusal) {
      run.tally.skip("context packages", key, refusal);
      continue;
    }
    // Saved with its first-iteration readers, however many (none is a state BAZINGA allows);
    // readers of later iterations are added below, as the consumers they are.
    const readers = consumers.filter((c) => int(c.package_id) === id && (int(c.iteration) ?? 1) === 1);
    const supersedes = int(pkg.supersedes_id);
    const supersedesId = supersedes === null ? null : Number((await run.book.get("context_package", `${sessionId}|${supersedes}`))?.targetId ?? NaN);
    const when = firstTime(gate.startOf(sessionId) ?? run.startedAt, pkg.created_at);
    await apply(run, "context packages", key, async () => {
      const input: SaveContextPackageInput = {
        sessionId,
        groupId: label(pkg.group_id),
        packageType: text(pkg.package_type) as SaveContextPackageInput["packageType"],
        filePath: text(pkg.file_path) ?? "",
        producerAgent: label(pkg.producer_agent) ?? "",
        consumers: [...new Set(readers.map((c) => label(c.agent_type) ?? ""))],
        priority: (text(pkg.priority) ?? "medium") as SaveContextPackageInput["priority"],
        summary: text(pkg.summary) ?? "",
        sizeBytes: int(pkg.size_bytes),
        supersedesId: Number.isNaN(supersedesId) ? null : supersedesId,
      };
      const saved = await saveContextPackage(at(run, when), input);
      await run.book.put("context_package", key, { targetId: saved.package.id, sessionId }, when);
      for (const reader of readers) {
        const row = saved.consumers.find((c) => c.agentType === (label(reader.agent_type) ?? "").toLowerCase());
        await run.book.put("context_consumer", consumerKey(sessionId, reader), { targetId: row?.id ?? null, sessionId, state: { consumedAt: null } }, when);
        justCreated.add(consumerKey(sessionId, reader));
      }
      return "imported";
    });
  }

  for (const consumer of consumers) {
    run.tally.read("context consumers");
    const packageId = int(consumer.package_id) ?? 0;
    const sessionId = sessionOf.get(packageId) ?? "";
    const key = consumerKey(sessionId, consumer);
    const pkg = await run.book.get("context_package", `${sessionId}|${packageId}`);
    if (!pkg) {
      run.tally.skip(
        "context consumers",
        key,
        sessionOf.has(packageId)
          ? `its context package ${packageId} was not imported`
          : `its context package ${packageId} is not in the BAZINGA database (an orphaned row): Proofgate keeps a reader only with its package`,
      );
      continue;
    }
    const consumedAt = parseTime(consumer.consumed_at);
    const record = await run.book.get("context_consumer", key);
    const created = justCreated.has(key);
    const applied = record ? ((JSON.parse(record.state ?? "{}") as { consumedAt?: string | null }).consumedAt ?? null) : null;
    if (record && (consumedAt === null || applied !== null)) {
      run.tally.count("context consumers", created ? "imported" : "unchanged");
      continue;
    }
    if (!record && consumedAt === null) {
      // A reader added after its package (a later iteration), not yet consumed: waiting, as in BAZINGA.
      await apply(run, "context consumers", key, async () => {
        const row = await addContextReader(at(run, run.startedAt), {
          packageId: Number(pkg.targetId),
          agentType: label(consumer.agent_type) ?? "",
          iteration: Math.max(1, int(consumer.iteration) ?? 1),
        });
        await run.book.put("context_consumer", key, { targetId: row.id, sessionId, state: { consumedAt: null } }, run.startedAt);
        return "imported";
      });
      continue;
    }
    await apply(run, "context consumers", key, async () => {
      const row = await markContextConsumed(at(run, consumedAt!), {
        packageId: Number(pkg.targetId),
        agentType: label(consumer.agent_type) ?? "",
        iteration: Math.max(1, int(consumer.iteration) ?? 1),
      });
      await run.book.put("context_consumer", key, { targetId: row.id, sessionId, state: { consumedAt: consumedAt!.toISOString() } }, consumedAt!);
      return record && !created ? "updated" : "imported";
    });
  }
}
