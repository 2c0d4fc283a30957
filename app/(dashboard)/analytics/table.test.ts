import { describe, expect, it } from "vitest";
import { csvCell, csvHeader, formatBucket, formatCell, formatMs, formatRate, tableCsv } from "./table";

const NOV_16 = Date.UTC(2026, 10, 16);

describe("formatting cells", () => {
  it("shows rates as percentages to one decimal, and a rate of nothing as a dash", () => {
    expect(formatRate(40 / 170)).toBe("23.5%");
    expect(formatRate(0)).toBe("0.0%");
    expect(formatRate(1)).toBe("100.0%");
    expect(formatRate(null)).toBe("—");
  });

  it("shows durations in their two largest units", () => {
    expect(formatMs(0)).toBe("0s");
    expect(formatMs(45_000)).toBe("45s");
    expect(formatMs(725_000)).toBe("12m 5s");
    expect(formatMs(3 * 3_600_000 + 12 * 60_000)).toBe("3h 12m");
    expect(formatMs(52 * 3_600_000)).toBe("2d 4h");
    expect(formatMs(null)).toBe("—");
  });

  it("shows buckets as their UTC day, or the week they start", () => {
    expect(formatBucket(NOV_16, "day")).toBe("2026-11-16");
    expect(formatBucket(NOV_16, "week")).toBe("Week of 2026-11-16");
  });

  it("formats by the column's kind, counts with separators, text as is", () => {
    expect(formatCell(12345, "count", "day")).toBe("12,345");
    expect(formatCell(0.5, "rate", "day")).toBe("50.0%");
    expect(formatCell("developer_1", "text", "day")).toBe("developer_1");
    expect(formatCell(null, "count", "day")).toBe("—");
  });
});

describe("the CSV of a table", () => {
  it("names each column's unit where the page shows another, and writes raw values", () => {
    expect(csvHeader({ label: "False-completion rate", kind: "rate" }, "day")).toBe("False-completion rate (fraction)");
    expect(csvHeader({ label: "p50", kind: "ms" }, "day")).toBe("p50 (seconds)");
    expect(csvHeader({ label: "Week", kind: "bucket" }, "week")).toBe("Week starting (UTC)");
    expect(csvCell(40 / 170, "rate")).toBe(0.235294);
    expect(csvCell(90_000, "ms")).toBe(90);
    expect(csvCell(1_234, "ms")).toBe(1.234);
    expect(csvCell(NOV_16, "bucket")).toBe("2026-11-16");
    expect(csvCell(null, "rate")).toBeNull();
  });

  it("writes the table's header and rows", () => {
    const csv = tableCsv(
      {
        columns: [
          { label: "Day", kind: "bucket" },
          { label: "Claims", kind: "count" },
          { label: "Rate", kind: "rate" },
        ],
        rows: [
          [NOV_16, 3, 1 / 3],
          [NOV_16 + 86_400_000, 0, null],
        ],
      },
      "day",
    );
    expect(csv).toBe("Day (UTC),Claims,Rate (fraction)\r\n2026-11-16,3,0.333333\r\n2026-11-17,0,\r\n");
  });
});
