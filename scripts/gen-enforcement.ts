/**
 * Writes db/enforcement.ts's triggers into the committed custom migration (the one whose tag ends
 * in `_enforcement`), and db/completion-gate.ts's into the hand-written tail of the
 * `_session_completion_gate` migration (after drizzle-kit's columns), and the PL/pgSQL rendering of
 * every current trigger into the PostgreSQL custom migration whose tag ends in `_enforcement`
 * (db/migrations-pg/0001_enforcement.sql). Run after changing the task machine's edges, the
 * append-only table list or what the completion gate reads: `npm run db:enforcement`.
 *
 * Those migrations have shipped and are frozen (db/frozen-migrations.ts): a file this would change
 * is left alone and named, and the script exits 1 — the change belongs in a new migration.
 */
import fs from "node:fs";
import path from "node:path";
import { completionGateMigrationSql } from "@/db/completion-gate";
import { enforcementMigrationSql } from "@/db/enforcement";
import { pgEnforcementSql } from "@/db/triggers/pg-enforcement";
import { frozenHashes } from "@/db/frozen-migrations";

/** The migration of `folder`'s journal whose tag ends in `suffix`. */
const migrationOf = (folder: string, suffix: string, hint: string) => {
  const journal = JSON.parse(fs.readFileSync(path.join(folder, "meta", "_journal.json"), "utf8")) as { entries: { tag: string }[] };
  const entry = journal.entries.find((e) => e.tag.endsWith(suffix));
  if (!entry) throw new Error(`no *${suffix} migration in ${path.relative(process.cwd(), folder)}'s journal: run \`${hint}\``);
  return path.join(folder, `${entry.tag}.sql`);
};
const frozen = frozenHashes(process.cwd());
let refused = 0;
/** Write `text` to a migration, unless the migration has shipped and `text` would change it. */
function writeMigration(file: string, text: string): void {
  const relative = path.relative(process.cwd(), file);
  if (fs.existsSync(file) && fs.readFileSync(file, "utf8") === text) return void console.log(`${relative} is up to date`);
  if (relative in frozen) {
    refused += 1;
    return void console.error(`${relative} has shipped and would change: write the change as a new migration instead`);
  }
  fs.writeFileSync(file, text);
  console.log(`wrote ${relative}`);
}
const folder = path.join(process.cwd(), "db", "migrations");
const fileOf = (suffix: string, hint: string) => migrationOf(folder, suffix, hint);

const enforcement = fileOf("_enforcement", "npx drizzle-kit generate --custom --name=enforcement");
writeMigration(enforcement, enforcementMigrationSql());

// The gate's migration starts with drizzle-kit's statements; everything from the generated
// header on is replaced.
const gate = fileOf("_session_completion_gate", "npx drizzle-kit generate --name=session_completion_gate");
const tail = completionGateMigrationSql();
const header = tail.slice(0, tail.indexOf("\n"));
const current = fs.readFileSync(gate, "utf8");
const at = current.indexOf(header);
const generated = (at === -1 ? current : current.slice(0, at)).trimEnd().replace(/\n?--> statement-breakpoint$/, "");
writeMigration(gate, `${generated}\n--> statement-breakpoint\n${tail}\n`);

// PostgreSQL: the whole custom migration is the rendering (statement breakpoints included).
const pgScript = migrationOf(
  path.join(process.cwd(), "db", "migrations-pg"),
  "_enforcement",
  "npx drizzle-kit generate --custom --config=drizzle.pg.config.ts --name=enforcement",
);
writeMigration(pgScript, pgEnforcementSql());
if (refused > 0) process.exit(1);
