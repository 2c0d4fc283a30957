/**
 * The log services on both engines (issue 21), through the API: `log.batch` — SQLite's prepared
 * statements, PostgreSQL's multi-row INSERTs (batch-pg.ts) — with the same ids in the same order,
 * the same duplicates, counts and event, all or nothing; and every other log write and read once.
 * Runs in the `pg` project, which has a throwaway cluster; without PostgreSQL only the SQLite half runs.
 */
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { type Db, engineOf } from "@/db/client";
import { rawRun } from "@/db/query";
import { ACTORS, type Caller, callerFor, expectBadRequest, refusal } from "@/test/support/api-helpers";
import { SECRETS } from "@/test/support/log-helpers";
import { ENGINES, ledgerFactory } from "@/test/support/engines";
import { PG_ROWS_PER_INSERT } from "./batch-pg";
import { type IngestBatchInput, MAX_BATCH_ROWS } from "./schemas";

const freshLedger = ledgerFactory();

const S = { sessionId: "s1" };
type Row = IngestBatchInput["rows"][number];

/** Row 3 repeats a key stored before the batch; row 902 repeats row 10's key (a later INSERT on PostgreSQL); row 5 holds a secret. */
function mixedRow(i: number): Row {
  if (i === 3) return { kind: "event", subtype: "validator_verdict", idempotencyKey: "before-batch", payload: { verdict: "REJECT" } };
  if (i === 10 || i === 902) return { kind: "event", subtype: "tl_review", groupId: "g1", idempotencyKey: "in-batch", payload: { i } };
  if (i === 5) return { kind: "reasoning", agentType: "developer", phase: "risks", content: `leaked ${SECRETS.githubToken}`, groupId: "g1" };
  switch (i % 4) {
    case 0:
      return { kind: "interaction", agentType: i % 8 ? "developer" : "qa", agentId: i % 8 ? "developer_1" : null, content: `interaction ${i}`, iteration: i };
    case 1:
      return { kind: "reasoning", agentType: "developer", phase: "approach", content: `reasoning ${i}`, confidence: "high", references: [`docs/${i}.md`] };
    case 2:
      return { kind: "event", subtype: "progress", idempotencyKey: i % 3 ? `k-${i}` : null, payload: { i } };
    default:
      return { kind: "tokens", agentType: i % 7 ? "developer" : "pm", tokens: i, model: i % 5 ? "opus" : null };
  }
}

/** Every row of the session's log, oldest first, paging with the API's cursor. */
async function allLogs(viewer: Caller) {
  const items = [];
  let cursor: number | null = null;
  for (;;) {
    const page = await viewer.log.list({ ...S, order: "asc", limit: 500, cursor });
    items.push(...page.items);
    if (page.nextCursor === null) return items;
    cursor = page.nextCursor;
  }
}

function ascending(ids: number[]): boolean {
  return ids.every((id, i) => i === 0 || id > ids[i - 1]!);
}

describe.each(ENGINES)("the log on $engine", ({ engine, skip }) => {
  const as = (db: Db, name: keyof typeof ACTORS) => callerFor(db, ACTORS[name]);

  it.skipIf(skip)("log.batch: a full batch of mixed rows, its ids in input order, every row read back, one event", async () => {
    const db = await freshLedger(engine);
    expect(engineOf(db)).toBe(engine);
    const orchestrator = as(db, "orchestrator");
    const viewer = as(db, "viewer");
    await orchestrator.session.create({ id: "s1" });
    const earlier = await orchestrator.log.event({ ...S, subtype: "validator_verdict", idempotencyKey: "before-batch", payload: { verdict: "ACCEPT" } });
    expect(earlier.created).toBe(true);

    const rows = Array.from({ length: MAX_BATCH_ROWS }, (_, i) => mixedRow(i));
    // More log rows than one INSERT takes on PostgreSQL: the batch spans statements.
    expect(rows.filter((row) => row.kind !== "tokens").length).toBeGreaterThan(PG_ROWS_PER_INSERT);
    const result = await orchestrator.log.batch({ ...S, rows });

    const isToken = (i: number) => rows[i]!.kind === "tokens";
    const duplicates = new Set([3, 902]);
    const logIndexes = rows.map((_, i) => i).filter((i) => !isToken(i) && !duplicates.has(i));
    const tokenIndexes = rows.map((_, i) => i).filter(isToken);
    const logIds = logIndexes.map((i) => result.ids[i]!);
    const tokenIds = tokenIndexes.map((i) => result.ids[i]!);
    expect(result.ids).toHaveLength(MAX_BATCH_ROWS);
    expect(ascending(logIds)).toBe(true);
    expect(ascending(tokenIds)).toBe(true);
    expect(logIds[0]).toBeGreaterThan(earlier.row.id);
    expect(result.ids[3]).toBe(earlier.row.id);
    expect(result.ids[902]).toBe(result.ids[10]);
    expect(result.logs).toEqual({ count: logIndexes.length, firstId: logIds[0], lastId: logIds.at(-1), redacted: 1, duplicates: 2 });
    const total = tokenIndexes.reduce((sum, i) => sum + (rows[i] as Extract<Row, { kind: "tokens" }>).tokens, 0);
    expect(result.tokens).toEqual({ count: tokenIndexes.length, firstId: tokenIds[0], lastId: tokenIds.at(-1), total });

    // Every row as written, in input order, after the one stored before the batch.
    const logs = await allLogs(viewer);
    expect(logs.map((log) => log.id)).toEqual([earlier.row.id, ...logIds]);
    const expected = logIndexes.map((i) => {
      const row = rows[i]!;
      switch (row.kind) {
        case "interaction":
          return { logType: "interaction", agentType: row.agentType, agentId: row.agentId, content: row.content, iteration: row.iteration, redacted: false };
        case "reasoning":
          return {
            logType: "reasoning",
            agentType: row.agentType,
            reasoningPhase: row.phase,
            confidenceLevel: row.confidence ?? null,
            referencesJson: row.references ?? null,
            groupId: row.groupId ?? "global",
          };
        case "event":
          return { logType: "event", agentType: "system", eventSubtype: row.subtype, eventPayload: row.payload, idempotencyKey: row.idempotencyKey ?? null };
        default:
          throw new Error("tokens are not logs");
      }
    });
    expect(logs.slice(1)).toMatchObject(expected);
    const secretRow = logs.find((log) => log.id === result.ids[5])!;
    expect(secretRow.redacted).toBe(true);
    expect(secretRow.content).not.toContain(SECRETS.githubToken);
    expect(logs.slice(1).every((log) => log.timestamp.getTime() === logs[1]!.timestamp.getTime())).toBe(true);

    const byAgentType = await viewer.log.tokenSummary({ ...S, by: "agent_type" });
    expect(byAgentType.total).toBe(total);
    expect(byAgentType.groups.reduce((sum, group) => sum + group.entries, 0)).toBe(tokenIndexes.length);

    // ONE events row for the batch, naming its ranges.
    const appended = (await viewer.events.list(S)).filter((event) => event.type === "logs.appended");
    expect(appended).toHaveLength(2);
    expect(appended[1]).toMatchObject({ entity: "session", entityId: "s1", data: { ...result.logs, batch: true, tokens: result.tokens } });

    // The same batch again: every keyed event is a repeat now, the rest are new rows.
    const again = await orchestrator.log.batch({ ...S, rows: rows.slice(0, 12) });
    expect(again.ids[3]).toBe(earlier.row.id);
    expect(again.ids[10]).toBe(result.ids[10]);
    expect(again.ids[2]).toBe(result.ids[2]);
    expect(again.ids[0]).toBeGreaterThan(logIds.at(-1)!);
    expect(again.logs).toMatchObject({ duplicates: 3 });
  });

  it.skipIf(skip)("log.batch: a tokens-only batch appends one tokens.logged event", async () => {
    const db = await freshLedger(engine);
    await as(db, "orchestrator").session.create({ id: "s1" });
    const result = await as(db, "orchestrator").log.batch({
      ...S,
      rows: [
        { kind: "tokens", agentType: "pm", tokens: 5 },
        { kind: "tokens", agentType: "qa", tokens: 7 },
      ],
    });
    expect(result.logs).toEqual({ count: 0, firstId: null, lastId: null, redacted: 0, duplicates: 0 });
    expect(result.tokens).toEqual({ count: 2, firstId: result.ids[0], lastId: result.ids[1], total: 12 });
    expect(result.ids[1]).toBeGreaterThan(result.ids[0]!);
    const logged = (await as(db, "viewer").events.list(S)).filter((event) => event.type === "tokens.logged");
    expect(logged).toMatchObject([{ data: { count: 2, total: 12, batch: true } }]);
  });

  it.skipIf(skip)("log.batch: one bad row refuses the batch whole, and nothing is written", async () => {
    const db = await freshLedger(engine);
    await as(db, "orchestrator").session.create({ id: "s1" });
    const viewer = as(db, "viewer");
    const eventsBefore = await viewer.events.list(S);
    const rows = Array.from({ length: MAX_BATCH_ROWS }, (_, i) => (i === 700 ? ({ kind: "tokens", agentType: "pm", tokens: -1 } as Row) : mixedRow(i)));
    await expectBadRequest(as(db, "orchestrator").log.batch({ ...S, rows }), "rows[700].tokens");
    await expectBadRequest(as(db, "orchestrator").log.batch({ ...S, rows: Array.from({ length: MAX_BATCH_ROWS + 1 }, (_, i) => mixedRow(i)) }), "rows");
    expect((await viewer.log.list(S)).items).toEqual([]);
    expect((await viewer.log.tokenSummary(S)).total).toBe(0);
    expect(await viewer.events.list(S)).toEqual(eventsBefore);
  });

  it.skipIf(skip)("log.batch: the database refusing a row late in the batch keeps nothing of the rows before it", async () => {
    const db = await freshLedger(engine);
    await as(db, "orchestrator").session.create({ id: "s1" });
    // A trigger refusing one content: row 900 is in the second INSERT on PostgreSQL, after the first has run.
    if (engine === "sqlite") {
      await rawRun(
        db,
        sql`CREATE TEMP TRIGGER test_poison BEFORE INSERT ON orchestration_logs WHEN NEW.content = 'poison' BEGIN SELECT RAISE(ABORT, 'poisoned'); END`,
      );
    } else {
      await rawRun(
        db,
        sql.raw(`CREATE FUNCTION test_poison() RETURNS trigger LANGUAGE plpgsql AS $$
          BEGIN IF NEW.content = 'poison' THEN RAISE EXCEPTION 'poisoned'; END IF; RETURN NEW; END $$`),
      );
      await rawRun(db, sql`CREATE TRIGGER test_poison BEFORE INSERT ON orchestration_logs FOR EACH ROW EXECUTE FUNCTION test_poison()`);
    }
    const viewer = as(db, "viewer");
    const eventsBefore = await viewer.events.list(S);
    const rows = Array.from({ length: MAX_BATCH_ROWS }, (_, i) =>
      i === 900 ? ({ kind: "interaction", agentType: "pm", content: "poison" } as Row) : mixedRow(i),
    );
    await refusal(as(db, "orchestrator").log.batch({ ...S, rows }));
    expect((await viewer.log.list(S)).items).toEqual([]);
    expect((await viewer.log.tokenSummary(S)).total).toBe(0);
    expect(await viewer.events.list(S)).toEqual(eventsBefore);
    // Without the poisoned row the same batch goes in.
    const result = await as(db, "orchestrator").log.batch({ ...S, rows: rows.filter((_, i) => i !== 900) });
    expect(result.ids).toHaveLength(MAX_BATCH_ROWS - 1);
  });

  it.skipIf(skip)("every other log write and read answers through the API", async () => {
    const db = await freshLedger(engine);
    const orchestrator = as(db, "orchestrator");
    const developer = as(db, "developer");
    const viewer = as(db, "viewer");
    await orchestrator.session.create({ id: "s1" });

    // Interactions, reasoning, events.
    const login = await developer.log.interaction({
      ...S,
      agentType: "developer",
      agentId: "developer_1",
      content: "Built the LOGIN form: 100%_done \\o/",
      groupId: "g1",
      iteration: 2,
    });
    expect(login).toMatchObject({
      logType: "interaction",
      agentType: "developer",
      content: "Built the LOGIN form: 100%_done \\o/",
      redacted: false,
      iteration: 2,
    });
    expect(login.timestamp).toBeInstanceOf(Date);
    const leaked = await developer.log.interaction({ ...S, agentType: "developer", content: `key ${SECRETS.openaiKey}` });
    expect(leaked.redacted).toBe(true);
    expect(leaked.content).not.toContain(SECRETS.openaiKey);
    const understanding = await developer.log.reasoning({
      ...S,
      agentType: "developer",
      phase: "understanding",
      content: "Reading",
      groupId: "g1",
      confidence: "medium",
    });
    const completion = await developer.log.reasoning({
      ...S,
      agentType: "developer",
      phase: "completion",
      content: "Done",
      groupId: "g1",
      references: ["a.ts"],
    });
    const other = await as(db, "orchestrator").log.reasoning({ ...S, agentType: "qa", phase: "approach", content: "Plan tests", groupId: "g2" });
    expect(completion).toMatchObject({ logType: "reasoning", reasoningPhase: "completion", referencesJson: ["a.ts"], redacted: false });
    const verdict = await orchestrator.log.event({ ...S, subtype: "validator_verdict", groupId: "g1", idempotencyKey: "v1", payload: { verdict: "ACCEPT" } });
    expect(verdict).toMatchObject({ created: true, row: { logType: "event", eventSubtype: "validator_verdict", content: "Event: validator_verdict" } });
    expect(
      await orchestrator.log.event({ ...S, subtype: "validator_verdict", groupId: "g1", idempotencyKey: "v1", payload: { verdict: "REJECT" } }),
    ).toMatchObject({
      created: false,
      row: { id: verdict.row.id },
    });
    const bazinga = await orchestrator.log.event({ ...S, subtype: "pm_bazinga" });

    expect((await viewer.log.getReasoning(S)).map((r) => r.id)).toEqual([other.id, completion.id, understanding.id]);
    expect((await viewer.log.getReasoning({ ...S, groupId: "g1", phase: "understanding" })).map((r) => r.id)).toEqual([understanding.id]);
    const timeline = await viewer.log.reasoningTimeline({ ...S, format: "json" });
    expect(timeline).toMatchObject({ format: "json", entries: [{ id: understanding.id, confidenceLevel: "medium" }, { id: completion.id }, { id: other.id }] });
    const markdown = await viewer.log.reasoningTimeline({ ...S, groupId: "g1", format: "markdown" });
    expect(markdown.format === "markdown" && markdown.text).toMatch(
      /^# Reasoning Timeline\n\n## Group: g1\n\n### \[[\d-]+ [\d:]+\] developer - understanding \[medium\]/,
    );
    expect(await viewer.log.mandatoryPhases({ ...S, groupId: "g1", agentType: "developer" })).toEqual({
      complete: true,
      missing: [],
      documented: ["understanding", "completion"],
    });
    expect(await viewer.log.mandatoryPhases({ ...S, groupId: "g2", agentType: "qa" })).toEqual({
      complete: false,
      missing: ["understanding", "completion"],
      documented: ["approach"],
    });
    const events = await viewer.log.events(S);
    expect(events.map((e) => e.id)).toEqual([bazinga.row.id, verdict.row.id]);
    expect(events[1]).toMatchObject({ eventPayload: { verdict: "ACCEPT" }, idempotencyKey: "v1", groupId: "g1" });
    expect((await viewer.log.events({ ...S, subtype: "validator_verdict" })).map((e) => e.id)).toEqual([verdict.row.id]);

    // log.list: filters, any-case text, wildcards taken literally, pages both ways.
    const ids = [login.id, leaked.id, understanding.id, completion.id, other.id, verdict.row.id, bazinga.row.id];
    expect((await viewer.log.list(S)).items.map((l) => l.id)).toEqual([...ids].reverse());
    const search = async (text: string) => (await viewer.log.list({ ...S, text, order: "asc" })).items.map((l) => l.id);
    expect(await search("login FORM")).toEqual([login.id]);
    expect(await search("0%_d")).toEqual([login.id]);
    expect(await search("%")).toEqual([login.id]);
    expect(await search("_")).toEqual([login.id, leaked.id, verdict.row.id, bazinga.row.id]);
    expect(await search("r_d")).toEqual([]);
    expect(await search("\\o/")).toEqual([login.id]);
    expect(await search("accept")).toEqual([verdict.row.id]);
    expect((await viewer.log.list({ ...S, logType: "reasoning", agentType: "developer", order: "asc" })).items.map((l) => l.id)).toEqual([
      understanding.id,
      completion.id,
    ]);
    expect((await viewer.log.list({ ...S, reasoningPhase: "approach" })).items.map((l) => l.id)).toEqual([other.id]);
    expect((await viewer.log.list({ ...S, since: login.timestamp, order: "asc" })).items.map((l) => l.id)).toEqual(ids);
    expect((await viewer.log.list({ ...S, until: login.timestamp })).items).toEqual([]);
    const first = await viewer.log.list({ ...S, limit: 3 });
    expect(first.items.map((l) => l.id)).toEqual([bazinga.row.id, verdict.row.id, other.id]);
    const second = await viewer.log.list({ ...S, limit: 3, cursor: first.nextCursor });
    expect(second.items.map((l) => l.id)).toEqual([completion.id, understanding.id, leaked.id]);
    const back = await viewer.log.list({ ...S, limit: 3, cursor: second.prevCursor, direction: "backward" });
    expect(back.items.map((l) => l.id)).toEqual([bazinga.row.id, verdict.row.id, other.id]);

    // Tokens: equal totals order by key, the null key first on both engines.
    const tokens = await developer.log.tokens({ ...S, agentType: "developer", agentId: "developer_1", tokens: 100, model: "opus" });
    expect(tokens).toMatchObject({ agentType: "developer", agentId: "developer_1", tokensEstimated: 100, model: "opus" });
    await orchestrator.log.tokens({ ...S, agentType: "qa", tokens: 100 });
    await orchestrator.log.tokens({ ...S, agentType: "pm", agentId: "pm_1", tokens: 30, model: "haiku" });
    expect(await viewer.log.tokenSummary({ ...S, by: "agent_id" })).toEqual({
      by: "agent_id",
      groups: [
        { key: null, tokens: 100, entries: 1 },
        { key: "developer_1", tokens: 100, entries: 1 },
        { key: "pm_1", tokens: 30, entries: 1 },
      ],
      total: 230,
    });
    expect((await viewer.log.tokenSummary({ ...S, by: "model" })).groups).toEqual([
      { key: null, tokens: 100, entries: 1 },
      { key: "opus", tokens: 100, entries: 1 },
      { key: "haiku", tokens: 30, entries: 1 },
    ]);
    const buckets = await viewer.log.tokensOverTime({ ...S, bucket: "day" });
    expect(buckets.every((bucket) => bucket.start.getTime() % 86_400_000 === 0)).toBe(true);
    expect(buckets.at(-1)!.cumulative).toBe(230);
    const perAgentType: Record<string, number> = {};
    for (const bucket of buckets) for (const [agentType, n] of Object.entries(bucket.byAgentType)) perAgentType[agentType] = (perAgentType[agentType] ?? 0) + n;
    expect(perAgentType).toEqual({ developer: 100, qa: 100, pm: 30 });

    // State, skill outputs, decisions.
    const state = await orchestrator.log.saveState({ ...S, stateType: "pm", data: { mode: "parallel", groups: ["g1"] } });
    expect(state).toMatchObject({ stateType: "pm", groupId: "global" });
    expect(await viewer.log.state({ ...S, stateType: "pm" })).toMatchObject({ id: state.id, data: { mode: "parallel", groups: ["g1"] } });
    expect(await viewer.log.state({ ...S, stateType: "investigation" })).toBeNull();
    const lint1 = await developer.log.saveSkillOutput({ ...S, skillName: "lint", data: { errors: 2 }, agentType: "developer", groupId: "g1" });
    const lint2 = await developer.log.saveSkillOutput({ ...S, skillName: "lint", data: { errors: 0 }, agentType: "developer", groupId: "g1" });
    const scan = await developer.log.saveSkillOutput({ ...S, skillName: "security-scan", data: "[]", iteration: 2 });
    expect(await viewer.log.skillOutput({ ...S, skillName: "lint" })).toMatchObject({ id: lint2.id, data: { errors: 0 } });
    expect(await viewer.log.skillOutput({ ...S, skillName: "lint", agentType: "qa" })).toBeNull();
    expect((await viewer.log.skillOutputs({ ...S, skillNames: ["lint", "security-scan"] })).map((o) => [o.id, o.data])).toEqual([
      [scan.id, []],
      [lint2.id, { errors: 0 }],
      [lint1.id, { errors: 2 }],
    ]);
    expect(await viewer.log.skillOutputs({ ...S, skillNames: ["lint"], sinceMs: lint2.timestamp.getTime() + 60_000 })).toEqual([]);
    const decision = await orchestrator.log.decision({ ...S, decisionType: "spawn_agent", data: { agent: "developer" }, iteration: 1 });
    expect(decision).toMatchObject({ decisionType: "spawn_agent", iteration: 1 });

    // The development plan.
    expect(await viewer.log.plan(S)).toBeNull();
    const plan = await orchestrator.log.savePlan({
      ...S,
      originalPrompt: "Build login",
      planText: "1. form 2. tests",
      phases: [
        { phase: 1, name: "form" },
        { phase: 2, name: "tests", description: "unit" },
      ],
      metadata: { owner: "pm" },
    });
    expect(plan).toMatchObject({ totalPhases: 2, currentPhase: null });
    const progressed = await orchestrator.log.planProgress({ ...S, phase: 1, status: "completed" });
    expect(progressed).toMatchObject({ id: plan.id, currentPhase: 1 });
    expect(await viewer.log.plan(S)).toMatchObject({
      id: plan.id,
      currentPhase: 1,
      phases: [
        { phase: 1, name: "form", status: "completed", progress_percent: 100 },
        { phase: 2, name: "tests", status: "pending", description: "unit" },
      ],
      metadata: { owner: "pm" },
    });

    // Context packages: ranked by priority, pending until consumed.
    const research = await orchestrator.log.saveContextPackage({
      ...S,
      groupId: "g1",
      packageType: "research",
      filePath: "research/login.md",
      producerAgent: "pm",
      consumers: ["qa", "developer"],
      priority: "low",
      summary: "Login research",
    });
    expect(research.consumers.map((c) => c.agentType)).toEqual(["qa", "developer"]);
    const handoff = await orchestrator.log.saveContextPackage({
      ...S,
      packageType: "handoff",
      filePath: "handoff.md",
      producerAgent: "pm",
      consumers: ["qa"],
      priority: "critical",
      summary: "Handoff\nnotes",
    });
    expect(handoff.package).toMatchObject({ scope: "global", groupId: null, summary: "Handoff notes", version: 1 });
    const routed = await viewer.log.contextPackages({ ...S, groupId: "g1", agentType: "qa" });
    expect(routed.map((p) => [p.id, p.pending, p.consumedAt])).toEqual([
      [handoff.package.id, true, null],
      [research.package.id, true, null],
    ]);
    const consumed = await as(db, "admin").log.markContextConsumed({ packageId: handoff.package.id, agentType: "qa" });
    expect(consumed.consumedAt).toBeInstanceOf(Date);
    expect((await viewer.log.contextPackages({ ...S, groupId: "g1", agentType: "qa" })).map((p) => p.id)).toEqual([research.package.id]);
    const all = await viewer.log.contextPackages({ ...S, groupId: "g1", agentType: "qa", includeConsumed: true });
    expect(all.map((p) => [p.id, p.pending])).toEqual([
      [handoff.package.id, false],
      [research.package.id, true],
    ]);
    expect(all[0]!.consumedAt?.getTime()).toBe(consumed.consumedAt!.getTime());
    expect(await viewer.log.contextPackages({ ...S, groupId: "g2", agentType: "developer" })).toEqual([]);
  });
});
