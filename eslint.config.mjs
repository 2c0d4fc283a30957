import nextVitals from "eslint-config-next/core-web-vitals";
import nextTs from "eslint-config-next/typescript";
import drizzle from "eslint-plugin-drizzle";
import regexp from "eslint-plugin-regexp";
import tseslint from "typescript-eslint";

/*
 * The layers (README, "Architecture"): app/ and server/cli/ call the API, the API calls services,
 * services apply domain rules and write the database; server/domain is pure. Each layer's block
 * below lists what its files may not import. A pattern matches the import as written, so each one
 * names the layer both as an alias (`@/db/client`) and as a relative path that climbs out to it
 * (`../../db/client`). Tests and test support (test/, e2e/, *.test.ts) set up whole worlds and may
 * import any layer; production code may never import test support.
 */
const TEST_FILES = ["**/*.test.ts", "**/*.test.tsx", "test/**", "e2e/**", "vitest.config.ts", "vitest.setup.ts"];
/** The only files in app/ that wire the API to Next.js, and so build it from the database and auth. */
const APP_WIRING = ["app/trpc/server.tsx", "app/api/**/route.ts"];

const NO_TEST_SUPPORT = [
  {
    regex: "^(@/|(\\./)?(\\.\\./)+)(test|e2e)(/|$)",
    message: "Production code never imports test support: test/support/ and e2e/ are for tests only.",
  },
  { regex: "^vitest(/|$)", message: "Production code never imports the test runner (vitest)." },
];
const DOMAIN = [
  {
    regex: "^(?!\\.|@/server/domain/|zod(/|$)|picomatch$)",
    message: "server/domain is pure: it imports only other domain modules, zod and picomatch (no database, API, services, CLI, app, framework or node I/O).",
  },
  { regex: "(^|/)\\.\\.(/|$)", message: "server/domain is pure: a relative import may not leave server/domain." },
];
const SERVICES = [
  {
    regex: "^(@/server/|(\\./)?(\\.\\./)+(server/)?)(api|cli)(/|$)",
    message: "Services never import the API or the CLI: those layers call services, not the other way round.",
  },
  { regex: "^(@/|(\\./)?(\\.\\./)+)app(/|$)", message: "Services never import the dashboard (app/)." },
];
const API = [
  { regex: "^(@/server/|(\\./)?(\\.\\./)+(server/)?)cli(/|$)", message: "The API never imports the CLI: the CLI calls the API or services." },
  { regex: "^(@/|(\\./)?(\\.\\./)+)app(/|$)", message: "The API never imports the dashboard (app/)." },
];
const DB = [
  {
    regex: "^(@/server/|(\\./)?(\\.\\./)+server/)(?!domain(/|$))",
    message: "db/ imports nothing from server/ but the domain (its vocabulary and the rules the triggers enforce).",
  },
  { regex: "^(@/|(\\./)?(\\.\\./)+)app(/|$)", message: "db/ never imports the dashboard (app/)." },
];
const APP = [
  {
    regex: "^(@/|(\\./)?(\\.\\./)+)db(/|$)",
    message: "app/ never reads the database: ask the API (a tRPC procedure, server-side through app/trpc/server.tsx).",
  },
  {
    regex: "^(@/server/|(\\./)?(\\.\\./)+server/)(?!domain(/|$))",
    allowTypeImports: true,
    message: "app/ reaches the server only through tRPC (app/trpc/); from server/ code it may import types (import type) and server/domain.",
  },
];
const restrict = (...patterns) => ["error", { patterns: patterns.flat() }];

export default tseslint.config(
  {
    ignores: [".next/**", "node_modules/**", "dist/**", "db/migrations/**", "next-env.d.ts", "test-results/**", "playwright-report/**"],
  },
  ...nextVitals,
  ...nextTs,
  {
    plugins: { drizzle },
    rules: {
      // Every UPDATE and DELETE issued through a Drizzle handle must be scoped by a WHERE.
      "drizzle/enforce-update-with-where": ["error", { drizzleObjectName: ["db", "tx"] }],
      "drizzle/enforce-delete-with-where": ["error", { drizzleObjectName: ["db", "tx"] }],
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "@typescript-eslint/consistent-type-imports": ["error", { fixStyle: "inline-type-imports" }],
    },
  },
  // Issue 30: a regular expression that backtracks or rescans super-linearly freezes the event loop
  // on hostile input (the redaction rule once took minutes on 1 MB of `a_a_a_…`), so both classes
  // are errors everywhere. The analysis sees only literals, and treats a leading lookbehind as
  // stopping the rescans even where it does not: redact.test.ts runs each redaction rule on 1 MB
  // of its worst case as well.
  {
    plugins: { regexp },
    rules: { "regexp/no-super-linear-backtracking": "error", "regexp/no-super-linear-move": "error" },
  },
  // The services are asynchronous (one engine is PostgreSQL): a promise nobody awaits is a write
  // that may not have happened, or a refusal nobody sees. Type-aware, so only for TypeScript files.
  {
    files: ["**/*.ts", "**/*.tsx"],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      "@typescript-eslint/no-floating-promises": "error",
      "@typescript-eslint/no-misused-promises": ["error", { checksVoidReturn: { attributes: false } }],
    },
  },
  // One block per file: a later block's options replace an earlier one's, so each repeats NO_TEST_SUPPORT.
  { files: ["**/*.ts", "**/*.tsx"], ignores: TEST_FILES, rules: { "@typescript-eslint/no-restricted-imports": restrict(NO_TEST_SUPPORT) } },
  { files: ["server/domain/**/*.ts"], ignores: TEST_FILES, rules: { "@typescript-eslint/no-restricted-imports": restrict(DOMAIN, NO_TEST_SUPPORT) } },
  { files: ["server/services/**/*.ts"], ignores: TEST_FILES, rules: { "@typescript-eslint/no-restricted-imports": restrict(SERVICES, NO_TEST_SUPPORT) } },
  { files: ["server/api/**/*.ts"], ignores: TEST_FILES, rules: { "@typescript-eslint/no-restricted-imports": restrict(API, NO_TEST_SUPPORT) } },
  { files: ["db/**/*.ts"], ignores: TEST_FILES, rules: { "@typescript-eslint/no-restricted-imports": restrict(DB, NO_TEST_SUPPORT) } },
  {
    files: ["app/**/*.ts", "app/**/*.tsx"],
    ignores: [...TEST_FILES, ...APP_WIRING],
    rules: { "@typescript-eslint/no-restricted-imports": restrict(APP, NO_TEST_SUPPORT) },
  },
);
