/**
 * Writes db/enforcement.ts's triggers into the committed custom migration (the one whose tag ends
 * in `_enforcement`), and db/completion-gate.ts's into the hand-written tail of the
 * `_session_completion_gate` migration (after drizzle-kit's columns), and the PL/pgSQL rendering of
 * every current trigger into db/pg/enforcement.sql (PostgreSQL). Run after changing the task
 * machine's edges, the append-only table list or what the completion gate reads:
 * `npm run db:enforcement`. A change after release belongs in a new migration instead.
 */
import fs from "node:fs";
import path from "node:path";
import { completionGateMigrationSql } from "@/db/completion-gate";
import { enforcementMigrationSql } from "@/db/enforcement";
import { pgEnforcementSql } from "@/db/triggers/pg-enforcement";

const folder = path.join(process.cwd(), "db", "migrations");
const journal = JSON.parse(fs.readFileSync(path.join(folder, "meta", "_journal.json"), "utf8")) as { entries: { tag: string }[] };
const fileOf = (suffix: string, hint: string) => {
  const entry = journal.entries.find((e) => e.tag.endsWith(suffix));
  if (!entry) throw new Error(`no *${suffix} migration in the journal: run \`${hint}\``);
  return path.join(folder, `${entry.tag}.sql`);
};

const enforcement = fileOf("_enforcement", "npx drizzle-kit generate --custom --name=enforcement");
fs.writeFileSync(enforcement, enforcementMigrationSql());
console.log(`wrote ${path.relative(process.cwd(), enforcement)}`);

// The gate's migration starts with drizzle-kit's statements; everything from the generated
// header on is replaced.
const gate = fileOf("_session_completion_gate", "npx drizzle-kit generate --name=session_completion_gate");
const tail = completionGateMigrationSql();
const header = tail.slice(0, tail.indexOf("\n"));
const current = fs.readFileSync(gate, "utf8");
const at = current.indexOf(header);
const generated = (at === -1 ? current : current.slice(0, at)).replace(/(?:\n?--> statement-breakpoint\n?)?\s*$/, "");
fs.writeFileSync(gate, `${generated}\n--> statement-breakpoint\n${tail}\n`);
console.log(`wrote ${path.relative(process.cwd(), gate)}`);

const pgScript = path.join(process.cwd(), "db", "pg", "enforcement.sql");
fs.mkdirSync(path.dirname(pgScript), { recursive: true });
fs.writeFileSync(pgScript, pgEnforcementSql());
console.log(`wrote ${path.relative(process.cwd(), pgScript)}`);
