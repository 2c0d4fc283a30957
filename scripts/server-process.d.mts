export const SERVER_NODE_FLAGS: readonly string[];
export function serveArgs(port: string | number, host: string): string[];
