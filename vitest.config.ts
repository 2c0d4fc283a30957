import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

/**
 * The PostgreSQL tests: they need the pg project's throwaway cluster (test/support/pg-cluster.ts).
 * The engines.test files and the API suites named here run on both engines (test/support/engines.ts),
 * their SQLite half included: the sqlite project leaves them out, so that half runs once. test/crash's
 * engines test runs the crash run's checks on PostgreSQL.
 */
const PG_TESTS = [
  "db/pg/**/*.test.ts",
  "db/schema-pg.test.ts",
  "db/enforcement-pg.test.ts",
  "server/services/copy/**/*.test.ts",
  "server/services/engines.test.ts",
  "server/api/engines-procedures.test.ts",
  "server/api/roles-matrix.test.ts",
  "server/api/auth-security.test.ts",
  "server/api/personal-tokens.test.ts",
  "server/api/http.test.ts",
  "server/api/http-serve.test.ts",
  "server/api/hooks.test.ts",
  "server/**/*.engines.test.ts",
  "test/crash/*.engines.test.ts",
];
const EXCLUDE = ["node_modules/**", "e2e/**", ".next/**", "dist/**"];

const resolve = { alias: { "@": fileURLToPath(new URL(".", import.meta.url)) } };
/** What every project shares. Projects do not `extends: true` the root: they would each inherit, and run again, its globalSetup. */
const shared = {
  environment: "node",
  pool: "forks",
  // The machine is shared and noisy: a slow run is not a failure (speed is measured by `npm run bench`).
  testTimeout: 30_000,
} as const;

export default defineConfig({
  resolve,
  test: {
    // The root's globalSetup runs once per run, whichever projects run: it builds dist/cli.mjs for the CLI tests.
    globalSetup: ["./vitest.setup.ts"],
    projects: [
      { resolve, test: { ...shared, name: "sqlite", include: ["**/*.test.ts"], exclude: [...EXCLUDE, ...PG_TESTS] } },
      // One throwaway PostgreSQL cluster per run (skipped with a message when PostgreSQL is not installed).
      { resolve, test: { ...shared, name: "pg", include: PG_TESTS, exclude: EXCLUDE, globalSetup: ["./test/support/pg-cluster.ts"] } },
    ],
  },
});
