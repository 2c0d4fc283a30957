/**
 * `npm run db:freeze`: records the SHA-256 of every migration that has none yet in
 * db/frozen-migrations.json (db/frozen-migrations.ts). Run it when a new migration is added. A
 * recorded migration is never re-hashed: if one was edited, this refuses and names it — restore the
 * file and put the change in a new migration.
 */
import fs from "node:fs";
import path from "node:path";
import { FROZEN_FILE, freezeReport, frozenHashes, sha256Of } from "../db/frozen-migrations";

const root = process.cwd();
const report = freezeReport(root);
if (report.changed.length > 0 || report.missing.length > 0) {
  for (const file of report.changed)
    console.error(`${file} differs from its recorded hash: a shipped migration must not change (restore it; write a new migration)`);
  for (const file of report.missing) console.error(`${file} is recorded but no journal lists it, or its file is gone: a shipped migration must not be removed`);
  process.exit(1);
}
const frozen = frozenHashes(root);
for (const file of report.unrecorded) frozen[file] = sha256Of(path.join(root, file));
fs.writeFileSync(path.join(root, FROZEN_FILE), `${JSON.stringify(frozen, null, 2)}\n`);
console.log(report.unrecorded.length === 0 ? "every migration is already recorded" : `recorded ${report.unrecorded.join(", ")}`);
