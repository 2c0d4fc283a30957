import { BlockList, isIP } from "node:net";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { forbiddenAddressKind, isIpAddress, isLoopbackName, parseIPv6 } from "./ip-address";

describe("forbiddenAddressKind", () => {
  it.each([
    ["127.0.0.1", "loopback"],
    ["127.255.0.9", "loopback"],
    ["0.0.0.0", "unspecified"],
    ["0.1.2.3", "unspecified"],
    ["10.0.0.5", "private"],
    ["172.16.0.1", "private"],
    ["172.31.255.255", "private"],
    ["192.168.1.1", "private"],
    ["100.64.0.1", "carrier-grade NAT"],
    ["100.127.255.255", "carrier-grade NAT"],
    ["169.254.0.1", "link-local"],
    ["169.254.169.254", "cloud metadata"],
    ["224.0.0.1", "multicast"],
    ["255.255.255.255", "reserved"],
    ["::1", "loopback"],
    ["[::1]", "loopback"],
    ["0:0:0:0:0:0:0:1", "loopback"],
    ["::", "unspecified"],
    ["fc00::1", "unique-local"],
    ["fd12:3456::1", "unique-local"],
    ["fe80::1", "link-local"],
    ["fe80::1%eth0", "link-local"],
    ["febf::1", "link-local"],
    ["ff02::1", "multicast"],
    ["::ffff:127.0.0.1", "loopback"],
    ["::ffff:7f00:1", "loopback"],
    ["[::ffff:a9fe:a9fe]", "cloud metadata"],
    ["::ffff:10.1.2.3", "private"],
    ["64:ff9b::192.168.0.1", "private"],
    ["2002:7f00:1::", "loopback"],
    ["::127.0.0.1", "reserved"],
  ])("%s is %s", (address, kind) => {
    expect(forbiddenAddressKind(address)).toBe(kind);
  });

  it.each([
    "8.8.8.8",
    "93.184.215.14",
    "172.15.255.255",
    "172.32.0.0",
    "100.63.255.255",
    "100.128.0.0",
    "2606:4700::1111",
    "::ffff:8.8.8.8",
    "64:ff9b::8.8.8.8",
  ])("%s is public", (address) => {
    expect(forbiddenAddressKind(address)).toBeNull();
  });

  it.each(["localhost", "example.com", "1.2.3", "1.2.3.4.5", "256.1.1.1", "01.2.3.4", "1::2::3", ":::", "1:2:3:4:5:6:7:8:9", "12345::", "::g"])(
    "%s is not an IP address",
    (text) => {
      expect(forbiddenAddressKind(text)).toBe("not an IP address");
      expect(isIpAddress(text)).toBe(false);
    },
  );

  it("reads IPv6 as Node does, in every spelling", () => {
    const bytesOf = (address: string) => {
      const list = new BlockList();
      list.addAddress(address, "ipv6");
      return list;
    };
    fc.assert(
      fc.property(fc.ipV6(), (address) => {
        expect(isIP(address)).toBe(6);
        const bytes = parseIPv6(address);
        expect(bytes).toHaveLength(16);
        // The bytes read back as an address Node takes for the same one.
        const groups = Array.from({ length: 8 }, (_, i) => ((bytes![2 * i]! << 8) | bytes![2 * i + 1]!).toString(16)).join(":");
        expect(bytesOf(address).check(groups, "ipv6")).toBe(true);
      }),
    );
  });

  it("agrees with Node's BlockList over the forbidden IPv4 ranges", () => {
    const forbidden = new BlockList();
    for (const [net, prefix] of [
      ["0.0.0.0", 8],
      ["10.0.0.0", 8],
      ["100.64.0.0", 10],
      ["127.0.0.0", 8],
      ["169.254.0.0", 16],
      ["172.16.0.0", 12],
      ["192.0.0.0", 24],
      ["192.168.0.0", 16],
      ["198.18.0.0", 15],
      ["224.0.0.0", 3],
    ] as const)
      forbidden.addSubnet(net, prefix, "ipv4");
    fc.assert(
      fc.property(fc.ipV4(), (address) => {
        expect(forbiddenAddressKind(address) !== null).toBe(forbidden.check(address, "ipv4"));
        // The same address mapped into IPv6 is judged alike.
        expect(forbiddenAddressKind(`::ffff:${address}`)).toBe(forbiddenAddressKind(address));
      }),
    );
  });
});

describe("isLoopbackName", () => {
  it("is localhost and its subdomains, in any case, with or without the root dot", () => {
    for (const name of ["localhost", "LOCALHOST", "localhost.", "app.localhost", "a.b.localhost."]) expect(isLoopbackName(name)).toBe(true);
    for (const name of ["localhost.example.com", "mylocalhost", "example.com"]) expect(isLoopbackName(name)).toBe(false);
  });
});
