/**
 * Writes db/enforcement.ts's triggers into the committed custom migration (the one whose tag ends
 * in `_enforcement`). Run after changing the task machine's edges or the append-only table list:
 * `npm run db:enforcement`. A change after release belongs in a new migration instead.
 */
import fs from "node:fs";
import path from "node:path";
import { enforcementMigrationSql } from "@/db/enforcement";

const folder = path.join(process.cwd(), "db", "migrations");
const journal = JSON.parse(fs.readFileSync(path.join(folder, "meta", "_journal.json"), "utf8")) as { entries: { tag: string }[] };
const entry = journal.entries.find((e) => e.tag.endsWith("_enforcement"));
if (!entry) throw new Error("no *_enforcement migration in the journal: run `npx drizzle-kit generate --custom --name=enforcement`");
const file = path.join(folder, `${entry.tag}.sql`);
fs.writeFileSync(file, enforcementMigrationSql());
console.log(`wrote ${path.relative(process.cwd(), file)}`);
