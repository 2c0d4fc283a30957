/**
 * Every shipped migration is held to its recorded hash (db/frozen-migrations.ts), and the check has
 * teeth: an edited, removed or unrecorded migration is named, and `npm run db:freeze` refuses to
 * re-record an edited one.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { FROZEN_FILE, MIGRATION_FOLDERS, freezeReport, journalMigrations } from "./frozen-migrations";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const copies: string[] = [];
afterAll(() => copies.forEach((dir) => fs.rmSync(dir, { recursive: true, force: true })));

/** A copy of the migration folders and the recorded hashes, to break. */
function copyOfRoot(): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "proofgate-frozen-"));
  copies.push(root);
  for (const folder of MIGRATION_FOLDERS) fs.cpSync(path.join(ROOT, folder), path.join(root, folder), { recursive: true });
  fs.copyFileSync(path.join(ROOT, FROZEN_FILE), path.join(root, FROZEN_FILE));
  return root;
}

const freeze = (root: string) =>
  spawnSync(process.execPath, [path.join(ROOT, "node_modules", "tsx", "dist", "cli.mjs"), path.join(ROOT, "scripts", "freeze-migrations.ts")], {
    cwd: root,
    encoding: "utf8",
  });

describe("shipped migrations are frozen", () => {
  it("every migration of both journals has its recorded hash, and every recorded one is still listed", () => {
    expect(journalMigrations(ROOT).length).toBeGreaterThan(20);
    // Not empty: `npm run db:freeze` records a new migration; an edited one must be restored and its change written as a new migration.
    expect(freezeReport(ROOT)).toEqual({ changed: [], missing: [], unrecorded: [] });
  });

  it("names a migration edited after it shipped, one removed, and one not yet recorded", () => {
    const root = copyOfRoot();
    fs.appendFileSync(path.join(root, "db/migrations/0001_enforcement.sql"), "\n-- an edit\n");
    const journalFile = path.join(root, "db/migrations-pg/meta/_journal.json");
    const journal = JSON.parse(fs.readFileSync(journalFile, "utf8")) as { entries: { tag: string }[] };
    const last = journal.entries.pop()!;
    journal.entries.push({ ...last, tag: "0005_renamed" });
    fs.writeFileSync(journalFile, JSON.stringify(journal));
    fs.writeFileSync(path.join(root, "db/migrations-pg/0005_renamed.sql"), "SELECT 1;");
    expect(freezeReport(root)).toEqual({
      changed: ["db/migrations/0001_enforcement.sql"],
      missing: [`db/migrations-pg/${last.tag}.sql`],
      unrecorded: ["db/migrations-pg/0005_renamed.sql"],
    });
    // The script will not re-record history: it names the edit and writes nothing.
    const before = fs.readFileSync(path.join(root, FROZEN_FILE), "utf8");
    const refused = freeze(root);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain("db/migrations/0001_enforcement.sql differs from its recorded hash: a shipped migration must not change");
    expect(fs.readFileSync(path.join(root, FROZEN_FILE), "utf8")).toBe(before);
  });

  it("db:freeze records a new migration, and only that one", () => {
    const root = copyOfRoot();
    const journalFile = path.join(root, "db/migrations/meta/_journal.json");
    const journal = JSON.parse(fs.readFileSync(journalFile, "utf8")) as { entries: { tag: string; idx: number }[] };
    journal.entries.push({ ...journal.entries.at(-1)!, idx: journal.entries.length, tag: "0099_new" });
    fs.writeFileSync(journalFile, JSON.stringify(journal));
    fs.writeFileSync(path.join(root, "db/migrations/0099_new.sql"), "SELECT 1;");
    const before = JSON.parse(fs.readFileSync(path.join(root, FROZEN_FILE), "utf8")) as Record<string, string>;
    const run = freeze(root);
    expect(run.stderr).toBe("");
    expect(run.status).toBe(0);
    const after = JSON.parse(fs.readFileSync(path.join(root, FROZEN_FILE), "utf8")) as Record<string, string>;
    expect(after).toEqual({ ...before, "db/migrations/0099_new.sql": expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect(freezeReport(root)).toEqual({ changed: [], missing: [], unrecorded: [] });
  });
});
