// Builds the plugin (main.js, CommonJS, as Obsidian loads it) into the Python package, with
// manifest.json and styles.css beside it. `obsidian` and Node's built-ins stay external: Obsidian provides them.
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
// The logic and the engine socket's transport as ES modules, for node: the unit tests, and
// tests/obsidian/socket_client.mjs, which drives the transport against a real engine.
await build({
  entryPoints: ["src/logic.ts", "src/socket_transport.ts"],
  bundle: true,
  format: "esm",
  platform: "node",
  outdir: "build",
  outExtension: { ".js": ".mjs" },
  // The plugin requires Node's modules where it uses them (as Obsidian provides them); an ES
  // module has no require of its own.
  banner: { js: 'import { createRequire } from "node:module"; const require = createRequire(import.meta.url);' },
  logLevel: "warning",
});
