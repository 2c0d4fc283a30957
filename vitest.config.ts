import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

export default defineConfig({
  resolve: { alias: { "@": fileURLToPath(new URL(".", import.meta.url)) } },
  test: {
    include: ["**/*.test.ts"],
    exclude: ["node_modules/**", "e2e/**", ".next/**", "dist/**"],
    environment: "node",
    pool: "forks",
    globalSetup: ["./vitest.setup.ts"],
    // The machine is shared and noisy: a slow run is not a failure (speed is measured by `npm run bench`).
    testTimeout: 30_000,
  },
});
