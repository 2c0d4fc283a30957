#!/usr/bin/env node
// The executable's older path (scripts, tests and configurations that name it): runs bin/proofgate.cjs,
// the `proofgate` command package.json installs. An ES module entry costs Node's ESM loader on every
// call (see proofgate.cjs), so the command itself is CommonJS; required here without an `import`
// (which would parse it for named exports first).
process.getBuiltinModule("node:module").createRequire(import.meta.url)("./proofgate.cjs");
