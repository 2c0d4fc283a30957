/**
 * The layer rules in eslint.config.mjs bite: the project's own config lints one import at a time
 * as if it were written in a file of each layer (the files need not exist), and each forbidden
 * import is refused with its layer's message while the imports a layer relies on pass; and the
 * rule against super-linear regular expressions fails on a probe with one.
 */
import path from "node:path";
import { fileURLToPath } from "node:url";
import { ESLint } from "eslint";
import { beforeAll, describe, expect, it } from "vitest";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const RULE = "@typescript-eslint/no-restricted-imports";
let eslint: ESLint;

beforeAll(async () => {
  // The files linted here do not exist, so the type-aware rules (which need each file in the
  // TypeScript project) are off: this test is about the import rules.
  eslint = new ESLint({
    cwd: ROOT,
    overrideConfigFile: path.join(ROOT, "eslint.config.mjs"),
    overrideConfig: {
      languageOptions: { parserOptions: { projectService: false } },
      rules: { "@typescript-eslint/no-floating-promises": "off", "@typescript-eslint/no-misused-promises": "off" },
    },
  });
  await eslint.lintText("export {};\n", { filePath: path.join(ROOT, "server/domain/warm-up.ts") });
}, 120_000);

/** The layer-rule messages for `code` written in `file` (relative to the project root). */
async function refusals(file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(`${code}\n`, { filePath: path.join(ROOT, file) });
  expect(
    result!.messages.filter((m) => m.fatal),
    `${file} did not parse`,
  ).toEqual([]);
  return result!.messages.filter((m) => m.ruleId === RULE).map((m) => m.message);
}

const use = (specifier: string) => `import x from "${specifier}";\nexport default x;`;
const useType = (specifier: string) => `import type { X } from "${specifier}";\nexport type Y = X;`;

describe("server/domain imports only the domain, zod and picomatch", () => {
  const file = "server/domain/some-rule.ts";
  it.each([
    "@/db/client",
    "@/db/schema",
    "../../db/client",
    "@/server/api/root",
    "../api/root",
    "@/server/services/session/create",
    "../services/session/create",
    "@/server/cli/index",
    "@/app/trpc/server",
    "next/navigation",
    "react",
    "@trpc/server",
    "drizzle-orm",
    "better-sqlite3",
    "better-auth",
    "node:fs",
    "fs",
    "node:child_process",
  ])("refuses %s", async (specifier) => {
    expect(await refusals(file, use(specifier))).toEqual([expect.stringContaining("server/domain is pure")]);
  });

  it("refuses a type from the database too", async () => {
    expect(await refusals(file, useType("@/db/client"))).toEqual([expect.stringContaining("server/domain is pure")]);
  });

  it.each(["zod", "picomatch", "./errors", "@/server/domain/errors"])("allows %s", async (specifier) => {
    expect(await refusals(file, use(specifier))).toEqual([]);
  });
});

describe("services never import the API, the CLI or app/", () => {
  const file = "server/services/session/some-verb.ts";
  it.each(["@/server/api/root", "../../api/root", "@/server/cli/index", "../../cli/http"])("refuses %s", async (specifier) => {
    expect(await refusals(file, use(specifier))).toEqual([expect.stringContaining("Services never import the API or the CLI")]);
  });

  it.each(["@/app/trpc/server", "../../../app/trpc/server"])("refuses %s", async (specifier) => {
    expect(await refusals(file, use(specifier))).toEqual([expect.stringContaining("Services never import the dashboard")]);
  });

  it("refuses a type from the API too", async () => {
    expect(await refusals(file, useType("@/server/api/root"))).toEqual([expect.stringContaining("Services never import the API")]);
  });

  it.each(["@/db/client", "@/db/schema", "@/server/domain/vocabulary", "../context", "./schemas", "drizzle-orm"])("allows %s", async (specifier) => {
    expect(await refusals(file, use(specifier))).toEqual([]);
  });
});

describe("the API never imports the CLI or app/", () => {
  const file = "server/api/routers/session.ts";
  it.each(["@/server/cli/index", "../../cli/http"])("refuses %s", async (specifier) => {
    expect(await refusals(file, use(specifier))).toEqual([expect.stringContaining("The API never imports the CLI")]);
  });

  it.each(["@/app/trpc/server", "../../../app/trpc/server"])("refuses %s", async (specifier) => {
    expect(await refusals(file, use(specifier))).toEqual([expect.stringContaining("The API never imports the dashboard")]);
  });

  it.each(["@/server/services/session/create", "@/server/domain/errors", "../trpc", "@/db/client"])("allows %s", async (specifier) => {
    expect(await refusals(file, use(specifier))).toEqual([]);
  });
});

describe("db/ imports nothing from server/ but the domain", () => {
  const file = "db/schema/sessions.ts";
  it.each(["@/server/services/session/create", "../../server/api/root", "@/server/cli/index", "@/server/auth/auth"])("refuses %s", async (specifier) => {
    expect(await refusals(file, use(specifier))).toEqual([expect.stringContaining("db/ imports nothing from server/ but the domain")]);
  });

  it("refuses app/", async () => {
    expect(await refusals(file, use("@/app/trpc/server"))).toEqual([expect.stringContaining("db/ never imports the dashboard")]);
  });

  it.each(["@/server/domain/vocabulary", "../../server/domain/task-machine", "./columns", "drizzle-orm/sqlite-core"])("allows %s", async (specifier) => {
    expect(await refusals(file, use(specifier))).toEqual([]);
  });
});

describe("app/ reaches the server through tRPC only", () => {
  const page = "app/(dashboard)/sessions/page.tsx";
  it.each(["@/db/client", "@/db/schema", "../../db/client", "./../../db/client"])("refuses %s", async (specifier) => {
    expect(await refusals(page, use(specifier))).toEqual([expect.stringContaining("app/ never reads the database")]);
  });

  it("refuses a type from the database too", async () => {
    expect(await refusals(page, useType("@/db/schema"))).toEqual([expect.stringContaining("app/ never reads the database")]);
  });

  it.each([
    "@/server/services/admin/users",
    "../../server/services/admin/users",
    "@/server/api/root",
    "@/server/auth/instance",
    "@/server/cli/index",
    "@/server/demo/generate",
  ])("refuses the runtime of %s", async (specifier) => {
    expect(await refusals(page, use(specifier))).toEqual([expect.stringContaining("app/ reaches the server only through tRPC")]);
  });

  it.each(["@/server/api/root", "@/server/services/analytics/overview"])("allows a type from %s", async (specifier) => {
    expect(await refusals(page, useType(specifier))).toEqual([]);
  });

  it.each(["@/server/domain/vocabulary", "@/app/trpc/server", "./sessions-view", "next/navigation"])("allows %s", async (specifier) => {
    expect(await refusals(page, use(specifier))).toEqual([]);
  });

  it.each(["app/trpc/server.tsx", "app/api/trpc/[trpc]/route.ts", "app/api/auth/[...all]/route.ts"])("lets the wiring file %s build the API", async (file) => {
    expect(await refusals(file, use("@/db/client"))).toEqual([]);
    expect(await refusals(file, use("@/server/auth/instance"))).toEqual([]);
  });

  it("keeps the exception to those wiring files", async () => {
    expect(await refusals("app/trpc/client.tsx", use("@/db/client"))).toEqual([expect.stringContaining("app/ never reads the database")]);
    expect(await refusals("app/api/trpc/[trpc]/helpers.ts", use("@/db/client"))).toEqual([expect.stringContaining("app/ never reads the database")]);
  });
});

describe("production code never imports test support", () => {
  it.each([
    ["server/cli/commands/sessions.ts", "@/test/support/api-helpers"],
    ["server/services/log/log-interaction.ts", "../../../test/support/log-helpers"],
    ["server/domain/task-machine.ts", "@/test/support/db-fixtures"],
    ["app/(dashboard)/page.tsx", "@/test/support/analytics-scenario"],
    ["app/trpc/server.tsx", "@/test/support/api-helpers"],
    ["db/client.ts", "../test/support/db-fixtures"],
    ["server/api/root.ts", "@/e2e/fixtures"],
    ["server/api/root.ts", "vitest"],
  ])("%s may not import %s", async (file, specifier) => {
    const messages = await refusals(file, use(specifier));
    expect(messages).toContainEqual(expect.stringMatching(/^'[^']+' import is restricted .*Production code never imports/));
  });

  it.each([
    ["server/services/log/list-logs.test.ts", "@/server/api/root"],
    ["server/services/log/list-logs.test.ts", "@/test/support/log-helpers"],
    ["server/domain/task-machine.test.ts", "@/db/client"],
    ["app/(dashboard)/analytics/sections.test.ts", "@/db/client"],
    ["test/support/api-helpers.ts", "@/server/api/root"],
    ["test/support/api-helpers.ts", "vitest"],
    ["e2e/fixtures.ts", "@/db/client"],
  ])("the test file %s may import %s", async (file, specifier) => {
    expect(await refusals(file, use(specifier))).toEqual([]);
  });
});

// Issue 30, item 1: `npm run lint` refuses a regular expression that backtracks or rescans
// super-linearly, anywhere in the codebase (a probe under server/domain, never written).
describe("the lint rule against super-linear regular expressions", () => {
  async function regexpErrors(code: string): Promise<string[]> {
    const [result] = await eslint.lintText(code, { filePath: path.join(ROOT, "server/domain/regexp-probe.ts") });
    return result!.messages.filter((m) => m.ruleId?.startsWith("regexp/")).map((m) => m.ruleId!);
  }

  it("fails on a quadratic pattern: nested quantifiers, and an unanchored run that rescans", async () => {
    expect(await regexpErrors("export const nested = (s: string) => /^(?:a+)+$/.test(s);\n")).toContain("regexp/no-super-linear-backtracking");
    expect(await regexpErrors("export const rescan = (s: string) => /a+b/.test(s);\n")).toContain("regexp/no-super-linear-move");
  });

  it("passes a linear one", async () => {
    expect(await regexpErrors("export const linear = (s: string) => /^[a-z]+$/.test(s);\n")).toEqual([]);
  });
});
