import { fileURLToPath } from "node:url";
import picomatch from "picomatch";
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
/**
 * The test files that change what a process shares — an environment variable, a global such as
 * `Date` (fake timers), a module mock, a process-wide singleton (`getDb`) or a process listener —
 * and so run each in a process of its own (`isolate: true`). Every other file shares its worker
 * process with the files before it (`isolate: false`): it must leave nothing behind.
 * test/isolation.test.ts fails when a file that does one of those things is missing here.
 */
export const ISOLATED_FILES = [
  "app/(dashboard)/analytics/sections.test.ts",
  "db/client.test.ts",
  "server/api/engines-procedures.test.ts",
  "server/api/http-serve.test.ts",
  "server/api/roles-matrix.test.ts",
  "server/auth/secret.test.ts",
  "server/cli/commands/webhooks.engines.test.ts",
  "server/cli/hook-bundle.test.ts",
  "server/cli/progress.test.ts",
  "server/services/analytics/analytics.engines.test.ts",
  "server/services/analytics/overview.test.ts",
  "server/services/analytics/rollups.test.ts",
  "server/services/approvals/inbox.engines.test.ts",
  "server/services/copy/cli.test.ts",
  "server/services/dashboard-reads.engines.test.ts",
  "server/services/overview/get.engines.test.ts",
  "server/services/webhooks/crash.engines.test.ts",
  "server/services/webhooks/retention.engines.test.ts",
  "server/services/webhooks/webhooks.engines.test.ts",
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

/**
 * Files share their worker process (`isolate: false`: modules load once per worker, not once per
 * file), except those in test/isolated-files.ts, which change process-wide state and run alone in a
 * process of their own; test/isolation.test.ts keeps that list complete.
 */
const isPg = picomatch(PG_TESTS);
const ISOLATED_SQLITE = ISOLATED_FILES.filter((file) => !isPg(file));
const ISOLATED_PG = ISOLATED_FILES.filter((file) => isPg(file));
const PG_SETUP = ["./test/support/pg-cluster.ts"];

export default defineConfig({
  resolve,
  test: {
    // The root's globalSetup runs once per run, whichever projects run: it builds dist/cli.mjs for the CLI tests.
    globalSetup: ["./vitest.setup.ts"],
    // Two test files at a time on a 2-core machine: many of them wait on child processes (the CLI, a
    // server) or on PostgreSQL, so a second worker fills the waits. vitest's default is cores - 1.
    maxWorkers: 2,
    projects: [
      { resolve, test: { ...shared, name: "sqlite", isolate: false, include: ["**/*.test.ts"], exclude: [...EXCLUDE, ...PG_TESTS, ...ISOLATED_FILES] } },
      { resolve, test: { ...shared, name: "sqlite-isolated", isolate: true, include: ISOLATED_SQLITE, exclude: EXCLUDE } },
      // One throwaway PostgreSQL cluster per project (skipped with a message when PostgreSQL is not installed).
      { resolve, test: { ...shared, name: "pg", isolate: false, include: PG_TESTS, exclude: [...EXCLUDE, ...ISOLATED_FILES], globalSetup: PG_SETUP } },
      { resolve, test: { ...shared, name: "pg-isolated", isolate: true, include: ISOLATED_PG, exclude: EXCLUDE, globalSetup: PG_SETUP } },
    ],
  },
});
