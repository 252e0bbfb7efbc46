// Builds the plugin (main.js, CommonJS, as Obsidian loads it) into the Python package, with
// manifest.json and styles.css beside it, and the plugin's pure logic as an ES module for the
// unit tests (node --test). `obsidian` and Node's built-ins stay external: Obsidian provides them.
import { build } from "esbuild";
import { builtinModules } from "node:module";
import { copyFileSync, mkdirSync } from "node:fs";

// VAULTCTX_PLUGIN_OUT builds elsewhere: the tests compare a fresh build with the shipped one.
const shipped = process.env.VAULTCTX_PLUGIN_OUT || "../src/vaultctx/obsidian/plugin";
mkdirSync(shipped, { recursive: true });
await build({
  entryPoints: ["src/main.ts"],
  bundle: true,
  format: "cjs",
  platform: "browser",
  target: "es2021",
  external: ["obsidian", "electron", ...builtinModules, ...builtinModules.map((m) => `node:${m}`)],
  outfile: `${shipped}/main.js`,
  legalComments: "none",
  logLevel: "warning",
});
for (const name of ["manifest.json", "styles.css"]) copyFileSync(name, `${shipped}/${name}`);
await build({
  entryPoints: ["src/logic.ts"],
  bundle: true,
  format: "esm",
  platform: "node",
  outfile: "build/logic.mjs",
  logLevel: "warning",
});
