/** How a command prints: human text, or one JSON document with `--json`; `--quiet` drops progress. */
export interface Output {
  result(data: unknown, text: string): void;
  progress(text: string): void;
}

export function createOutput(flags: () => { json?: boolean; quiet?: boolean }): Output {
  return {
    result(data, text) {
      process.stdout.write(flags().json ? `${JSON.stringify(data)}\n` : `${text}\n`);
    },
    progress(text) {
      const { json, quiet } = flags();
      if (!json && !quiet && process.stderr.isTTY) process.stderr.write(`\r${text}`);
    },
  };
}
