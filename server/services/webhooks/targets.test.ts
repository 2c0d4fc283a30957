import { afterEach, describe, expect, it } from "vitest";
import { WebhookReceiver } from "@/test/support/webhook-receiver";
import { type ResolveHost, pinnedLookup, postPinned, privateTargetsAllowed, resolveReceiver } from "./targets";

const receivers: WebhookReceiver[] = [];
afterEach(async () => {
  for (const r of receivers.splice(0)) await r.close();
});

/** A resolver that answers `answers` for every name and counts its calls. */
function fakeResolver(...answers: string[][]): ResolveHost & { calls: string[] } {
  const calls: string[] = [];
  const resolve = async (hostname: string) => {
    calls.push(hostname);
    const answer = answers[Math.min(calls.length, answers.length) - 1] ?? [];
    return answer.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));
  };
  return Object.assign(resolve, { calls });
}

const never = new AbortController().signal;
const check = (url: string, resolve: ResolveHost, allowPrivate = false) => resolveReceiver(url, { allowPrivate, resolve, signal: never });

describe("privateTargetsAllowed", () => {
  it("is PROOFGATE_WEBHOOK_ALLOW_PRIVATE=1 and nothing else", () => {
    expect(privateTargetsAllowed({ PROOFGATE_WEBHOOK_ALLOW_PRIVATE: "1" })).toBe(true);
    for (const value of [undefined, "", "0", "true", "yes"]) expect(privateTargetsAllowed({ PROOFGATE_WEBHOOK_ALLOW_PRIVATE: value })).toBe(false);
  });
});

describe("resolveReceiver", () => {
  it("refuses a literal private address without asking DNS", async () => {
    const resolve = fakeResolver(["93.184.215.14"]);
    expect(await check("http://10.0.0.5/hook", resolve)).toEqual({
      ok: false,
      refused: true,
      error: expect.stringMatching(/^refused: 10\.0\.0\.5 resolves to a private address;/),
    });
    expect(await check("http://[::ffff:127.0.0.1]/hook", resolve)).toMatchObject({
      ok: false,
      refused: true,
      error: expect.stringContaining("a loopback address"),
    });
    expect(resolve.calls).toEqual([]);
  });

  it("refuses a name that resolves to a private address, an IPv4-mapped one, or a mix of public and private", async () => {
    for (const answer of [["10.1.2.3"], ["::ffff:169.254.169.254"], ["93.184.215.14", "127.0.0.1"], ["fd00::1"]]) {
      const resolve = fakeResolver(answer);
      const result = await check("https://hooks.example.com/x", resolve);
      expect(result).toMatchObject({
        ok: false,
        refused: true,
        error: expect.stringMatching(/^refused: hooks\.example\.com resolves to an? [a-z -]+ address; /),
      });
      // The log names the kind of address, never the address itself.
      for (const address of answer) expect(JSON.stringify(result)).not.toContain(address);
      expect(resolve.calls).toEqual(["hooks.example.com"]);
    }
  });

  it("accepts public addresses, and private ones when allowed", async () => {
    expect(await check("https://hooks.example.com/x", fakeResolver(["93.184.215.14", "2606:4700::1111"]))).toEqual({
      ok: true,
      addresses: [
        { address: "93.184.215.14", family: 4 },
        { address: "2606:4700::1111", family: 6 },
      ],
    });
    expect(await check("https://hooks.example.com/x", fakeResolver(["10.1.2.3"]), true)).toEqual({ ok: true, addresses: [{ address: "10.1.2.3", family: 4 }] });
    expect(await check("http://[::1]:8080/x", fakeResolver(), true)).toEqual({ ok: true, addresses: [{ address: "::1", family: 6 }] });
  });

  it("reports a name that does not resolve as a failure worth retrying, not a refusal", async () => {
    const failing: ResolveHost = async () => {
      throw Object.assign(new Error("getaddrinfo ENOTFOUND"), { code: "ENOTFOUND" });
    };
    expect(await check("https://gone.example/x", failing)).toEqual({ ok: false, refused: false, error: "could not resolve gone.example: ENOTFOUND" });
    expect(await check("https://empty.example/x", fakeResolver([]))).toEqual({
      ok: false,
      refused: false,
      error: "could not resolve empty.example: no address",
    });
  });
});

describe("the connection is pinned to the checked addresses", () => {
  it("pinnedLookup answers the checked addresses whatever name it is asked", () => {
    const lookup = pinnedLookup([
      { address: "93.184.215.14", family: 4 },
      { address: "2606:4700::1111", family: 6 },
    ]);
    const answers: unknown[] = [];
    lookup("rebind.example", { all: true }, (...args: unknown[]) => answers.push(args));
    lookup("anything.else", {}, (...args: unknown[]) => answers.push(args));
    expect(answers).toEqual([
      [
        null,
        [
          { address: "93.184.215.14", family: 4 },
          { address: "2606:4700::1111", family: 6 },
        ],
      ],
      [null, "93.184.215.14", 4],
    ]);
  });

  it("postPinned connects to the checked address, never resolving the name again, and still sends the name as Host", async () => {
    const receiver = await new WebhookReceiver().listen();
    receivers.push(receiver);
    receiver.status = 202;
    // `.invalid` never resolves (RFC 6761): the request can only arrive through the pinned address.
    const url = `http://rebind.invalid:${receiver.port}/hook?x=1`;
    const answer = await postPinned(url, [{ address: "127.0.0.1", family: 4 }], { body: '{"a":1}', headers: { "content-type": "application/json" } }, never);
    expect(answer).toEqual({ status: 202, statusText: "Accepted" });
    expect(receiver.received).toEqual([
      expect.objectContaining({
        body: '{"a":1}',
        headers: expect.objectContaining({ host: `rebind.invalid:${receiver.port}`, "content-type": "application/json" }),
      }),
    ]);
  });

  it("resolves once: a resolver that would answer differently the second time (DNS rebinding) is never asked again", async () => {
    const receiver = await new WebhookReceiver().listen();
    receivers.push(receiver);
    // The first answer is the checked one; a later lookup would lead to an address where nothing listens (TEST-NET-1).
    const resolve = fakeResolver(["127.0.0.1"], ["192.0.2.1"]);
    const url = `http://rebind.invalid:${receiver.port}/hook`;
    const target = await check(url, resolve, true);
    if (!target.ok) throw new Error(target.error);
    expect(await postPinned(url, target.addresses, { body: "{}", headers: {} }, never)).toMatchObject({ status: 200 });
    expect(resolve.calls).toEqual(["rebind.invalid"]);
    expect(receiver.received).toHaveLength(1);
  });
});
