/**
 * The read procedures whose services threw a raw ZodError on bad input (session.list,
 * session.overview, task.inbox, task.inboxCount, events.list): the API's one error mapping turned
 * that into an internal error for every caller that reached the service without the router's own
 * parse. Now the service refuses with a ValidationError as well, so bad input is BAD_REQUEST naming
 * the field whichever of the two checks it first (with these routers' `.input()` loosened to
 * `z.any()`, the old services answered INTERNAL_SERVER_ERROR to every case below).
 */
import { beforeAll, describe, expect, it } from "vitest";
import { callPath, world } from "@/test/support/procedure-inputs";
import { type Fixture, expectBadRequest, tableCounts } from "@/test/support/api-helpers";

const BAD: [path: string, input: Record<string, unknown>, field: string][] = [
  ["session.list", { limit: 0 }, "limit"],
  ["session.list", { hasBlocked: "yes" }, "hasBlocked"],
  ["session.list", { bogus: 1 }, "bogus"],
  ["session.overview", { liveLimit: 101 }, "liveLimit"],
  ["session.overview", { liveLimit: "20" }, "liveLimit"],
  ["session.overview", { bogus: 1 }, "bogus"],
  ["task.inbox", { limit: 201 }, "limit"],
  ["task.inbox", { cursor: 5 }, "cursor"],
  ["task.inbox", { bogus: 1 }, "bogus"],
  ["task.inboxCount", { sessionId: 5 }, "sessionId"],
  ["task.inboxCount", { sessionId: "x".repeat(201) }, "sessionId"],
  ["task.inboxCount", { bogus: 1 }, "bogus"],
  ["events.list", { afterId: -1 }, "afterId"],
  ["events.list", { afterId: "0" }, "afterId"],
  ["events.list", { bogus: 1 }, "bogus"],
];

let f: Fixture;
beforeAll(async () => {
  f = await world();
}, 60_000);

describe("read procedures given bad input", () => {
  it.each(BAD)("%s %j is BAD_REQUEST naming %s", async (path, input, field) => {
    const before = tableCounts(f.db);
    await expectBadRequest(callPath(f.as("viewer"), path, input), field);
    expect(tableCounts(f.db)).toEqual(before);
  });
});
