import { describe, expect, it } from "vitest";
import { appRouter } from "@/server/api/root";
import { TOOLS } from "./tools";

interface ProcedureDef {
  type: "query" | "mutation" | "subscription";
  inputs: unknown[];
}
const procedures = appRouter._def.procedures as unknown as Record<string, { _def: ProcedureDef }>;

describe("the MCP tools", () => {
  it("each take exactly the input schema of the procedure they call (the same object, not a copy) and call it as its kind", () => {
    for (const tool of TOOLS) {
      const path = tool.call === "session-state" ? "session.get" : tool.call.path;
      const procedure = procedures[path];
      expect(procedure, `${tool.name} → ${path}`).toBeDefined();
      expect(procedure!._def.inputs, tool.name).toHaveLength(1);
      expect(procedure!._def.inputs[0], tool.name).toBe(tool.input);
      if (tool.call !== "session-state") expect(procedure!._def.type, tool.name).toBe(tool.call.kind);
    }
  });

  it("are named in snake_case, once each", () => {
    const names = TOOLS.map((t) => t.name);
    expect(new Set(names).size).toBe(names.length);
    for (const name of names) expect(name).toMatch(/^[a-z]+(_[a-z]+)+$/);
  });
});
