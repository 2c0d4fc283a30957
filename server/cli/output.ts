/** How a command prints: human text, or one JSON document with `--json` (progress is ./progress.ts's). */
export interface Output {
  result(data: unknown, text: string): void;
}

export function createOutput(flags: () => { json?: boolean; quiet?: boolean }): Output {
  return {
    result(data, text) {
      process.stdout.write(flags().json ? `${JSON.stringify(data)}\n` : `${text}\n`);
    },
  };
}
