import { main } from "./index";

// The bundled CLI's entry point (dist/cli.mjs): run, then exit with the command's code.
process.exitCode = await main(process.argv);
