/**
 * Prints the permission table (server/domain/permissions.ts) into README.md between its
 * `<!-- permissions:start -->` and `<!-- permissions:end -->` markers: `npm run docs:permissions`.
 * A test fails while the two differ.
 */
import fs from "node:fs";
import path from "node:path";
import { permissionsMarkdown } from "@/server/domain/permissions";

const file = path.join(process.cwd(), "README.md");
const readme = fs.readFileSync(file, "utf8");
const markers = /(<!-- permissions:start -->\n)[\s\S]*?(<!-- permissions:end -->)/;
if (!markers.test(readme)) throw new Error("README.md has no <!-- permissions:start --> … <!-- permissions:end --> markers");
fs.writeFileSync(
  file,
  readme.replace(markers, (_all, start: string, end: string) => `${start}${permissionsMarkdown()}\n${end}`),
);
console.log(`wrote the permission table into ${path.relative(process.cwd(), file)}`);
