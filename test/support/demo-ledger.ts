/**
 * A ledger filled with demo data, on either engine. The generator writes SQLite in bulk; a
 * PostgreSQL ledger gets the same data the way `proofgate database demo` gives it, through `copy`
 * from a temporary SQLite file.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { type Db, openDatabase } from "@/db/client";
import { type DemoOptions, generateDemoData } from "@/server/demo/generate";
import { copyLedger } from "@/server/services/copy/copy";
import { type Engine, ledgerFactory, sharedLedgerFactory } from "./engines";

/** Demo ledgers on either engine, closed after the file's tests. Call at a file's top level. */
export function demoLedgerFactory(): (engine: Engine, options: DemoOptions) => Promise<Db> {
  const freshLedger = ledgerFactory();
  const sharedLedger = sharedLedgerFactory();
  return async (engine, options) => {
    if (engine === "sqlite") {
      const db = await freshLedger(engine);
      await generateDemoData(db, options);
      return db;
    }
    const folder = fs.mkdtempSync(path.join(os.tmpdir(), "proofgate-demo-"));
    try {
      const file = openDatabase(path.join(folder, "demo.db"));
      await generateDemoData(file, options);
      file.$client.close();
      const { db, target } = await sharedLedger(engine);
      await copyLedger({ from: path.join(folder, "demo.db"), to: target });
      return db;
    } finally {
      fs.rmSync(folder, { recursive: true, force: true });
    }
  };
}
