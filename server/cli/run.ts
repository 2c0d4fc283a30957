import type { Command } from "commander";
import { type Api, openApi } from "./api";
import type { GlobalOptions } from "./options";
import type { Output } from "./output";

/**
 * Wrap a command's action: open the API in the mode the global flags choose, run, print the result
 * (JSON with --json, otherwise the text `describe` makes), close. Errors propagate to `handleError`.
 */
export function apiAction<A extends unknown[]>(
  out: Output,
  run: (api: Api, ...args: A) => Promise<{ data: unknown; text: string }>,
): (...args: [...A, Command]) => Promise<void> {
  return async (...all) => {
    const command = all[all.length - 1] as Command;
    const args = all.slice(0, -1) as unknown as A;
    const api = openApi(command.optsWithGlobals<GlobalOptions>());
    try {
      const { data, text } = await run(api, ...args);
      out.result(data, text);
    } finally {
      api.close();
    }
  };
}

/** Pretty JSON for humans; BAZINGA's commands print JSON too, so agents' prompts keep parsing it. */
export function pretty(data: unknown): string {
  return JSON.stringify(data, null, 2);
}
