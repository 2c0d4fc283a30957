/**
 * Issue 30's redaction throughput on hostile input: `redactSecrets`, which every log write runs on
 * content up to 1 MB before the session lookup, on 1 MB inputs built to make a backtracking rule
 * rescan a run from every start (the generic `name=value` rule took minutes on `a_a_a_…` before it
 * was made linear). In this process, no server: a diagnostic, with no target.
 */
import { redactSecrets } from "@/server/domain/redact";
import { type BenchContext } from "../lib/context";
import { now, summarize } from "../lib/stats";

const MB = 2 ** 20;
const fill = (unit: string) => unit.repeat(Math.ceil(MB / unit.length));

/** Each rule's worst case (redact.test.ts checks their output), 1 MB each. */
const HOSTILE: Record<string, () => string> = {
  "name=value, a_ prefix, no name": () => `${fill("a_")}!token`,
  "name=value, x- prefix before a name": () => `${fill("x-")}-password: "a b"`,
  "name=value, unclosed quote": () => `secret="${fill("a")}`,
  "name=value, whitespace after a name": () => `token${fill(" ")}x`,
  "private key, truncated block": () => `-----BEGIN RSA PRIVATE KEY-----\n${fill("-----END PRIVATE KEY-----\n")}`,
  "private key, long label": () => `-----BEGIN ${fill("RSA ")}-----`,
  "bearer, whitespace": () => `Bearer${fill(" ")}x`,
  "AWS secret, whitespace": () => `aws_secret_access_key${fill(" ")}=`,
  "format prefixes one character short": () => fill(`sk-${"a".repeat(15)} ghp_${"a".repeat(19)} `),
};

export function measureRedaction(ctx: Pick<BenchContext, "quick" | "rec">): void {
  const inputs = Object.entries(HOSTILE).map(([name, build]) => ({ name, text: build() }));
  const reps = ctx.quick ? 3 : 10;
  const perInput = new Map<string, number[]>(inputs.map((input) => [input.name, []]));
  const overall: number[] = [];
  for (let rep = 0; rep <= reps; rep++) {
    let bytes = 0;
    let ms = 0;
    for (const input of inputs) {
      const t = now();
      redactSecrets(input.text);
      const took = now() - t;
      if (rep === 0) continue; // warm-up
      bytes += input.text.length;
      ms += took;
      perInput.get(input.name)!.push(input.text.length / MB / (took / 1000));
    }
    if (rep > 0) overall.push(bytes / MB / (ms / 1000));
  }
  const slowest = [...perInput].map(([name, rates]) => ({ name, median: summarize(rates).median })).sort((a, b) => a.median - b.median)[0]!;
  ctx.rec.add({
    id: "redaction.hostile.throughput",
    measurement: "Redaction of hostile input, in-process (diagnostic)",
    unit: "MB/s",
    summary: summarize(overall),
    target: null,
    notes: [
      `diagnostic: redactSecrets in the bench's process on ${inputs.length} adversarial inputs of 1 MB each (every rule's worst case), all of them per sample`,
      `slowest input: ${slowest.name}, median ${slowest.median.toFixed(0)} MB/s`,
    ],
  });
}
