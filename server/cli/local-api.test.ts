import { describe, expect, it } from "vitest";
import { RUNTIME_SESSION_ENV as SCHEMAS_RUNTIME_SESSION_ENV } from "@/server/services/runtime/schemas";
import { RUNTIME_SESSION_ENV } from "./local-api";

describe("local mode's runtime session", () => {
  it("reads the variable the runtime schemas name (repeated so a call without one loads none of them)", () => {
    expect(RUNTIME_SESSION_ENV).toBe(SCHEMAS_RUNTIME_SESSION_ENV);
  });
});
