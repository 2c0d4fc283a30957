import { afterAll, describe, expect, it, vi } from "vitest";
import { withConnection, writeTransaction } from "@/db/client";
import { copyFixture, freshLedger, ledgerCount, removeTemps } from "@/test/support/import-fixtures";
import { importBazinga } from "./bazinga/importer";
import { RecordBook } from "./records";
import { ImportWriter } from "./writer";

vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });
afterAll(removeTemps);

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe("the import's batches under asynchronous services", () => {
  it("releases a row's savepoint only once its work is done: a refusal after an await rolls back the writes before it", async () => {
    const { db } = freshLedger();
    await withConnection(db, async () => {
      const book = await RecordBook.open(db, "bazinga");
      const writer = new ImportWriter(db.$client, book);
      await writer.row(async () => {
        await tick();
        db.$client.prepare("INSERT INTO sessions (id, source) VALUES ('kept', 'api')").run();
        book.put("session", "kept", { targetId: "kept", sessionId: "kept" }, new Date());
      });
      const refused = writer.row(async () => {
        db.$client.prepare("INSERT INTO sessions (id, source) VALUES ('refused', 'api')").run();
        book.put("session", "refused", { targetId: "refused", sessionId: "refused" }, new Date());
        await tick();
        // A service's own transaction nests in the row's savepoint (the connection is held here).
        await writeTransaction(db, () => db.$client.prepare("INSERT INTO sessions (id, source) VALUES ('nested', 'api')").run());
        await tick();
        throw new Error("refused after its writes");
      });
      await expect(refused).rejects.toThrow("refused after its writes");
      expect(book.get("session", "refused")).toBeUndefined();
      writer.flush();
    });
    expect(ledgerCount(db, "SELECT count(*) FROM sessions WHERE id IN ('kept', 'refused', 'nested')")).toBe(1);
    expect(ledgerCount(db, "SELECT count(*) FROM import_records WHERE source_key = 'kept'")).toBe(1);
    expect(ledgerCount(db, "SELECT count(*) FROM import_records WHERE source_key = 'refused'")).toBe(0);
    db.$client.close();
  });

  it("opens no batch unless the connection is held", async () => {
    const { db } = freshLedger();
    const writer = new ImportWriter(db.$client, await RecordBook.open(db, "bazinga"));
    await expect(writer.row(() => "work")).rejects.toThrow(/hold the connection/);
    expect(db.$client.inTransaction).toBe(false);
    db.$client.close();
  });

  it("keeps another caller's write out of an import's batch: it waits for the import, then stands on its own", async () => {
    const source = copyFixture("bazinga-v19-sample.db");
    const { db } = freshLedger();
    const bazingaSessions = () => db.$client.prepare("SELECT count(*) FROM sessions WHERE source = 'bazinga'").pluck().get() as number;
    const importing = importBazinga(db, source);
    let seen = -1;
    const other = writeTransaction(db, () => {
      seen = bazingaSessions();
      db.$client.prepare("INSERT INTO sessions (id, source) VALUES ('elsewhere', 'api')").run();
    });
    const [report] = await Promise.all([importing, other]);
    // It ran once the whole import was in: in its own transaction, not in one of the import's batches.
    expect(seen).toBeGreaterThan(0);
    expect(seen).toBe(bazingaSessions());
    expect(report.entities.reduce((n, e) => n + e.skipped, 0)).toBe(0);
    expect(ledgerCount(db, "SELECT count(*) FROM sessions WHERE id = 'elsewhere'")).toBe(1);
    db.$client.close();
  });
});
