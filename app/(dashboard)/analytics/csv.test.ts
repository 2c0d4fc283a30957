import { describe, expect, it } from "vitest";
import { csvField, csvFileName, toCsv } from "./csv";

/** A minimal RFC 4180 reader, to prove that what is written reads back as the same fields. */
function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let field = "";
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else field += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ",") {
      record.push(field);
      field = "";
    } else if (ch === "\r" && text[i + 1] === "\n") {
      record.push(field);
      records.push(record);
      record = [];
      field = "";
      i++;
    } else field += ch;
  }
  return records;
}

describe("csvField", () => {
  it("leaves plain text and numbers as they are, and writes null as an empty field", () => {
    expect(csvField("developer_1")).toBe("developer_1");
    expect(csvField(42)).toBe("42");
    expect(csvField(0.235294)).toBe("0.235294");
    expect(csvField(-3)).toBe("-3");
    expect(csvField(null)).toBe("");
    expect(csvField(Number.NaN)).toBe("");
  });

  it("quotes a field holding a comma, a quote or a line break, doubling its quotes", () => {
    expect(csvField("a, b")).toBe('"a, b"');
    expect(csvField('say "done"')).toBe('"say ""done"""');
    expect(csvField("line 1\nline 2")).toBe('"line 1\nline 2"');
    expect(csvField("cr\r")).toBe('"cr\r"');
  });

  it("keeps a spreadsheet from running agent-written text as a formula", () => {
    expect(csvField('=HYPERLINK("http://x")')).toBe('"\'=HYPERLINK(""http://x"")"');
    expect(csvField("+1")).toBe("'+1");
    expect(csvField("-rf")).toBe("'-rf");
    expect(csvField("@SUM(A1)")).toBe("'@SUM(A1)");
  });
});

describe("toCsv", () => {
  it("writes a header and one CRLF-terminated record per row that read back as the same fields", () => {
    const rows = [
      ['Criterion "all tests pass", no skips', 3],
      ["Coverage ≥ 80%\non changed files", null],
    ];
    const csv = toCsv(["Criterion", "Sessions"], rows);
    expect(csv.endsWith("\r\n")).toBe(true);
    expect(parseCsv(csv)).toEqual([
      ["Criterion", "Sessions"],
      ['Criterion "all tests pass", no skips', "3"],
      ["Coverage ≥ 80%\non changed files", ""],
    ]);
  });

  it("writes only the header for a table with no rows", () => {
    expect(toCsv(["Day", "Claims"], [])).toBe("Day,Claims\r\n");
  });
});

describe("csvFileName", () => {
  it("makes a safe file name from its parts, skipping the missing ones", () => {
    expect(csvFileName("proofgate", "false-completion-by-agent", null, "2026-10-01", undefined, "Shots on Goal")).toBe(
      "proofgate-false-completion-by-agent-2026-10-01-shots-on-goal.csv",
    );
    expect(csvFileName("../../etc/passwd")).toBe("etc-passwd.csv");
    expect(csvFileName()).toBe("figure.csv");
  });
});
