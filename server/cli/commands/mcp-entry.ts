/**
 * The `mcp` group's loader, and the entry of its own bundle (dist/mcp.cjs; see
 * scripts/build-cli.mjs): behind a lazy import, so the bundle initialises its modules in the
 * order the command asks for them, as dist/cli.cjs does.
 */
export const loadMcpCommands = () => import("./mcp").then((m) => m.mcpCommands);
