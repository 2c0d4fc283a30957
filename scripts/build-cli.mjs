// Bundles the `proofgate` command line into dist/cli.mjs so each call starts in plain Node
// without compiling TypeScript. Dependencies stay in node_modules (--packages=external).
import { build } from "esbuild";

export async function buildCli() {
  await build({
    entryPoints: ["server/cli/entry.ts"],
    outfile: "dist/cli.mjs",
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    packages: "external",
    tsconfig: "tsconfig.json",
    sourcemap: "linked",
    logLevel: "warning",
  });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await buildCli();
  console.log("built dist/cli.mjs");
}
