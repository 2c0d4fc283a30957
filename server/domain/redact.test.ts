import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { MAY_HOLD_SECRET, applyRules, redactJson, redactSecrets } from "./redact";

// Built from pieces so that no complete secret-shaped literal sits in the source for scanners to flag.
const openaiKey = "sk-" + "proj-" + "Ab12Cd34Ef56Gh78Ij90KlMn";
const legacyOpenaiKey = "sk-" + "a1B2c3D4e5F6g7H8";
const anthropicKey = "sk-" + "ant-api03-" + "Zx9Yw8Vu7Ts6Rq5Po4_Nm-3Lk";
const githubTokens = ["ghp_", "gho_", "ghu_", "ghs_", "ghr_"].map((prefix) => prefix + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8");
const githubPat = "github_pat_" + "11ABCDEFG0123456789_abcdefghijklmnop";
const awsKeyId = "AKIA" + "IOSFODNN7EXAMPLE";
const awsSessionKeyId = "ASIA" + "Y34FZKBOKMUTVV7A";
const awsSecret = "wJalrXUtnFEMI/K7MDENG/" + "bPxRfiCYEXAMPLEKEY";
const jwt = "eyJhbGciOiJIUzI1NiJ9" + ".eyJzdWIiOiIxMjMifQ.c2lnbmF0dXJl";
const pem = (label: string) =>
  [`-----BEGIN ${label}PRIVATE KEY-----`, "MIIEvQIBADANBgkqhkiG9w0BAQEFAASC", "BKcwggSjAgEAAoIBAQC7", `-----END ${label}PRIVATE KEY-----`].join("\n");

describe("redactSecrets: each kind", () => {
  it.each<[string, string, string, string]>([
    ["OpenAI project key", `key is ${openaiKey} ok`, "key is [REDACTED:openai_key] ok", "openai_key"],
    ["OpenAI legacy key (16 chars)", `use ${legacyOpenaiKey}`, "use [REDACTED:openai_key]", "openai_key"],
    ["Anthropic key", `ANTHROPIC=${anthropicKey}`, "ANTHROPIC=[REDACTED:anthropic_key]", "anthropic_key"],
    ...githubTokens.map((token): [string, string, string, string] => [
      `GitHub ${token.slice(0, 4)} token`,
      `push with ${token}.`,
      "push with [REDACTED:github_token].",
      "github_token",
    ]),
    ["GitHub fine-grained PAT", `pat ${githubPat}`, "pat [REDACTED:github_token]", "github_token"],
    ["AWS access key id", `id ${awsKeyId} used`, "id [REDACTED:aws_access_key_id] used", "aws_access_key_id"],
    ["AWS session key id", `(${awsSessionKeyId})`, "([REDACTED:aws_access_key_id])", "aws_access_key_id"],
    ["AWS secret in an ini file", `aws_secret_access_key = ${awsSecret}`, "aws_secret_access_key = [REDACTED:aws_secret_access_key]", "aws_secret_access_key"],
    ["AWS secret as an env var", `AWS_SECRET_ACCESS_KEY=${awsSecret}`, "AWS_SECRET_ACCESS_KEY=[REDACTED:aws_secret_access_key]", "aws_secret_access_key"],
    [
      "AWS secret in JSON",
      `{"aws_secret_access_key": "${awsSecret}"}`,
      '{"aws_secret_access_key": "[REDACTED:aws_secret_access_key]"}',
      "aws_secret_access_key",
    ],
    ["Authorization header", `Authorization: Bearer ${jwt}`, "Authorization: Bearer [REDACTED:bearer_token]", "bearer_token"],
    ["bare bearer token, any case", `curl -H "bearer ${jwt}"`, 'curl -H "bearer [REDACTED:bearer_token]"', "bearer_token"],
    ["PEM private key", `before\n${pem("")}\nafter`, "before\n[REDACTED:private_key]\nafter", "private_key"],
    ["RSA private key", pem("RSA "), "[REDACTED:private_key]", "private_key"],
    ["OpenSSH private key", pem("OPENSSH "), "[REDACTED:private_key]", "private_key"],
    ["truncated private key", "log:\n-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEIBYr\nMIIE", "log:\n[REDACTED:private_key]", "private_key"],
    ["api_key=", "api_key=abc123xyz", "api_key=[REDACTED:api_key]", "api_key"],
    ["apikey:", "apikey: abc123xyz", "apikey: [REDACTED:api_key]", "api_key"],
    ["API-KEY header", "X-API-KEY: abc123xyz", "X-API-KEY: [REDACTED:api_key]", "api_key"],
    ['"api_key": "…" in JSON', '{"api_key": "abc 123"}', '{"api_key": "[REDACTED:api_key]"}', "api_key"],
    ["password=", "password=hunter2 next", "password=[REDACTED:password] next", "password"],
    ["DB_PASSWORD env var", "DB_PASSWORD='s3cr3t pass'", "DB_PASSWORD='[REDACTED:password]'", "password"],
    ["passwd", "passwd: letmein", "passwd: [REDACTED:password]", "password"],
    ["secret=", "secret=xyz,other=1", "secret=[REDACTED:secret],other=1", "secret"],
    ["client_secret", "client_secret = 'abcDEF'", "client_secret = '[REDACTED:secret]'", "secret"],
    ["token=", "token=abc123;", "token=[REDACTED:token];", "token"],
    ["access_token in a query string", "GET /cb?access_token=xyz789&state=1", "GET /cb?access_token=[REDACTED:token]&state=1", "token"],
    ["GITHUB_TOKEN env var (not GitHub-shaped)", "GITHUB_TOKEN=not-a-real-one", "GITHUB_TOKEN=[REDACTED:token]", "token"],
  ])("%s", (_label, input, expected, kind) => {
    expect(redactSecrets(input)).toEqual({ text: expected, redacted: true, kinds: [kind] });
  });

  it("labels a known-format secret in an assignment by its format, not the generic name", () => {
    expect(redactSecrets(`OPENAI_API_KEY=${openaiKey}`)).toEqual({
      text: "OPENAI_API_KEY=[REDACTED:openai_key]",
      redacted: true,
      kinds: ["openai_key"],
    });
  });

  it("redacts several secrets at once and lists each kind once, sorted", () => {
    const text = [`a ${githubTokens[0]}`, `b ${githubTokens[1]}`, `c ${awsKeyId}`, "password=x"].join("\n");
    const result = redactSecrets(text);
    expect(result.kinds).toEqual(["aws_access_key_id", "github_token", "password"]);
    expect(result.text).not.toMatch(/ghp_|gho_|AKIA|=x/);
  });

  it("redacts a private key without touching the text between two blocks", () => {
    const result = redactSecrets(`${pem("RSA ")}\nkeep me\n${pem("")}`);
    expect(result.text).toBe("[REDACTED:private_key]\nkeep me\n[REDACTED:private_key]");
  });
});

describe("redactSecrets: leaves ordinary text alone", () => {
  it.each([
    "the token bucket refills every second",
    "the password field must not be empty",
    "a secret sauce",
    "sk-1 is a short label",
    "sk-learn",
    "task-abcdefghijklmnopqrstuvwxyz is a slug",
    "max_tokens=4096 prompt_tokens: 512 token_count=3",
    "ghp_short",
    "AKIA1234",
    "AKIAIOSFODNN7EXAMPLEEXTRA is too long to be a key id",
    "bearer of bad news",
    "Bearer tokens are used for auth",
    "-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkq\n-----END PUBLIC KEY-----",
    '{"password": ""}',
    "passwords: rotated monthly",
    "",
  ])("%j", (text) => {
    expect(redactSecrets(text)).toEqual({ text, redacted: false, kinds: [] });
  });
});

describe("redactSecrets: idempotent", () => {
  const samples = [
    `Authorization: Bearer ${jwt}`,
    `api_key=${openaiKey}`,
    `{"password": "hunter2", "token": "Bearer ${jwt}"}`,
    `aws_secret_access_key = ${awsSecret}\n${awsKeyId}`,
    pem("RSA "),
    "password='a b c' secret=xyz",
  ];

  it.each(samples)("a second pass changes nothing: %j", (sample) => {
    const once = redactSecrets(sample);
    expect(once.redacted).toBe(true);
    expect(redactSecrets(once.text)).toEqual({ text: once.text, redacted: false, kinds: [] });
  });

  it("holds for arbitrary mixtures of secrets and prose", () => {
    const fragment = fc.constantFrom(
      ...samples,
      ...githubTokens,
      anthropicKey,
      "token: ",
      "password=",
      '"api_key": "',
      '"',
      " ",
      "\n",
      "the token bucket",
      "Bearer ",
      "[REDACTED:token]",
    );
    fc.assert(
      fc.property(fc.array(fc.oneof(fragment, fc.string()), { maxLength: 12 }), (parts) => {
        const once = redactSecrets(parts.join("")).text;
        expect(redactSecrets(once)).toEqual({ text: once, redacted: false, kinds: [] });
      }),
      { numRuns: 300 },
    );
  });
});

describe("redactSecrets: the quick check", () => {
  const secrets = [
    openaiKey,
    legacyOpenaiKey,
    anthropicKey,
    ...githubTokens,
    githubPat,
    awsKeyId,
    awsSessionKeyId,
    `AWS_SECRET_ACCESS_KEY=${awsSecret}`,
    `Authorization: Bearer ${jwt}`,
    pem(""),
    pem("EC "),
    "DB_PASSWORD=x",
    "passwd: y",
    'client_secret: "a b"',
    "apiKey=z",
    "API-KEY=q",
    "GITHUB_TOKEN=t",
  ];

  it.each(secrets)("lets every kind of secret through to the rules: %j", (secret) => {
    expect(MAY_HOLD_SECRET.test(`before ${secret} after`)).toBe(true);
    expect(redactSecrets(`before ${secret} after`).redacted).toBe(true);
  });

  it("answers as every rule would, for arbitrary mixtures of secrets, their pieces and prose", () => {
    const fragment = fc.constantFrom(
      ...secrets,
      "sk-",
      "gh",
      "p_",
      "github_",
      "pat_",
      "AKIA",
      "ASIA",
      "BEGIN ",
      "-----",
      "PRIVATE KEY",
      "Bearer",
      "\t",
      "api",
      "_",
      "-",
      "key",
      "pass",
      "word",
      "wd",
      "secret",
      "token",
      "=",
      ": ",
      '"',
      "'",
      " ",
      "\n",
      "A1b2C3d4E5f6G7h8I9j0",
    );
    fc.assert(
      fc.property(fc.array(fc.oneof(fragment, fc.string()), { maxLength: 16 }), (parts) => {
        const text = parts.join("");
        expect(redactSecrets(text)).toEqual(applyRules(text));
      }),
      { numRuns: 2000 },
    );
  });

  it("skips text that holds none of the rules' anchors", () => {
    expect(MAY_HOLD_SECRET.test("developer iteration 3: Ran the unit tests: 142 passed, 0 failed")).toBe(false);
  });
});

describe("redactJson", () => {
  it("redacts string leaves at any depth and leaves the rest", () => {
    const input = {
      note: `use ${openaiKey}`,
      nested: { list: ["plain", `Bearer ${jwt}`], count: 3, ok: true, none: null },
    };
    expect(redactJson(input)).toEqual({
      value: {
        note: "use [REDACTED:openai_key]",
        nested: { list: ["plain", "Bearer [REDACTED:bearer_token]"], count: 3, ok: true, none: null },
      },
      redacted: true,
      kinds: ["bearer_token", "openai_key"],
    });
    expect(input.note).toBe(`use ${openaiKey}`);
  });

  it("redacts the string value of secret-named keys whatever it looks like", () => {
    const input = { password: "hunter2", client_secret: "abc", GITHUB_TOKEN: "x", apiKey: "y", max_tokens: "4096", empty: "" };
    expect(redactJson(input)).toEqual({
      value: {
        password: "[REDACTED:password]",
        client_secret: "[REDACTED:secret]",
        GITHUB_TOKEN: "[REDACTED:token]",
        apiKey: "[REDACTED:api_key]",
        max_tokens: "4096",
        empty: "",
      },
      redacted: true,
      kinds: ["api_key", "password", "secret", "token"],
    });
  });

  it("reports nothing for clean values and is idempotent", () => {
    expect(redactJson({ a: ["b", 1], password: "" })).toEqual({ value: { a: ["b", 1], password: "" }, redacted: false, kinds: [] });
    const once = redactJson({ token: "abc", text: `key ${anthropicKey}` });
    expect(redactJson(once.value)).toEqual({ value: once.value, redacted: false, kinds: [] });
  });

  it.each([null, 42, true, "plain"])("passes through the scalar %j", (value) => {
    expect(redactJson(value)).toEqual({ value, redacted: false, kinds: [] });
  });
});

// Each rule's worst case, 1 MB long: runs of what a rule's repetitions accept, each followed by what
// makes the match fail, so a rule that rescans a run from every start takes minutes (the generic
// `name=value` rule did, on `a_a_a_…`). No timing here: linear rules finish well inside the timeout.
describe("redactSecrets: linear on 1 MB of hostile input", () => {
  const MB = 2 ** 20;
  /** `unit` repeated to 1 MB. */
  const fill = (unit: string) => unit.repeat(Math.ceil(MB / unit.length));
  const unchanged = (input: string): [string, string] => [input, input];

  it.each<[string, () => [input: string, expected: string]]>([
    ["private key: many BEGIN lines", () => unchanged(fill("-----BEGIN "))],
    ["private key: a long label that never says PRIVATE KEY", () => unchanged(`-----BEGIN ${fill("RSA ")}-----`)],
    [
      "private key: a block whose END lines name another label",
      () => [`x\n-----BEGIN RSA PRIVATE KEY-----\n${fill("-----END PRIVATE KEY-----\n")}`, "x\n[REDACTED:private_key]"],
    ],
    ["Anthropic key: prefixes over and over", () => [fill("sk-ant-"), "[REDACTED:anthropic_key]"]],
    ["OpenAI key: one character short, over and over", () => unchanged(fill(`sk-${"a".repeat(15)} `))],
    ["GitHub token: one character short, over and over", () => unchanged(fill(`ghp_${"a".repeat(19)} `))],
    ["GitHub PAT: prefixes over and over", () => [fill("github_pat_"), "[REDACTED:github_token]"]],
    ["AWS key id: a run of prefixes too long to be one", () => unchanged(fill("AKIA"))],
    ["AWS secret: the name, then only whitespace", () => unchanged(`aws_secret_access_key${fill(" ")}=`)],
    ["AWS secret: the name over and over", () => unchanged(fill("aws_secret_access_key:"))],
    ["bearer token: Bearer, then only whitespace", () => unchanged(`Bearer${fill(" ")}x`)],
    ["bearer token: Bearer over and over", () => unchanged(fill("Bearer "))],
    ["name=value: a long prefix that ends in no name", () => unchanged(`${fill("a_")}!token`)],
    ["name=value: a long prefix before a name", () => [`${fill("a_")}token=v`, `${fill("a_")}token=[REDACTED:token]`]],
    ["name=value: a long dashed prefix before a name", () => [`${fill("x-")}-password: "a b"`, `${fill("x-")}-password: "[REDACTED:password]"`]],
    ["name=value: a name, then only whitespace", () => unchanged(`token${fill(" ")}x`)],
    ["name=value: an opening quote never closed", () => unchanged(`secret="${fill("a")}`)],
    ["name=value: assignments over and over", () => [fill("token="), "token=[REDACTED:token]"]],
  ])("%s", (_label, build) => {
    const [input, expected] = build();
    expect(input.length).toBeGreaterThanOrEqual(MB);
    expect(redactSecrets(input).text).toBe(expected);
  });

  it("redactJson: a 1 MB key is judged by its name's end", () => {
    const secretKey = `${fill("a_")}token`;
    const plainKey = `${fill("a_")}!`;
    expect(redactJson({ [secretKey]: "v", [plainKey]: "w" }).value).toEqual({ [secretKey]: "[REDACTED:token]", [plainKey]: "w" });
  });
});
