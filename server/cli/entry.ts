import "./zod-one-shot";
import { main } from "./index";

// The bundled CLI's entry point (dist/cli.cjs, run by bin/proofgate.mjs): run, then exit with the command's code.
void main(process.argv).then((code) => {
  process.exitCode = code;
});
