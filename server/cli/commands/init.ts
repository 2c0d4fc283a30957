import fs from "node:fs";
import path from "node:path";
import type { Command } from "commander";
import { LedgerChoiceError, isPostgresTarget, resolveLedger } from "@/db/client";
import { AGENT_LABEL, AGENT_LABEL_RULE } from "@/server/domain/actors";
import { UsageError } from "../errors";
import { type JsonObject, type Merged, type Target, TOKEN_ENV, isObject, mergeMcpConfig, mergeSettings, mcpServerEntry } from "../init/config";
import type { GlobalOptions } from "../options";
import type { Output } from "../output";
import { pretty } from "../run";
import { example } from "./shared";

interface InitOptions {
  http?: boolean;
  dryRun?: boolean;
}

/** `proofgate init claude-code` and `proofgate init mcp`: wire an agent runtime to Proofgate. */
export function initCommands(program: Command, out: Output): void {
  const init = program
    .command("init")
    .description("Write the configuration that connects an agent runtime to Proofgate (Claude Code's hooks and MCP server, or any MCP client)");

  example(
    init
      .command("claude-code")
      .description(
        "Write or merge .claude/settings.json (hooks that hold a stop while the completion gate rejects) and .mcp.json (the proofgate MCP server) in this directory; existing entries are kept, a second run changes nothing",
      )
      .option("--http", "use Claude Code's http hooks and the server's /api/mcp (needs --url) instead of running proofgate")
      .option("--dry-run", "print the resulting files; write nothing"),
    "proofgate init claude-code --db ./data/proofgate.db",
    "proofgate init claude-code --url https://proofgate.example.com --http",
  ).action((options: InitOptions, command: Command) => {
    const globals = command.optsWithGlobals<GlobalOptions>();
    const target = targetOf(globals, options.http);
    const cwd = process.cwd();
    const files: { file: string; merge: (existing: JsonObject) => Merged }[] = [
      { file: path.join(cwd, ".claude", "settings.json"), merge: (existing) => mergeSettings(existing, target, Boolean(options.http)) },
      { file: path.join(cwd, ".mcp.json"), merge: (existing) => mergeMcpConfig(existing, target, Boolean(options.http)) },
    ];
    // Every file is read and merged before any is written: a malformed one stops the command with nothing changed.
    const results = files.map(({ file, merge }) => {
      const relative = path.relative(cwd, file);
      const existing = readJsonObject(file, relative);
      let merged: Merged;
      try {
        merged = merge(existing);
      } catch (error) {
        throw new UsageError(`${relative}: ${(error as Error).message}; fix or move the file, then run proofgate init again`);
      }
      return { file, relative, ...merged, existed: fs.existsSync(file) };
    });
    if (!options.dryRun) for (const r of results) if (r.changes.length > 0) writeJson(r.file, r.content);
    const lines = results.flatMap((r) => {
      if (options.dryRun) return [`${r.relative}${r.changes.length ? ` (would change: ${r.changes.join("; ")})` : " (unchanged)"}:`, pretty(r.content), ""];
      return [r.changes.length === 0 ? `${r.relative}: unchanged` : `${r.existed ? "updated" : "created"} ${r.relative}: ${r.changes.join("; ")}`];
    });
    if (options.dryRun) lines.push("dry run: nothing was written");
    lines.push(...notes(target, Boolean(options.http), "Claude Code", globals.token !== undefined));
    out.result(
      {
        dryRun: Boolean(options.dryRun),
        files: results.map((r) => ({ path: r.relative, changes: r.changes, written: !options.dryRun && r.changes.length > 0, content: r.content })),
      },
      lines.join("\n"),
    );
  });

  example(
    init
      .command("mcp")
      .description("Print the mcpServers block that connects any MCP client to Proofgate (stdio: proofgate mcp; --http: the server's /api/mcp)")
      .option("--http", "connect to the server's /api/mcp over Streamable HTTP (needs --url)"),
    "proofgate init mcp --db ./data/proofgate.db --agent-id developer_1",
    "proofgate init mcp --url https://proofgate.example.com --http",
  ).action((options: InitOptions, command: Command) => {
    const globals = command.optsWithGlobals<GlobalOptions>();
    const target = targetOf(globals, options.http);
    const block = { mcpServers: { proofgate: mcpServerEntry(target, Boolean(options.http)) } };
    // Only the block on stdout, so it can be piped; the notes go to stderr.
    out.result(block, pretty(block));
    const hints = notes(target, Boolean(options.http), "the MCP client", globals.token !== undefined);
    if (hints.length > 0) process.stderr.write(`${hints.join("\n")}\n`);
  });
}

/** The mode the configuration names, as other commands choose theirs: --db, else --url (or PROOFGATE_URL), else PROOFGATE_DB or ./data/proofgate.db. */
function targetOf(globals: GlobalOptions, http?: boolean): Target {
  const url = globals.url ?? process.env.PROOFGATE_URL;
  const agentId = globals.agentId;
  if (agentId !== undefined && !AGENT_LABEL.test(agentId)) throw new UsageError(`--agent-id: ${AGENT_LABEL_RULE}`);
  if (url && !globals.db && !globals.databaseUrl) {
    try {
      if (!/^https?:$/.test(new URL(url).protocol)) throw new Error();
    } catch {
      throw new UsageError(`--url: must be an http:// or https:// URL, got "${url}"`);
    }
    return { kind: "remote", url, agentId };
  }
  if (http) throw new UsageError(`--http: needs a server: give --url (the token is read from ${TOKEN_ENV} where the client runs)`);
  if (globals.token) throw new UsageError("--token: only with --url (a local database needs no token)");
  let ledger: string;
  try {
    ledger = resolveLedger({ db: globals.db, databaseUrl: globals.databaseUrl });
  } catch (error) {
    if (error instanceof LedgerChoiceError) throw new UsageError(error.message);
    throw error;
  }
  // A configuration file would carry the database's password to every agent: agents reach a PostgreSQL ledger through a server.
  if (isPostgresTarget(ledger)) {
    throw new UsageError(
      `init: agents reach a PostgreSQL ledger through a server: start one (proofgate serve --database-url …), run proofgate init --url <the server>, and set ${TOKEN_ENV} where the agents run`,
    );
  }
  // Claude Code runs hooks and servers from wherever it was started: the database by its absolute path.
  return { kind: "local", db: path.resolve(ledger), agentId };
}

/**
 * What the user must do for the configuration to work. A remote one never holds the token (a
 * command line is visible to every local user; the files are often committed): it reads
 * $PROOFGATE_TOKEN where the client runs, so the user exports it there — a --token given is not written.
 */
function notes(target: Target, http: boolean, client: string, tokenGiven: boolean): string[] {
  if (target.kind === "local") return [];
  const readers = http ? `${client} puts it in each request` : `${client} passes it to proofgate, which reads it`;
  return [
    ...(tokenGiven
      ? [`note: --token is not written into the configuration (a token there is readable by anyone who can read the files or list processes)`]
      : []),
    `note: the configuration reads the token from ${TOKEN_ENV}: export ${TOKEN_ENV}=pg_… in the environment ${client} runs in (${readers})`,
  ];
}

function readJsonObject(file: string, relative: string): JsonObject {
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return {};
    throw error;
  }
  if (text.trim() === "") return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`${relative}: is not valid JSON (${(error as Error).message}); fix it, then run proofgate init again`);
  }
  if (!isObject(parsed)) throw new UsageError(`${relative}: must hold a JSON object`);
  return parsed;
}

/** Written whole or not at all: a temporary file beside it, then renamed over it. */
function writeJson(file: string, content: unknown): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const temp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(temp, `${JSON.stringify(content, null, 2)}\n`);
  fs.renameSync(temp, file);
}
