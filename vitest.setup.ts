// Builds dist/cli.mjs once per test run, so CLI tests spawn the current code.
export default async function setup(): Promise<void> {
  const { buildCli } = await import("./scripts/build-cli.mjs");
  await buildCli();
}
