/** Pretty JSON for humans; BAZINGA's commands print JSON too, so agents' prompts keep parsing it. */
export function pretty(data: unknown): string {
  return JSON.stringify(data, null, 2);
}
