import type { BuildOptions } from "esbuild";

export function buildCli(): Promise<void>;
export function hookBuildOptions(): BuildOptions;
