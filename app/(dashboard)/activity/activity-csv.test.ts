import { describe, expect, it } from "vitest";
import { DEFAULT_VIEW } from "./activity-view";
import { CSV_HEADER, type CsvEvent, activityCsvName, csvRecords, csvStart } from "./activity-csv";

const EVENT: CsvEvent = {
  id: 12,
  at: new Date("2026-11-21T14:03:00.000Z"),
  type: "task.claimed",
  sessionId: "s1",
  source: "bazinga",
  entity: "task",
  entityId: "4",
  actor: "=developer_1",
  principalId: "token:1",
  role: "agent",
  via: null,
  summary: 'developer_1 claimed task "a, b" as done',
  data: { key: "a, b" },
};

describe("the audit log as CSV", () => {
  it("starts with a byte-order mark and the header, and writes one CRLF record per event", () => {
    const csv =
      csvStart() +
      csvRecords([
        EVENT,
        { ...EVENT, id: 11, sessionId: null, source: null, entityId: null, principalId: null, role: null, via: "token:3 release script", data: null },
      ]);
    expect(csv.startsWith("\uFEFFid,at,type,session,source,entity,entity_id,actor,principal,role,via,summary,data\r\n")).toBe(true);
    const lines = csv.slice(1).split("\r\n");
    expect(lines).toHaveLength(4);
    expect(lines[0]!.split(",")).toEqual([...CSV_HEADER]);
    // Text a spreadsheet would run as a formula is defused; commas and quotes are quoted.
    expect(lines[1]).toBe(
      `12,2026-11-21T14:03:00.000Z,task.claimed,s1,bazinga,task,4,'=developer_1,token:1,agent,,"developer_1 claimed task ""a, b"" as done","{""key"":""a, b""}"`,
    );
    expect(lines[2]).toBe(
      '11,2026-11-21T14:03:00.000Z,task.claimed,,,task,,\'=developer_1,,,token:3 release script,"developer_1 claimed task ""a, b"" as done",',
    );
    expect(lines[3]).toBe("");
    expect(csvRecords([])).toBe("");
  });

  it("names the file after its filters", () => {
    expect(activityCsvName({ ...DEFAULT_VIEW, type: "task.claimed", from: "2026-11-01" })).toBe("proofgate-activity-task-claimed-2026-11-01.csv");
    expect(activityCsvName(DEFAULT_VIEW)).toBe("proofgate-activity.csv");
  });
});
