// The rules of Obsidian's plugin review (eslint-plugin-obsidianmd's recommended set) over
// typescript-eslint's type-checked rules.
import tseslint from "typescript-eslint";
import obsidianmd from "eslint-plugin-obsidianmd";

export default tseslint.config(
  { ignores: ["build/**", "node_modules/**", "test/**", "*.mjs"] },
  ...obsidianmd.configs.recommended,
  {
    files: ["src/**/*.ts"],
    languageOptions: {
      parser: tseslint.parser,
      parserOptions: { project: "./tsconfig.json", tsconfigRootDir: import.meta.dirname },
    },
    // Starting vaultctx needs child_process, required behind Platform.isDesktop (desktop-only
    // plugin), and the engine's Unix socket needs http, required only when connect named that
    // socket; every other require stays forbidden.
    rules: { "@typescript-eslint/no-require-imports": ["error", { allow: ["^child_process$", "^http$"] }] },
  },
);
