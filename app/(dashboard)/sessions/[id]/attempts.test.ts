import { describe, expect, it } from "vitest";
import { splitAttempts } from "./attempts";

const moves = (...names: string[]) => names.map((move, id) => ({ id, move }));

describe("splitAttempts", () => {
  it("keeps a task that was never reset as one attempt", () => {
    expect(splitAttempts(moves("create", "claim", "verify"))).toEqual([moves("create", "claim", "verify")]);
  });

  it("closes an attempt at each approved reset and starts the next with the moves after it", () => {
    const all = moves("create", "claim", "block", "request_reset", "approve_reset", "claim", "block", "approve_reset", "claim");
    expect(splitAttempts(all).map((a) => a.map((t) => t.move))).toEqual([
      ["create", "claim", "block", "request_reset", "approve_reset"],
      ["claim", "block", "approve_reset"],
      ["claim"],
    ]);
  });

  it("opens the new attempt as soon as the reset is approved, before anyone picks the task up", () => {
    expect(splitAttempts(moves("claim", "block", "approve_reset"))).toEqual([moves("claim", "block", "approve_reset"), []]);
    expect(splitAttempts([])).toEqual([[]]);
  });
});
