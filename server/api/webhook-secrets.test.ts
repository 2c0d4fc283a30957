/**
 * Issue 30: a webhook's URL is a credential (Slack's path is the secret), so no read path a
 * viewer has (events list, search, stream, activity CSV) ever returns it: not for events written
 * now, and not for rows an older version wrote with the full URL in their data.
 */
import { describe, expect, it } from "vitest";
import type { Db } from "@/db/client";
import { csvRecords } from "@/app/(dashboard)/activity/activity-csv";
import { ACTORS, callerFor, rows, setup } from "@/test/support/api-helpers";

const SECRET_URL = "https://hooks.slack.com/services/T000/B000/SECRETSECRET";

/** Everything a viewer can read about the log, as one string to search for the secret. */
async function everythingAViewerReads(db: Db): Promise<string> {
  const viewer = callerFor(db, ACTORS.viewer);
  const listed = await viewer.events.list({});
  const searched = await viewer.events.search({ filter: {}, limit: 100 });
  const abort = new AbortController();
  const iterable = (await callerFor(db, ACTORS.viewer, {}, abort.signal).events.stream({ lastEventId: 0 })) as unknown as AsyncIterable<unknown>;
  const iterator = iterable[Symbol.asyncIterator]();
  const streamed: unknown[] = [];
  for (let i = 0; i < listed.length; i++) streamed.push((await iterator.next()).value);
  abort.abort();
  await iterator.return?.(undefined);
  return JSON.stringify({ listed, searched, streamed, csv: csvRecords(searched.items) });
}

describe("webhook URLs in events (issue 30)", () => {
  it("events about a new webhook carry its id and host, never its URL", async () => {
    const f = setup();
    const created = await f.as("admin").admin.createWebhook({ url: SECRET_URL, events: "all", format: "slack" });
    await f.as("admin").admin.testWebhook({ id: created.id });
    await f.as("admin").admin.removeWebhook({ id: created.id });
    const stored = rows<{ data: string }>(f.db, "select data from events where type like 'admin.webhook_%' order by id");
    expect(stored).toHaveLength(3);
    for (const { data } of stored) {
      expect(data).not.toContain("SECRETSECRET");
      expect(JSON.parse(data)).toMatchObject({ host: "hooks.slack.com" });
    }
    const read = await everythingAViewerReads(f.db);
    expect(read).not.toContain("SECRETSECRET");
    expect(read).not.toContain("/services/");
    expect(read).toContain(`added webhook #${created.id} to hooks.slack.com`);
  });

  it("an old event row holding the full URL stays in the table but is read with its host alone", async () => {
    const f = setup();
    f.db.$client
      .prepare("insert into events (type, entity, entity_id, actor, role, data) values (?, 'webhook', '7', 'admin@example.com', 'admin', ?)")
      .run("admin.webhook_created", JSON.stringify({ url: SECRET_URL, events: "all", format: "slack" }));
    f.db.$client
      .prepare("insert into events (type, entity, entity_id, actor, role, data) values (?, 'webhook', '7', 'admin@example.com', 'admin', ?)")
      .run("admin.webhook_removed", JSON.stringify({ url: SECRET_URL }));
    expect(rows<{ data: string }>(f.db, "select data from events")[0]?.data).toContain("SECRETSECRET");
    const read = await everythingAViewerReads(f.db);
    expect(read).not.toContain("SECRETSECRET");
    expect(read).not.toContain("/services/");
    expect(read).toContain("added webhook #7 to hooks.slack.com");
    expect(read).toContain("removed webhook #7 (hooks.slack.com)");
    const listed = await callerFor(f.db, ACTORS.viewer).events.list({});
    expect(listed.map((e) => e.data)).toEqual([{ host: "hooks.slack.com", events: "all", format: "slack" }, { host: "hooks.slack.com" }]);
  });
});
