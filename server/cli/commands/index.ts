import type { Command } from "commander";
import type { Output } from "../output";
import { adminCommands } from "./admin";
import { contextCommands } from "./context";
import { criteriaCommands } from "./criteria";
import { eventCommands } from "./events";
import { goalCommands } from "./goals";
import { logCommands } from "./logs";
import { moveCommands } from "./moves";
import { queryCommands } from "./query";
import { reasoningCommands } from "./reasoning";
import { sessionCommands } from "./sessions";
import { stateCommands } from "./state";
import { taskCommands } from "./tasks";

/**
 * Every agent-facing and operator command, one file per group. The BAZINGA-compatible ones keep
 * the names, positional arguments and flags of BAZINGA's `bazinga_db.py`, so an orchestrator's
 * prompts work with only the program's name changed.
 */
export function registerCommands(program: Command, out: Output): void {
  sessionCommands(program, out);
  logCommands(program, out);
  stateCommands(program, out);
  taskCommands(program, out);
  moveCommands(program, out);
  criteriaCommands(program, out);
  goalCommands(program, out);
  reasoningCommands(program, out);
  eventCommands(program, out);
  contextCommands(program, out);
  queryCommands(program, out);
  adminCommands(program, out);
}
