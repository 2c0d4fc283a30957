export const SERVER_NODE_FLAGS: readonly string[];
export function nextStartArgs(port: string | number, host?: string): string[];
