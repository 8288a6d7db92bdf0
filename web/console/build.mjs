// Builds the console into one directory of static assets (index.html,
// app.js, app.css) that the scheduler embeds and serves at `/`
// (docs/console.md). Run by CMake during scripts/build.sh:
//   node build.mjs --out DIR
import { build } from "esbuild";
import { copyFileSync, mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const outIndex = process.argv.indexOf("--out");
const out = outIndex > 0 ? process.argv[outIndex + 1] : join(here, "dist");
mkdirSync(out, { recursive: true });

await build({
  entryPoints: [join(here, "src", "main.tsx")],
  bundle: true,
  minify: true,
  format: "esm",
  target: "es2022",
  jsx: "automatic",
  jsxImportSource: "preact",
  outfile: join(out, "app.js"),
  legalComments: "none",
  logLevel: "warning",
});
copyFileSync(join(here, "src", "index.html"), join(out, "index.html"));
copyFileSync(join(here, "src", "app.css"), join(out, "app.css"));
