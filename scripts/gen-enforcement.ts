/**
 * Writes db/enforcement.ts's triggers into the committed custom migration (the one whose tag ends
 * in `_enforcement`), and db/completion-gate.ts's into the hand-written tail of the
 * `_session_completion_gate` migration (after drizzle-kit's columns), and the PL/pgSQL rendering of
 * every current trigger into the PostgreSQL custom migration whose tag ends in `_enforcement`
 * (db/migrations-pg/0001_enforcement.sql). Run after changing the task machine's edges, the
 * append-only table list or what the completion gate reads: `npm run db:enforcement`. A change
 * after release belongs in a new migration instead.
 */
import fs from "node:fs";
import path from "node:path";
import { completionGateMigrationSql } from "@/db/completion-gate";
import { enforcementMigrationSql } from "@/db/enforcement";
import { pgEnforcementSql } from "@/db/triggers/pg-enforcement";

/** The migration of `folder`'s journal whose tag ends in `suffix`. */
const migrationOf = (folder: string, suffix: string, hint: string) => {
  const journal = JSON.parse(fs.readFileSync(path.join(folder, "meta", "_journal.json"), "utf8")) as { entries: { tag: string }[] };
  const entry = journal.entries.find((e) => e.tag.endsWith(suffix));
  if (!entry) throw new Error(`no *${suffix} migration in ${path.relative(process.cwd(), folder)}'s journal: run \`${hint}\``);
  return path.join(folder, `${entry.tag}.sql`);
};
const folder = path.join(process.cwd(), "db", "migrations");
const fileOf = (suffix: string, hint: string) => migrationOf(folder, suffix, hint);

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
const generated = (at === -1 ? current : current.slice(0, at)).trimEnd().replace(/\n?--> statement-breakpoint$/, "");
fs.writeFileSync(gate, `${generated}\n--> statement-breakpoint\n${tail}\n`);
console.log(`wrote ${path.relative(process.cwd(), gate)}`);

// PostgreSQL: the whole custom migration is the rendering (statement breakpoints included).
const pgScript = migrationOf(
  path.join(process.cwd(), "db", "migrations-pg"),
  "_enforcement",
  "npx drizzle-kit generate --custom --config=drizzle.pg.config.ts --name=enforcement",
);
fs.writeFileSync(pgScript, pgEnforcementSql());
console.log(`wrote ${path.relative(process.cwd(), pgScript)}`);
