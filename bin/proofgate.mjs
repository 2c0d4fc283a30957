#!/usr/bin/env node
// The `proofgate` executable: runs the bundled CLI, building it first on a fresh checkout.
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import path from "node:path";

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const bundle = path.join(root, "dist", "cli.mjs");
if (!existsSync(bundle)) {
  const cwd = process.cwd();
  process.chdir(root);
  const { buildCli } = await import("../scripts/build-cli.mjs");
  await buildCli();
  process.chdir(cwd);
}
await import(bundle);
