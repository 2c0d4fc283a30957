// Builds dist/cli.mjs once per test run, so CLI tests spawn the current code.
export default async function setup(): Promise<void> {
  // A developer's shell may name a real ledger: no test may open it by default (the test processes
  // are forked after this runs, and inherit the environment without it).
  delete process.env.PROOFGATE_DATABASE_URL;
  const { buildCli } = await import("./scripts/build-cli.mjs");
  await buildCli();
}
