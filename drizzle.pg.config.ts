import { defineConfig } from "drizzle-kit";

/**
 * The PostgreSQL migrations (issue 21), from the generated twins of db/schema (`npm run db:pg-schema`):
 * `npx drizzle-kit generate --config=drizzle.pg.config.ts --name=<what>`.
 */
export default defineConfig({
  dialect: "postgresql",
  schema: "./db/schema-pg/index.ts",
  out: "./db/migrations-pg",
  dbCredentials: { url: process.env.PROOFGATE_DATABASE_URL ?? "postgres://localhost:5432/proofgate" },
  strict: true,
  verbose: true,
});
