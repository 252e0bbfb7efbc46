"use strict";
var __defProp = Object.defineProperty;
var __getOwnPropDesc = Object.getOwnPropertyDescriptor;
var __getOwnPropNames = Object.getOwnPropertyNames;
var __hasOwnProp = Object.prototype.hasOwnProperty;
var __export = (target, all) => {
  for (var name in all)
    __defProp(target, name, { get: all[name], enumerable: true });
};
var __copyProps = (to, from, except, desc) => {
  if (from && typeof from === "object" || typeof from === "function") {
    for (let key of __getOwnPropNames(from))
      if (!__hasOwnProp.call(to, key) && key !== except)
        __defProp(to, key, { get: () => from[key], enumerable: !(desc = __getOwnPropDesc(from, key)) || desc.enumerable });
  }
  return to;
};
var __toCommonJS = (mod) => __copyProps(__defProp({}, "__esModule", { value: true }), mod);

// src/main.ts
var main_exports = {};
__export(main_exports, {
  default: () => VaultctxPlugin
});
module.exports = __toCommonJS(main_exports);
var import_obsidian9 = require("obsidian");

// src/client.ts
var import_obsidian = require("obsidian");

// src/strings.ts
var LANGUAGES = ["en", "ko", "ja"];
var en = {
  assistant: "vaultctx assistant",
  search: "vaultctx search",
  similar: "Similar notes",
  changes: "AI changes",
  ask: "Ask about your notes\u2026",
  send: "Send",
  stop: "Stop",
  sources: "Sources",
  unresolved: "Not found in the vault",
  thinking: "Answering\u2026",
  stopped: "Stopped.",
  searchPlaceholder: "Search the vault\u2026",
  noResults: "No results.",
  noActiveNote: "Open a note to see similar ones.",
  noChanges: "No AI changes yet.",
  undo: "Undo this change",
  undone: "Undone:",
  refresh: "Refresh",
  confirmTitle: "Allow this change?",
  yes: "Yes",
  no: "No",
  always: "Always (this conversation)",
  engineUp: "vaultctx: {files} notes indexed",
  enginePass2: "vaultctx: {files} notes indexed \xB7 pass 2 {percent}%",
  engineIndexing: "vaultctx: indexing {done}/{total}",
  engineDown: "vaultctx: not connected",
  missing: "vaultctx was not found at \"{path}\". Install it with `pipx install 'vaultctx[agent]'` (or set its path in the plugin's settings).",
  cannotConnect: "vaultctx could not start its server: {message}",
  openAssistant: "Open assistant",
  openSearch: "Search the vault",
  openSimilar: "Show similar notes",
  openChanges: "Show AI changes",
  indexVault: "Index the vault",
  undoLast: "Undo the last AI change",
  indexStarted: "vaultctx: indexing started.",
  nothingToUndo: "No AI change to undo.",
  executable: "vaultctx executable",
  executableDesc: "The vaultctx command, or its full path when Obsidian does not find it.",
  reportOpens: "Report opened notes",
  reportOpensDesc: "Tell vaultctx which notes you open (the path and the time, never the text), so its review queue skips notes you read lately. Kept outside the vault; `vaultctx brain opens --clear` forgets them.",
  effort: "Reasoning effort",
  effortDesc: "How hard the model thinks; from the next question on.",
  backend: "Backend",
  model: "Model",
  confirmChanges: "Ask before each change",
  confirmChangesDesc: "Off: the model's changes are written without asking (each can still be undone).",
  secondBrain: "Second Brain",
  asConfigured: "As configured",
  settingsNote: "These settings are written by vaultctx into your own vaultctx.toml (never the vault's) and apply to new conversations; keys stay in your keyring (`vaultctx secret`), never in this plugin. File:",
  newChat: "New chat",
  regenerate: "Regenerate",
  regenerated: "Answered again:",
  conversations: "Saved conversations",
  conversationsPlaceholder: "Search saved conversations\u2026",
  noConversations: "No saved conversations yet.",
  openConversations: "Show saved conversations",
  continuing: "Continuing: {title}",
  messages: "{count} messages",
  attach: "Attach a file",
  attachActive: "Attach the open note",
  dropHere: "Drop notes or files here to send them with the next question.",
  removeAttachment: "Remove {name}",
  notInVault: '"{link}" is not a file of this vault.',
  apiKey: "API key",
  apiKeyDesc: 'Stored in your OS keyring as "{name}", as `vaultctx secret set {name}` does; never in this plugin, and it is never shown again.',
  keySet: "A key is set.",
  keyMissing: "No key is set.",
  saveKey: "Save key",
  keySaved: 'The key is in your keyring as "{name}".'
};
var ko = {
  assistant: "vaultctx \uB3C4\uC6B0\uBBF8",
  search: "vaultctx \uAC80\uC0C9",
  similar: "\uBE44\uC2B7\uD55C \uB178\uD2B8",
  changes: "AI \uBCC0\uACBD \uB0B4\uC5ED",
  ask: "\uB178\uD2B8\uC5D0 \uB300\uD574 \uBB3C\uC5B4\uBCF4\uC138\uC694\u2026",
  send: "\uBCF4\uB0B4\uAE30",
  stop: "\uC911\uC9C0",
  sources: "\uCD9C\uCC98",
  unresolved: "\uBCFC\uD2B8\uC5D0 \uC5C6\uB294 \uC778\uC6A9",
  thinking: "\uB2F5\uBCC0 \uC911\u2026",
  stopped: "\uC911\uC9C0\uD588\uC2B5\uB2C8\uB2E4.",
  searchPlaceholder: "\uBCFC\uD2B8 \uAC80\uC0C9\u2026",
  noResults: "\uACB0\uACFC\uAC00 \uC5C6\uC2B5\uB2C8\uB2E4.",
  noActiveNote: "\uB178\uD2B8\uB97C \uC5F4\uBA74 \uBE44\uC2B7\uD55C \uB178\uD2B8\uAC00 \uBCF4\uC785\uB2C8\uB2E4.",
  noChanges: "\uC544\uC9C1 AI \uBCC0\uACBD\uC774 \uC5C6\uC2B5\uB2C8\uB2E4.",
  undo: "\uC774 \uBCC0\uACBD \uB418\uB3CC\uB9AC\uAE30",
  undone: "\uB418\uB3CC\uB9BC:",
  refresh: "\uC0C8\uB85C \uACE0\uCE68",
  confirmTitle: "\uC774 \uBCC0\uACBD\uC744 \uD5C8\uC6A9\uD560\uAE4C\uC694?",
  yes: "\uC608",
  no: "\uC544\uB2C8\uC694",
  always: "\uD56D\uC0C1 (\uC774 \uB300\uD654)",
  engineUp: "vaultctx: \uB178\uD2B8 {files}\uAC1C \uC0C9\uC778\uB428",
  enginePass2: "vaultctx: \uB178\uD2B8 {files}\uAC1C \uC0C9\uC778\uB428 \xB7 2\uB2E8\uACC4 {percent}%",
  engineIndexing: "vaultctx: \uC0C9\uC778 \uC911 {done}/{total}",
  engineDown: "vaultctx: \uC5F0\uACB0 \uC548 \uB428",
  missing: "\"{path}\"\uC5D0\uC11C vaultctx\uB97C \uCC3E\uC744 \uC218 \uC5C6\uC2B5\uB2C8\uB2E4. `pipx install 'vaultctx[agent]'`\uB85C \uC124\uCE58\uD558\uC138\uC694 (\uB610\uB294 \uD50C\uB7EC\uADF8\uC778 \uC124\uC815\uC5D0\uC11C \uACBD\uB85C\uB97C \uC9C0\uC815\uD558\uC138\uC694).",
  cannotConnect: "vaultctx \uC11C\uBC84\uB97C \uC2DC\uC791\uD560 \uC218 \uC5C6\uC2B5\uB2C8\uB2E4: {message}",
  openAssistant: "\uB3C4\uC6B0\uBBF8 \uC5F4\uAE30",
  openSearch: "\uBCFC\uD2B8 \uAC80\uC0C9",
  openSimilar: "\uBE44\uC2B7\uD55C \uB178\uD2B8 \uBCF4\uAE30",
  openChanges: "AI \uBCC0\uACBD \uB0B4\uC5ED \uBCF4\uAE30",
  indexVault: "\uBCFC\uD2B8 \uC0C9\uC778",
  undoLast: "\uB9C8\uC9C0\uB9C9 AI \uBCC0\uACBD \uB418\uB3CC\uB9AC\uAE30",
  indexStarted: "vaultctx: \uC0C9\uC778\uC744 \uC2DC\uC791\uD588\uC2B5\uB2C8\uB2E4.",
  nothingToUndo: "\uB418\uB3CC\uB9B4 AI \uBCC0\uACBD\uC774 \uC5C6\uC2B5\uB2C8\uB2E4.",
  executable: "vaultctx \uC2E4\uD589 \uD30C\uC77C",
  executableDesc: "vaultctx \uBA85\uB839, \uB610\uB294 Obsidian\uC774 \uCC3E\uC9C0 \uBABB\uD560 \uB54C \uC804\uCCB4 \uACBD\uB85C.",
  reportOpens: "\uC5F0 \uB178\uD2B8 \uC54C\uB9AC\uAE30",
  reportOpensDesc: "\uC5B4\uB5A4 \uB178\uD2B8\uB97C \uC5EC\uB294\uC9C0 vaultctx\uC5D0 \uC54C\uB9BD\uB2C8\uB2E4(\uACBD\uB85C\uC640 \uC2DC\uAC01\uB9CC, \uB0B4\uC6A9\uC740 \uBCF4\uB0B4\uC9C0 \uC54A\uC74C). \uAC80\uD1A0 \uB300\uAE30\uC5F4\uC774 \uCD5C\uADFC\uC5D0 \uC77D\uC740 \uB178\uD2B8\uB97C \uAC74\uB108\uB701\uB2C8\uB2E4. \uBCFC\uD2B8 \uBC16\uC5D0 \uBCF4\uAD00\uB418\uBA70 `vaultctx brain opens --clear`\uB85C \uC9C0\uC6C1\uB2C8\uB2E4.",
  effort: "\uCD94\uB860 \uAC15\uB3C4",
  effortDesc: "\uBAA8\uB378\uC774 \uC5BC\uB9C8\uB098 \uAE4A\uC774 \uC0DD\uAC01\uD560\uC9C0; \uB2E4\uC74C \uC9C8\uBB38\uBD80\uD130.",
  backend: "\uBC31\uC5D4\uB4DC",
  model: "\uBAA8\uB378",
  confirmChanges: "\uBCC0\uACBD \uC804\uB9C8\uB2E4 \uBB3B\uAE30",
  confirmChangesDesc: "\uB044\uBA74 \uBAA8\uB378\uC758 \uBCC0\uACBD\uC774 \uBB3B\uC9C0 \uC54A\uACE0 \uAE30\uB85D\uB429\uB2C8\uB2E4 (\uBAA8\uB450 \uB418\uB3CC\uB9B4 \uC218 \uC788\uC2B5\uB2C8\uB2E4).",
  secondBrain: "\uC138\uCEE8\uB4DC \uBE0C\uB808\uC778",
  asConfigured: "\uC124\uC815\uB300\uB85C",
  settingsNote: "\uC774 \uC124\uC815\uC740 vaultctx\uAC00 \uC0AC\uC6A9\uC790 \uC790\uC2E0\uC758 vaultctx.toml(\uBCFC\uD2B8\uC758 \uAC83\uC774 \uC544\uB2D8)\uC5D0 \uAE30\uB85D\uD558\uBA70 \uC0C8 \uB300\uD654\uBD80\uD130 \uC801\uC6A9\uB429\uB2C8\uB2E4. \uD0A4\uB294 \uD0A4\uB9C1(`vaultctx secret`)\uC5D0\uB9CC \uC788\uACE0 \uC774 \uD50C\uB7EC\uADF8\uC778\uC5D0\uB294 \uC800\uC7A5\uB418\uC9C0 \uC54A\uC2B5\uB2C8\uB2E4. \uD30C\uC77C:",
  newChat: "\uC0C8 \uB300\uD654",
  regenerate: "\uB2E4\uC2DC \uB2F5\uBCC0",
  regenerated: "\uB2E4\uC2DC \uB2F5\uBCC0:",
  conversations: "\uC800\uC7A5\uB41C \uB300\uD654",
  conversationsPlaceholder: "\uC800\uC7A5\uB41C \uB300\uD654 \uAC80\uC0C9\u2026",
  noConversations: "\uC800\uC7A5\uB41C \uB300\uD654\uAC00 \uC544\uC9C1 \uC5C6\uC2B5\uB2C8\uB2E4.",
  openConversations: "\uC800\uC7A5\uB41C \uB300\uD654 \uBCF4\uAE30",
  continuing: "\uC774\uC5B4\uC11C: {title}",
  messages: "\uBA54\uC2DC\uC9C0 {count}\uAC1C",
  attach: "\uD30C\uC77C \uCCA8\uBD80",
  attachActive: "\uC5F4\uB9B0 \uB178\uD2B8 \uCCA8\uBD80",
  dropHere: "\uB178\uD2B8\uB098 \uD30C\uC77C\uC744 \uC5EC\uAE30\uC5D0 \uB193\uC73C\uBA74 \uB2E4\uC74C \uC9C8\uBB38\uACFC \uD568\uAED8 \uBCF4\uB0C5\uB2C8\uB2E4.",
  removeAttachment: "{name} \uBE7C\uAE30",
  notInVault: '"{link}"\uC740(\uB294) \uC774 \uBCFC\uD2B8\uC758 \uD30C\uC77C\uC774 \uC544\uB2D9\uB2C8\uB2E4.',
  apiKey: "API \uD0A4",
  apiKeyDesc: '`vaultctx secret set {name}`\uCC98\uB7FC OS \uD0A4\uB9C1\uC5D0 "{name}"(\uC73C)\uB85C \uC800\uC7A5\uB429\uB2C8\uB2E4. \uC774 \uD50C\uB7EC\uADF8\uC778\uC5D0\uB294 \uC800\uC7A5\uB418\uC9C0 \uC54A\uACE0 \uB2E4\uC2DC \uD45C\uC2DC\uB418\uC9C0 \uC54A\uC2B5\uB2C8\uB2E4.',
  keySet: "\uD0A4\uAC00 \uC124\uC815\uB418\uC5B4 \uC788\uC2B5\uB2C8\uB2E4.",
  keyMissing: "\uC124\uC815\uB41C \uD0A4\uAC00 \uC5C6\uC2B5\uB2C8\uB2E4.",
  saveKey: "\uD0A4 \uC800\uC7A5",
  keySaved: '\uD0A4\uB97C \uD0A4\uB9C1\uC5D0 "{name}"(\uC73C)\uB85C \uC800\uC7A5\uD588\uC2B5\uB2C8\uB2E4.'
};
var ja = {
  assistant: "vaultctx \u30A2\u30B7\u30B9\u30BF\u30F3\u30C8",
  search: "vaultctx \u691C\u7D22",
  similar: "\u985E\u4F3C\u30CE\u30FC\u30C8",
  changes: "AI \u306B\u3088\u308B\u5909\u66F4",
  ask: "\u30CE\u30FC\u30C8\u306B\u3064\u3044\u3066\u8CEA\u554F\u2026",
  send: "\u9001\u4FE1",
  stop: "\u505C\u6B62",
  sources: "\u51FA\u5178",
  unresolved: "\u30DC\u30FC\u30EB\u30C8\u306B\u898B\u3064\u304B\u3089\u306A\u3044\u5F15\u7528",
  thinking: "\u56DE\u7B54\u4E2D\u2026",
  stopped: "\u505C\u6B62\u3057\u307E\u3057\u305F\u3002",
  searchPlaceholder: "\u30DC\u30FC\u30EB\u30C8\u3092\u691C\u7D22\u2026",
  noResults: "\u7D50\u679C\u306F\u3042\u308A\u307E\u305B\u3093\u3002",
  noActiveNote: "\u30CE\u30FC\u30C8\u3092\u958B\u304F\u3068\u985E\u4F3C\u30CE\u30FC\u30C8\u304C\u8868\u793A\u3055\u308C\u307E\u3059\u3002",
  noChanges: "AI \u306B\u3088\u308B\u5909\u66F4\u306F\u307E\u3060\u3042\u308A\u307E\u305B\u3093\u3002",
  undo: "\u3053\u306E\u5909\u66F4\u3092\u5143\u306B\u623B\u3059",
  undone: "\u5143\u306B\u623B\u3057\u307E\u3057\u305F:",
  refresh: "\u66F4\u65B0",
  confirmTitle: "\u3053\u306E\u5909\u66F4\u3092\u8A31\u53EF\u3057\u307E\u3059\u304B?",
  yes: "\u306F\u3044",
  no: "\u3044\u3044\u3048",
  always: "\u5E38\u306B (\u3053\u306E\u4F1A\u8A71)",
  engineUp: "vaultctx: {files} \u30CE\u30FC\u30C8\u3092\u7D22\u5F15\u6E08\u307F",
  enginePass2: "vaultctx: {files} \u30CE\u30FC\u30C8\u3092\u7D22\u5F15\u6E08\u307F \xB7 \u30D1\u30B9 2 {percent}%",
  engineIndexing: "vaultctx: \u7D22\u5F15\u4F5C\u6210\u4E2D {done}/{total}",
  engineDown: "vaultctx: \u672A\u63A5\u7D9A",
  missing: "\"{path}\" \u306B vaultctx \u304C\u898B\u3064\u304B\u308A\u307E\u305B\u3093\u3002`pipx install 'vaultctx[agent]'` \u3067\u30A4\u30F3\u30B9\u30C8\u30FC\u30EB\u3057\u3066\u304F\u3060\u3055\u3044 (\u307E\u305F\u306F\u30D7\u30E9\u30B0\u30A4\u30F3\u8A2D\u5B9A\u3067\u30D1\u30B9\u3092\u6307\u5B9A)\u3002",
  cannotConnect: "vaultctx \u30B5\u30FC\u30D0\u30FC\u3092\u8D77\u52D5\u3067\u304D\u307E\u305B\u3093: {message}",
  openAssistant: "\u30A2\u30B7\u30B9\u30BF\u30F3\u30C8\u3092\u958B\u304F",
  openSearch: "\u30DC\u30FC\u30EB\u30C8\u3092\u691C\u7D22",
  openSimilar: "\u985E\u4F3C\u30CE\u30FC\u30C8\u3092\u8868\u793A",
  openChanges: "AI \u306B\u3088\u308B\u5909\u66F4\u3092\u8868\u793A",
  indexVault: "\u30DC\u30FC\u30EB\u30C8\u3092\u7D22\u5F15\u5316",
  undoLast: "\u6700\u5F8C\u306E AI \u5909\u66F4\u3092\u5143\u306B\u623B\u3059",
  indexStarted: "vaultctx: \u7D22\u5F15\u4F5C\u6210\u3092\u958B\u59CB\u3057\u307E\u3057\u305F\u3002",
  nothingToUndo: "\u5143\u306B\u623B\u3059 AI \u5909\u66F4\u306F\u3042\u308A\u307E\u305B\u3093\u3002",
  executable: "vaultctx \u5B9F\u884C\u30D5\u30A1\u30A4\u30EB",
  executableDesc: "vaultctx \u30B3\u30DE\u30F3\u30C9\u3001\u307E\u305F\u306F Obsidian \u304C\u898B\u3064\u3051\u3089\u308C\u306A\u3044\u5834\u5408\u306E\u30D5\u30EB\u30D1\u30B9\u3002",
  reportOpens: "\u958B\u3044\u305F\u30CE\u30FC\u30C8\u3092\u77E5\u3089\u305B\u308B",
  reportOpensDesc: "\u958B\u3044\u305F\u30CE\u30FC\u30C8\u3092 vaultctx \u306B\u77E5\u3089\u305B\u307E\u3059\uFF08\u30D1\u30B9\u3068\u6642\u523B\u306E\u307F\u3001\u672C\u6587\u306F\u9001\u308A\u307E\u305B\u3093\uFF09\u3002\u5FA9\u7FD2\u30AD\u30E5\u30FC\u304C\u6700\u8FD1\u8AAD\u3093\u3060\u30CE\u30FC\u30C8\u3092\u98DB\u3070\u3057\u307E\u3059\u3002\u4FDD\u7BA1\u5834\u6240\u306F\u4FDD\u7BA1\u5EAB\u306E\u5916\u3067\u3001`vaultctx brain opens --clear` \u3067\u6D88\u53BB\u3067\u304D\u307E\u3059\u3002",
  effort: "\u63A8\u8AD6\u306E\u5F37\u3055",
  effortDesc: "\u30E2\u30C7\u30EB\u304C\u3069\u308C\u3060\u3051\u8003\u3048\u308B\u304B\u3002\u6B21\u306E\u8CEA\u554F\u304B\u3089\u3002",
  backend: "\u30D0\u30C3\u30AF\u30A8\u30F3\u30C9",
  model: "\u30E2\u30C7\u30EB",
  confirmChanges: "\u5909\u66F4\u306E\u305F\u3073\u306B\u78BA\u8A8D",
  confirmChangesDesc: "\u30AA\u30D5\u306B\u3059\u308B\u3068\u30E2\u30C7\u30EB\u306E\u5909\u66F4\u306F\u78BA\u8A8D\u306A\u3057\u3067\u66F8\u304D\u8FBC\u307E\u308C\u307E\u3059 (\u3059\u3079\u3066\u5143\u306B\u623B\u305B\u307E\u3059)\u3002",
  secondBrain: "\u30BB\u30AB\u30F3\u30C9\u30D6\u30EC\u30A4\u30F3",
  asConfigured: "\u8A2D\u5B9A\u3069\u304A\u308A",
  settingsNote: "\u3053\u308C\u3089\u306E\u8A2D\u5B9A\u306F vaultctx \u304C\u30E6\u30FC\u30B6\u30FC\u81EA\u8EAB\u306E vaultctx.toml (\u30DC\u30FC\u30EB\u30C8\u306E\u3082\u306E\u3067\u306F\u306A\u3044) \u306B\u66F8\u304D\u8FBC\u307F\u3001\u65B0\u3057\u3044\u4F1A\u8A71\u304B\u3089\u9069\u7528\u3055\u308C\u307E\u3059\u3002\u30AD\u30FC\u306F\u30AD\u30FC\u30EA\u30F3\u30B0 (`vaultctx secret`) \u306B\u306E\u307F\u3042\u308A\u3001\u3053\u306E\u30D7\u30E9\u30B0\u30A4\u30F3\u306B\u306F\u4FDD\u5B58\u3055\u308C\u307E\u305B\u3093\u3002\u30D5\u30A1\u30A4\u30EB:",
  newChat: "\u65B0\u3057\u3044\u4F1A\u8A71",
  regenerate: "\u518D\u751F\u6210",
  regenerated: "\u518D\u56DE\u7B54:",
  conversations: "\u4FDD\u5B58\u3057\u305F\u4F1A\u8A71",
  conversationsPlaceholder: "\u4FDD\u5B58\u3057\u305F\u4F1A\u8A71\u3092\u691C\u7D22\u2026",
  noConversations: "\u4FDD\u5B58\u3057\u305F\u4F1A\u8A71\u306F\u307E\u3060\u3042\u308A\u307E\u305B\u3093\u3002",
  openConversations: "\u4FDD\u5B58\u3057\u305F\u4F1A\u8A71\u3092\u8868\u793A",
  continuing: "\u7D9A\u304D: {title}",
  messages: "\u30E1\u30C3\u30BB\u30FC\u30B8 {count} \u4EF6",
  attach: "\u30D5\u30A1\u30A4\u30EB\u3092\u6DFB\u4ED8",
  attachActive: "\u958B\u3044\u3066\u3044\u308B\u30CE\u30FC\u30C8\u3092\u6DFB\u4ED8",
  dropHere: "\u30CE\u30FC\u30C8\u3084\u30D5\u30A1\u30A4\u30EB\u3092\u3053\u3053\u306B\u30C9\u30ED\u30C3\u30D7\u3059\u308B\u3068\u6B21\u306E\u8CEA\u554F\u3068\u4E00\u7DD2\u306B\u9001\u308A\u307E\u3059\u3002",
  removeAttachment: "{name} \u3092\u5916\u3059",
  notInVault: '"{link}" \u306F\u3053\u306E\u30DC\u30FC\u30EB\u30C8\u306E\u30D5\u30A1\u30A4\u30EB\u3067\u306F\u3042\u308A\u307E\u305B\u3093\u3002',
  apiKey: "API \u30AD\u30FC",
  apiKeyDesc: '`vaultctx secret set {name}` \u3068\u540C\u3058\u304F OS \u306E\u30AD\u30FC\u30EA\u30F3\u30B0\u306B "{name}" \u3068\u3057\u3066\u4FDD\u5B58\u3055\u308C\u307E\u3059\u3002\u3053\u306E\u30D7\u30E9\u30B0\u30A4\u30F3\u306B\u306F\u4FDD\u5B58\u3055\u308C\u305A\u3001\u518D\u8868\u793A\u3082\u3055\u308C\u307E\u305B\u3093\u3002',
  keySet: "\u30AD\u30FC\u306F\u8A2D\u5B9A\u6E08\u307F\u3067\u3059\u3002",
  keyMissing: "\u30AD\u30FC\u304C\u8A2D\u5B9A\u3055\u308C\u3066\u3044\u307E\u305B\u3093\u3002",
  saveKey: "\u30AD\u30FC\u3092\u4FDD\u5B58",
  keySaved: '\u30AD\u30FC\u3092\u30AD\u30FC\u30EA\u30F3\u30B0\u306B "{name}" \u3068\u3057\u3066\u4FDD\u5B58\u3057\u307E\u3057\u305F\u3002'
};
var TABLES = { en, ko, ja };
function pickLanguage(code) {
  const base = (code ?? "").toLowerCase().split(/[-_]/)[0] ?? "";
  return LANGUAGES.includes(base) ? base : "en";
}
function translate(language, key, fill = {}) {
  const text = TABLES[language][key] ?? en[key];
  return text.replace(/\{(\w+)\}/g, (whole, name) => name in fill ? String(fill[name]) : whole);
}

// src/open_reports.ts
var OPEN_DWELL_MS = 2e3;
var MAX_WAITING_OPENS = 50;
function isReportable(file, configDir) {
  if (!file || file.extension.toLowerCase() !== "md" || file.path.length === 0) return false;
  const parts = file.path.split("/");
  return parts[0] !== configDir && !parts.some((part) => part.startsWith("."));
}
var OpenReporter = class {
  constructor(send, timers, now = Date.now, dwellMs = OPEN_DWELL_MS) {
    this.send = send;
    this.timers = timers;
    this.now = now;
    this.dwellMs = dwellMs;
    this.candidate = null;
    this.timer = null;
    this.waiting = [];
    this.sending = false;
  }
  /** A note was opened (or `null`: none is open now); a later open before the dwell ends
   * replaces it. */
  opened(path) {
    if (this.timer !== null) this.timers.clearTimeout(this.timer);
    this.timer = null;
    this.candidate = path ? { path, at: this.now() } : null;
    if (!this.candidate) return;
    this.timer = this.timers.setTimeout(() => {
      this.timer = null;
      if (this.candidate) this.keep(this.candidate);
      this.candidate = null;
      void this.flush();
    }, this.dwellMs);
  }
  /** Send what waits; on failure it waits for the next open (the newest kept). */
  async flush() {
    if (this.sending || this.waiting.length === 0) return;
    const batch = this.waiting;
    this.waiting = [];
    this.sending = true;
    let sent = false;
    try {
      await this.send(batch);
      sent = true;
    } catch {
      for (const open of batch.reverse()) this.keep(open, true);
    } finally {
      this.sending = false;
    }
    if (sent) await this.flush();
  }
  /** The opens not yet sent, oldest first (for the tests and for unload). */
  pending() {
    return [...this.waiting];
  }
  /** Stop waiting: an open still in its dwell is dropped (the note was not stayed on). */
  cancel() {
    if (this.timer !== null) this.timers.clearTimeout(this.timer);
    this.timer = null;
    this.candidate = null;
  }
  keep(open, older = false) {
    if (older) this.waiting.unshift(open);
    else this.waiting.push(open);
    if (this.waiting.length > MAX_WAITING_OPENS) this.waiting = this.waiting.slice(-MAX_WAITING_OPENS);
  }
};

// src/logic.ts
function isSocket(connection) {
  return "socket" in connection;
}
var LOOPBACK_URL = /^http:\/\/(127\.0\.0\.1|localhost|\[::1\]):\d{1,5}$/;
var VAULT_BASE = /^\/vaults\/[0-9a-f]{16}$/;
function parseConnection(stdout) {
  let data;
  try {
    data = JSON.parse(stdout.trim().split("\n").pop() ?? "");
  } catch {
    throw new Error("vaultctx printed no connection (is it older than this plugin?)");
  }
  const found = typeof data === "object" && data !== null ? data : {};
  if (found.socket !== void 0) return socketConnection(found);
  if (typeof found.url !== "string" || !LOOPBACK_URL.test(found.url)) {
    throw new Error("vaultctx named a server that is not on this machine");
  }
  if (typeof found.token !== "string" || found.token.length === 0) {
    throw new Error("vaultctx gave no token for its server");
  }
  return { url: found.url, token: found.token };
}
function socketConnection(found) {
  if (typeof found.socket !== "string" || !found.socket.startsWith("/") || found.socket.includes("\0")) {
    throw new Error("vaultctx named an engine socket that is not a path on this machine");
  }
  if (typeof found.base !== "string" || !VAULT_BASE.test(found.base)) {
    throw new Error("vaultctx named no vault on its engine socket");
  }
  if (typeof found.pid !== "number" || !Number.isInteger(found.pid) || found.pid <= 0) {
    throw new Error("vaultctx named no engine process");
  }
  return { socket: found.socket, base: found.base, pid: found.pid };
}
function sameServer(a, b) {
  if (isSocket(a) || isSocket(b)) {
    return isSocket(a) && isSocket(b) && a.socket === b.socket && a.base === b.base && a.pid === b.pid;
  }
  return a.url === b.url && a.token === b.token;
}
function describeConnection(connection) {
  return isSocket(connection) ? `the vaultctx engine at ${connection.socket}` : `the vaultctx server at ${connection.url}`;
}
var StaleConnection = class extends Error {
};
var VaultctxProblem = class extends Error {
};
function readReply(reply, connection) {
  const data = typeof reply.json === "object" && reply.json !== null ? reply.json : {};
  if (reply.status === 410 && isSocket(connection)) throw new StaleConnection(data.error ?? "the engine restarted");
  if (reply.status === 404) {
    throw new VaultctxProblem(
      `${describeConnection(connection)} does not serve the Obsidian plugin (an older vaultctx?); update vaultctx and restart that server`
    );
  }
  if (reply.status >= 400) {
    const fix = data.suggestion ? ` (${data.suggestion})` : "";
    throw new VaultctxProblem(`${data.error ?? `HTTP ${reply.status}`}${fix}`);
  }
  return data;
}
function debounce(run, ms, timers) {
  let waiting = null;
  return (...args) => {
    if (waiting !== null) timers.clearTimeout(waiting);
    waiting = timers.setTimeout(() => {
      waiting = null;
      run(...args);
    }, ms);
  };
}
function citationLink(citation) {
  let text = citation.trim();
  if (text.startsWith("[[") && text.endsWith("]]")) text = text.slice(2, -2);
  text = text.split("|")[0] ?? "";
  const [path = "", ...heading] = text.split("#");
  const note = path.toLowerCase().endsWith(".md") ? path.slice(0, -3) : path;
  return heading.length ? `${note}#${heading.join("#")}` : note;
}
function newTurn() {
  return { text: "", sources: [], unresolved: [], tools: [], confirms: [], error: null, conversation: null, done: false, stopped: false };
}
function asRecord(data) {
  return typeof data === "object" && data !== null ? data : {};
}
function asText(value) {
  return typeof value === "string" ? value : "";
}
function applyEvent(state, event) {
  const data = asRecord(event.data);
  switch (event.kind) {
    case "text":
      return { ...state, text: state.text + asText(event.data) };
    case "tool":
      return { ...state, tools: [...state.tools, asText(data.name)] };
    case "confirm":
      return {
        ...state,
        confirms: [...state.confirms, { id: asText(data.id), tool: asText(data.tool), args: asText(data.args), diff: asText(data.diff) }]
      };
    case "done": {
      const sources = Array.isArray(data.sources) ? data.sources.map(asText).filter(Boolean) : [];
      const unresolved = Array.isArray(data.unresolved) ? data.unresolved.map((item) => ({ citation: asText(asRecord(item).citation), message: asText(asRecord(item).message) })) : [];
      const error = asText(data.error) || null;
      return { ...state, sources, unresolved, error, conversation: asText(data.conversation) || null, stopped: data.stopped === true, done: true };
    }
    case "failure": {
      const suggestion = asText(data.suggestion);
      return { ...state, error: asText(data.message) + (suggestion ? ` (${suggestion})` : ""), done: true };
    }
    case "stopped":
      return { ...state, stopped: true, done: true };
    default:
      return state;
  }
}
function statusKey(status) {
  if (status === null) return { key: "engineDown", fill: {} };
  if (status.job.state === "running") return { key: "engineIndexing", fill: { done: status.job.done, total: status.job.total } };
  const pass2 = status.quality_chunks ?? status.chunks;
  if (pass2 > 0 && status.quality_vectors < pass2) {
    return { key: "enginePass2", fill: { files: status.files, percent: Math.floor(100 * status.quality_vectors / pass2) } };
  }
  return { key: "engineUp", fill: { files: status.files } };
}
function diffLines(diff) {
  return diff.split("\n").map((text) => {
    if (text.startsWith("+++") || text.startsWith("---")) return { text, kind: "hunk" };
    if (text.startsWith("+")) return { text, kind: "add" };
    if (text.startsWith("-")) return { text, kind: "del" };
    if (text.startsWith("@@")) return { text, kind: "hunk" };
    return { text, kind: "ctx" };
  });
}
function snippetParts(snippet) {
  return snippet.split("**").map((text, index) => ({ text, match: index % 2 === 1 })).filter((part) => part.text.length > 0);
}
function droppedLinks(text) {
  const found = [];
  for (const line of text.split(/\r?\n/)) {
    const trimmed = line.trim();
    if (trimmed.startsWith("obsidian://")) {
      try {
        const file = new URL(trimmed).searchParams.get("file");
        if (file) found.push(file);
      } catch {
      }
    }
  }
  for (const match of text.matchAll(/\[\[([^\]\n]+)\]\]/g)) {
    const link = (match[1] ?? "").split("|")[0]?.split("#")[0]?.trim();
    if (link) found.push(link);
  }
  return [...new Set(found)];
}
function toBase64(bytes) {
  let binary = "";
  const piece = 32768;
  for (let start = 0; start < bytes.length; start += piece) {
    binary += String.fromCharCode(...bytes.subarray(start, start + piece));
  }
  return btoa(binary);
}
function attachmentName(attachment) {
  return attachment.kind === "vault" ? attachment.path : attachment.name;
}
function attachmentFields(pending) {
  const vault = pending.flatMap((a) => a.kind === "vault" ? [a.path] : []);
  const files = pending.flatMap((a) => a.kind === "disk" ? [{ name: a.name, data: a.data }] : []);
  return { vault_files: [...new Set(vault)], files };
}

// src/socket_transport.ts
var MAX_REPLY_BYTES = 64 * 1024 * 1024;
var SILENCE_MS = 18e4;
function postOverSocket(connection, action, body) {
  const { request } = require("http");
  const payload = new TextEncoder().encode(JSON.stringify(body));
  return new Promise((resolve, reject) => {
    const call = request(
      {
        socketPath: connection.socket,
        path: `${connection.base}/vaultctx/obsidian/${action}`,
        method: "POST",
        headers: { "Content-Type": "application/json", "Content-Length": payload.byteLength }
      },
      (response) => {
        const chunks = [];
        let size = 0;
        response.on("data", (chunk) => {
          size += chunk.byteLength;
          if (size > MAX_REPLY_BYTES) call.destroy(new Error(`the vaultctx engine answered more than ${MAX_REPLY_BYTES} bytes`));
          else chunks.push(chunk);
        });
        response.on("end", () => resolve({ status: response.statusCode ?? 0, json: parsed(chunks) }));
        response.on("error", reject);
      }
    );
    call.setTimeout(SILENCE_MS, () => call.destroy(new Error("the vaultctx engine stopped answering")));
    call.on("error", reject);
    call.end(payload);
  });
}
function parsed(chunks) {
  const bytes = new Uint8Array(chunks.reduce((n, c) => n + c.byteLength, 0));
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.byteLength;
  }
  try {
    return JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    return {};
  }
}

// src/client.ts
var VaultctxClient = class {
  constructor(connection, reconnect = null) {
    this.connection = connection;
    this.reconnect = reconnect;
  }
  /** One action; when the server cannot be reached at all (it was stopped, or the machine
   * restarted it), the plugin connects again and, if that found another server, retries once:
   * the old one is gone, so nothing it did can be done twice. */
  async post(action, body = {}) {
    try {
      return await this.send(action, body);
    } catch (error) {
      if (error instanceof VaultctxProblem) throw error;
      const before = this.connection;
      if (!this.reconnect) throw error;
      this.connection = await this.reconnect();
      if (sameServer(before, this.connection) && !(error instanceof StaleConnection)) throw error;
      return this.send(action, body);
    }
  }
  async send(action, body) {
    const connection = this.connection;
    const reply = isSocket(connection) ? await postOverSocket(connection, action, body) : await postOverHttp(connection, action, body);
    return readReply(reply, connection);
  }
  /** Ask, and hand each new state of the answer to `update` until it is done; `started`
   * gets the turn's id (for Stop). */
  async ask(question, update, started) {
    const { turn } = await this.post("chat", { ...question });
    started(turn);
    let state = newTurn();
    let seen = 0;
    while (!state.done) {
      const polled = await this.post("poll", { turn, after: seen });
      seen += polled.events.length;
      for (const event of polled.events) state = applyEvent(state, event);
      if (polled.done && !state.done) state = { ...state, done: true };
      update(state);
    }
    return state;
  }
};
async function postOverHttp(connection, action, body) {
  const response = await (0, import_obsidian.requestUrl)({
    url: `${connection.url}/vaultctx/obsidian/${action}`,
    method: "POST",
    contentType: "application/json",
    headers: { Authorization: `Bearer ${connection.token}` },
    body: JSON.stringify(body),
    throw: false
  });
  let json = {};
  try {
    json = response.json;
  } catch {
    json = {};
  }
  return { status: response.status, json };
}

// src/connection.ts
var import_obsidian2 = require("obsidian");
var MissingExecutable = class extends Error {
};
async function connect(executable, vault) {
  if (!import_obsidian2.Platform.isDesktop) throw new Error("vaultctx runs on desktop only");
  const { execFile } = require("child_process");
  const stdout = await new Promise((resolve, reject) => {
    execFile(executable, ["obsidian", "connect", "--vault", vault], { timeout: 12e4, windowsHide: true, encoding: "utf8" }, (error, out, err) => {
      if (error) {
        const message = err.trim().split("\n").pop() || error.message;
        reject(error.code === "ENOENT" ? new MissingExecutable(executable) : new Error(message));
        return;
      }
      resolve(out);
    });
  });
  return parseConnection(stdout);
}

// src/settings.ts
var import_obsidian3 = require("obsidian");
var DEFAULT_SETTINGS = { executable: "vaultctx", reportOpens: true };
var VaultctxSettingTab = class extends import_obsidian3.PluginSettingTab {
  constructor(app, owner) {
    super(app, owner);
    this.owner = owner;
  }
  display() {
    const { containerEl } = this;
    const say = this.owner.say;
    containerEl.empty();
    new import_obsidian3.Setting(containerEl).setName(say("executable")).setDesc(say("executableDesc")).addText(
      (text) => text.setValue(this.owner.settings.executable).onChange(async (value) => {
        this.owner.settings.executable = value.trim() || DEFAULT_SETTINGS.executable;
        await this.owner.saveSettings();
      })
    );
    new import_obsidian3.Setting(containerEl).setName(say("reportOpens")).setDesc(say("reportOpensDesc")).addToggle(
      (toggle) => toggle.setValue(this.owner.settings.reportOpens).onChange(async (value) => {
        this.owner.settings.reportOpens = value;
        await this.owner.saveSettings();
      })
    );
    const shared = containerEl.createDiv({ cls: "vaultctx-shared-settings" });
    void this.showShared(shared);
  }
  async showShared(el) {
    const client = await this.owner.client();
    if (!client) return;
    let current;
    try {
      current = await client.post("settings");
    } catch (error) {
      el.setText(error instanceof Error ? error.message : String(error));
      return;
    }
    this.owner.serverSettings = current;
    const say = this.owner.say;
    const save = async (name, value) => {
      try {
        this.owner.serverSettings = await client.post("set_setting", { name, value });
      } catch (error) {
        new import_obsidian3.Notice(error instanceof Error ? error.message : String(error));
      }
    };
    el.createEl("p", { cls: "setting-item-description", text: `${say("settingsNote")} ${current.file}` });
    new import_obsidian3.Setting(el).setName(say("backend")).addDropdown((dropdown) => {
      dropdown.addOption("", say("asConfigured"));
      for (const name of current.backends) dropdown.addOption(name, name);
      dropdown.setValue(current.backend).onChange((value) => void save("backend", value));
    });
    new import_obsidian3.Setting(el).setName(say("model")).addText((text) => {
      text.setValue(current.model);
      text.inputEl.addEventListener("change", () => void save("model", text.getValue()));
    });
    this.showKey(el, client, current);
    new import_obsidian3.Setting(el).setName(say("effort")).addDropdown((dropdown) => {
      dropdown.addOption("", say("asConfigured"));
      for (const level of current.efforts) dropdown.addOption(level, level);
      dropdown.setValue(current.effort).onChange((value) => void save("effort", value));
    });
    new import_obsidian3.Setting(el).setName(say("confirmChanges")).setDesc(say("confirmChangesDesc")).addToggle((toggle) => toggle.setValue(current.confirm_changes).onChange((value) => void save("confirm_changes", value)));
    new import_obsidian3.Setting(el).setName(say("secondBrain")).addToggle((toggle) => toggle.setValue(current.second_brain).onChange((value) => void save("second_brain", value)));
  }
  /** The key goes once to vaultctx, which keeps it in the OS keyring; the field is emptied and
   * the tab only ever learns whether a key is set. */
  showKey(el, client, current) {
    const say = this.owner.say;
    const state = say(current.key_set ? "keySet" : "keyMissing");
    let typed = "";
    new import_obsidian3.Setting(el).setName(say("apiKey")).setDesc(`${say("apiKeyDesc", { name: current.key_name })} ${state}`).addText((text) => {
      text.inputEl.type = "password";
      text.inputEl.autocomplete = "off";
      text.onChange((value) => typed = value);
    }).addButton(
      (button) => button.setButtonText(say("saveKey")).onClick(async () => {
        if (!typed.trim()) return;
        try {
          this.owner.serverSettings = await client.post("set_key", { key: typed });
          typed = "";
          new import_obsidian3.Notice(say("keySaved", { name: this.owner.serverSettings.key_name }));
          this.display();
        } catch (error) {
          new import_obsidian3.Notice(error instanceof Error ? error.message : String(error));
        }
      })
    );
  }
};

// src/views/chat_view.ts
var import_obsidian5 = require("obsidian");

// src/views/confirm_modal.ts
var import_obsidian4 = require("obsidian");
var ConfirmModal = class extends import_obsidian4.Modal {
  constructor(app, question, say, answer) {
    super(app);
    this.question = question;
    this.say = say;
    this.answer = answer;
    this.decided = "no";
  }
  onOpen() {
    const { contentEl } = this;
    contentEl.addClass("vaultctx-confirm");
    this.setTitle(this.say("confirmTitle"));
    contentEl.createEl("p", { cls: "vaultctx-confirm-tool", text: this.question.tool });
    const pre = contentEl.createEl("pre", { cls: "vaultctx-diff" });
    for (const line of diffLines(this.question.diff || this.question.args)) {
      pre.createDiv({ cls: `vaultctx-diff-${line.kind}`, text: line.text });
    }
    const buttons = contentEl.createDiv({ cls: "modal-button-container" });
    const choices = [["yes", "yes"], ["no", "no"], ["always", "always"]];
    for (const [decision, key] of choices) {
      const button = buttons.createEl("button", { text: this.say(key) });
      if (decision === "yes") button.addClass("mod-cta");
      button.addEventListener("click", () => {
        this.decided = decision;
        this.close();
      });
      if (decision === "yes") window.setTimeout(() => button.focus(), 0);
    }
  }
  onClose() {
    this.contentEl.empty();
    this.answer(this.decided);
  }
};

// src/views/chat_view.ts
var CHAT_VIEW = "vaultctx-chat";
function chatKey() {
  const bytes = new Uint8Array(18);
  window.crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"[b % 64]).join("");
}
function draggedFiles(app) {
  const manager = app.dragManager;
  const draggable = manager?.draggable;
  if (!draggable) return [];
  const files = Array.isArray(draggable.files) ? draggable.files : [];
  return [draggable.file, ...files].filter((file) => file instanceof import_obsidian5.TFile);
}
var ChatView = class extends import_obsidian5.ItemView {
  constructor(leaf, host) {
    super(leaf);
    this.host = host;
    this.key = chatKey();
    this.conversation = "";
    this.lastQuestion = "";
    this.canRegenerate = false;
    this.pending = [];
    this.turn = null;
    this.busy = false;
  }
  getViewType() {
    return CHAT_VIEW;
  }
  getDisplayText() {
    return this.host.say("assistant");
  }
  getIcon() {
    return "message-square";
  }
  async onOpen() {
    const root = this.contentEl;
    const say = this.host.say;
    root.empty();
    root.addClass("vaultctx-chat");
    const bar = root.createDiv({ cls: "vaultctx-chat-bar" });
    this.titleEl = bar.createDiv({ cls: "vaultctx-chat-title" });
    this.button(bar, say("newChat"), () => this.newChat());
    this.button(bar, say("conversations"), () => void this.host.openConversations());
    this.messagesEl = root.createDiv({ cls: "vaultctx-messages" });
    const form = root.createDiv({ cls: "vaultctx-ask" });
    this.pendingEl = form.createDiv({ cls: "vaultctx-pending" });
    this.questionEl = form.createEl("textarea", { attr: { placeholder: say("ask"), rows: "3" } });
    const buttons = form.createDiv({ cls: "vaultctx-ask-buttons" });
    const picker = form.createEl("input", { type: "file", cls: "vaultctx-file-picker", attr: { multiple: "" } });
    this.button(buttons, say("attach"), () => picker.click());
    this.button(buttons, say("attachActive"), () => this.attachActive());
    this.regenEl = this.button(buttons, say("regenerate"), () => void this.send(true));
    this.stopEl = this.button(buttons, say("stop"), () => void this.stop());
    this.sendEl = this.button(buttons, say("send"), () => void this.send(false));
    this.sendEl.addClass("mod-cta");
    this.setBusy(false);
    this.showPending();
    this.registerDomEvent(picker, "change", () => void this.addFiles(Array.from(picker.files ?? [])).then(() => picker.value = ""));
    this.registerDomEvent(this.questionEl, "keydown", (event) => {
      if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
        event.preventDefault();
        void this.send(false);
      }
    });
    this.registerDomEvent(this.messagesEl, "click", (event) => this.followLink(event));
    this.registerDomEvent(root, "dragover", (event) => event.preventDefault());
    this.registerDomEvent(root, "drop", (event) => void this.dropped(event));
  }
  button(parent, text, click) {
    const el = parent.createEl("button", { text });
    this.registerDomEvent(el, "click", click);
    return el;
  }
  /** A rendered [[link]] in an answer opens its note, as links do in a note's preview. */
  followLink(event) {
    const target = event.target instanceof HTMLElement ? event.target.closest("a.internal-link") : null;
    const href = target?.getAttribute("data-href");
    if (!href) return;
    event.preventDefault();
    void this.app.workspace.openLinkText(href, "", false);
  }
  // -- attachments -------------------------------------------------------------------
  /** Files from disk go as their bytes; a note or an image dragged within Obsidian (the file
   * it drags, else the link it put in the drop) goes as its vault path, which the server reads
   * and confines. */
  async dropped(event) {
    const data = event.dataTransfer;
    if (!data) return;
    event.preventDefault();
    const files = Array.from(data.files);
    if (files.length) return this.addFiles(files);
    const dragged = draggedFiles(this.app);
    if (dragged.length) {
      for (const file of dragged) this.attach({ kind: "vault", path: file.path });
      return;
    }
    for (const link of droppedLinks(data.getData("text/plain"))) this.addVaultLink(link);
  }
  addVaultLink(link) {
    const file = this.app.metadataCache.getFirstLinkpathDest(link, "");
    if (!file) {
      new import_obsidian5.Notice(this.host.say("notInVault", { link }));
      return;
    }
    this.attach({ kind: "vault", path: file.path });
  }
  attachActive() {
    const active = this.app.workspace.getActiveFile();
    if (active) this.attach({ kind: "vault", path: active.path });
    else new import_obsidian5.Notice(this.host.say("noActiveNote"));
  }
  async addFiles(files) {
    for (const file of files) {
      const bytes = new Uint8Array(await file.arrayBuffer());
      this.attach({ kind: "disk", name: file.name, data: toBase64(bytes) });
    }
  }
  attach(attachment) {
    this.pending.push(attachment);
    this.showPending();
  }
  showPending() {
    this.pendingEl.empty();
    if (!this.pending.length) this.pendingEl.createDiv({ cls: "vaultctx-hint", text: this.host.say("dropHere") });
    this.pending.forEach((attachment, index) => {
      const name = attachmentName(attachment);
      const chip = this.pendingEl.createDiv({ cls: "vaultctx-chip", attr: { "data-kind": attachment.kind } });
      chip.createSpan({ text: name });
      const remove = chip.createEl("button", { text: "\xD7", attr: { "aria-label": this.host.say("removeAttachment", { name }) } });
      this.registerDomEvent(remove, "click", () => {
        this.pending.splice(index, 1);
        this.showPending();
      });
    });
  }
  // -- conversations -------------------------------------------------------------------
  /** A fresh conversation: the server keeps the old one saved. */
  newChat() {
    if (this.busy) return;
    this.key = chatKey();
    this.conversation = "";
    this.lastQuestion = "";
    this.canRegenerate = false;
    this.messagesEl.empty();
    this.titleEl.setText("");
    this.setBusy(false);
  }
  /** Show a saved conversation and go on with it: the next question continues it. */
  async resume(id) {
    const client = await this.host.client();
    if (!client || this.busy) return;
    let saved;
    try {
      saved = await client.post("conversation", { id });
    } catch (error) {
      new import_obsidian5.Notice(error instanceof Error ? error.message : String(error));
      return;
    }
    this.newChat();
    this.conversation = saved.id;
    this.titleEl.setText(this.host.say("continuing", { title: saved.title }));
    let turnEl = null;
    for (const turn of saved.turns) {
      if (turn.role === "user" || !turnEl) {
        turnEl = this.messagesEl.createDiv({ cls: "vaultctx-turn", attr: { "data-state": "saved" } });
      }
      if (turn.role === "user") turnEl.createDiv({ cls: "vaultctx-question", text: turn.text });
      else await import_obsidian5.MarkdownRenderer.render(this.app, turn.text, turnEl.createDiv({ cls: "vaultctx-answer" }), "", this);
    }
  }
  // -- asking ------------------------------------------------------------------------
  /** Ask the question typed (with the attachments), or with `regenerate` the last one again. */
  async send(regenerate) {
    const question = regenerate ? this.lastQuestion : this.questionEl.value.trim();
    if (!question || this.busy || regenerate && !this.canRegenerate) return;
    const client = await this.host.client();
    if (!client) return;
    const active = this.app.workspace.getActiveFile();
    const selection = this.app.workspace.activeEditor?.editor?.getSelection() ?? "";
    const attachments = regenerate ? [] : this.pending;
    if (!regenerate) {
      this.questionEl.value = "";
      this.pending = [];
      this.showPending();
    }
    const turnEl = this.messagesEl.createDiv({ cls: "vaultctx-turn", attr: { "data-state": "asking" } });
    if (regenerate) turnEl.setAttr("data-regenerated", "yes");
    turnEl.createDiv({ cls: "vaultctx-question", text: regenerate ? `${this.host.say("regenerated")} ${question}` : question });
    if (attachments.length) turnEl.createDiv({ cls: "vaultctx-attached", text: `\u{1F4CE} ${attachments.map(attachmentName).join(", ")}` });
    const answerEl = turnEl.createDiv({ cls: "vaultctx-answer", text: this.host.say("thinking") });
    this.setBusy(true);
    try {
      const state = await this.ask(client, {
        chat: this.key,
        question,
        effort: this.host.effort(),
        active_note: active?.path ?? "",
        selection,
        conversation: this.conversation,
        regenerate,
        ...attachmentFields(attachments)
      }, answerEl);
      if (state.conversation) this.conversation = state.conversation;
      this.lastQuestion = question;
      this.canRegenerate = true;
      await this.showAnswer(turnEl, answerEl, state, active?.path ?? "");
    } catch (error) {
      answerEl.setText(error instanceof Error ? error.message : String(error));
      turnEl.setAttr("data-state", "failed");
      if (!regenerate && !this.pending.length) {
        this.pending = attachments;
        this.showPending();
      }
    } finally {
      this.turn = null;
      this.setBusy(false);
    }
  }
  ask(client, question, answerEl) {
    const shown = /* @__PURE__ */ new Set();
    return client.ask(
      question,
      (current) => {
        if (!current.done) answerEl.setText(current.text);
        for (const confirm of current.confirms) {
          if (shown.has(confirm.id)) continue;
          shown.add(confirm.id);
          new ConfirmModal(this.app, confirm, this.host.say, (decision) => {
            void client.post("confirm", { id: confirm.id, decision }).catch((e) => new import_obsidian5.Notice(e.message));
          }).open();
        }
      },
      (turn) => this.turn = turn
    );
  }
  async showAnswer(turnEl, answerEl, state, sourcePath) {
    answerEl.empty();
    if (state.text) await import_obsidian5.MarkdownRenderer.render(this.app, state.text, answerEl, sourcePath, this);
    const missing = new Set(state.unresolved.map((u) => citationLink(u.citation)));
    answerEl.querySelectorAll("a.internal-link").forEach((link) => {
      if (missing.has(citationLink(link.getAttribute("data-href") ?? ""))) link.addClass("vaultctx-unresolved");
    });
    if (state.stopped) turnEl.createDiv({ cls: "vaultctx-note", text: this.host.say("stopped") });
    if (state.error) turnEl.createDiv({ cls: "vaultctx-error", text: state.error });
    if (state.sources.length) {
      const sources = turnEl.createDiv({ cls: "vaultctx-sources" });
      sources.createDiv({ cls: "vaultctx-label", text: this.host.say("sources") });
      for (const citation of state.sources) {
        const link = sources.createEl("a", { cls: "vaultctx-source", text: citation, href: "#" });
        this.registerDomEvent(link, "click", (event) => {
          event.preventDefault();
          void this.app.workspace.openLinkText(citationLink(citation), "", false);
        });
      }
    }
    if (state.unresolved.length) {
      const list = turnEl.createDiv({ cls: "vaultctx-unresolved-list" });
      list.createDiv({ cls: "vaultctx-label", text: this.host.say("unresolved") });
      for (const item of state.unresolved) list.createDiv({ text: `${item.citation}: ${item.message}` });
    }
    turnEl.setAttr("data-state", "done");
  }
  setBusy(busy) {
    this.busy = busy;
    this.sendEl.disabled = busy;
    this.stopEl.disabled = !busy;
    this.regenEl.disabled = busy || !this.canRegenerate;
  }
  async stop() {
    const client = await this.host.client();
    if (client && this.turn) await client.post("stop", { turn: this.turn });
  }
};

// src/views/conversations_view.ts
var import_obsidian6 = require("obsidian");
var CONVERSATIONS_VIEW = "vaultctx-conversations";
var TYPING_PAUSE_MS = 250;
var ConversationsView = class extends import_obsidian6.ItemView {
  constructor(leaf, host) {
    super(leaf);
    this.host = host;
    this.asked = 0;
  }
  getViewType() {
    return CONVERSATIONS_VIEW;
  }
  getDisplayText() {
    return this.host.say("conversations");
  }
  getIcon() {
    return "messages-square";
  }
  async onOpen() {
    const root = this.contentEl;
    root.empty();
    root.addClass("vaultctx-conversations");
    this.input = root.createEl("input", { type: "search", attr: { placeholder: this.host.say("conversationsPlaceholder") } });
    this.list = root.createDiv({ cls: "vaultctx-hits" });
    const search = debounce(() => void this.refresh(), TYPING_PAUSE_MS, window);
    this.registerDomEvent(this.input, "input", () => search());
    await this.refresh();
  }
  /** The list again (the chat view saves a new conversation with every answer). */
  async refresh() {
    const asked = ++this.asked;
    const client = await this.host.client();
    if (!client) return;
    try {
      const found = await client.post("conversations", { query: this.input.value });
      if (asked === this.asked) this.show(found.conversations);
    } catch (error) {
      if (asked === this.asked) this.list.setText(error instanceof Error ? error.message : String(error));
    }
  }
  show(items) {
    this.list.empty();
    if (!items.length) {
      this.list.createDiv({ cls: "vaultctx-empty", text: this.host.say(this.input.value.trim() ? "noResults" : "noConversations") });
      return;
    }
    for (const item of items) {
      const row = this.list.createDiv({ cls: "vaultctx-hit vaultctx-conversation", attr: { tabindex: "0", "data-id": item.id } });
      row.createDiv({ cls: "vaultctx-hit-title", text: item.title });
      if (item.snippet !== void 0) {
        const snippet = row.createDiv({ cls: "vaultctx-hit-text" });
        for (const part of snippetParts(item.snippet)) {
          if (part.match) snippet.createEl("mark", { text: part.text });
          else snippet.appendText(part.text);
        }
      } else {
        const when = item.updated ? new Date(item.updated).toLocaleString() : "";
        row.createDiv({ cls: "vaultctx-hit-heading", text: `${when} \xB7 ${this.host.say("messages", { count: item.messages ?? 0 })}` });
      }
      const open = () => void this.host.resume(item.id);
      this.registerDomEvent(row, "click", open);
      this.registerDomEvent(row, "keydown", (event) => {
        if (event.key === "Enter") open();
      });
    }
  }
};

// src/views/ledger_view.ts
var import_obsidian7 = require("obsidian");
var LEDGER_VIEW = "vaultctx-ledger";
var LedgerView = class extends import_obsidian7.ItemView {
  constructor(leaf, host) {
    super(leaf);
    this.host = host;
  }
  getViewType() {
    return LEDGER_VIEW;
  }
  getDisplayText() {
    return this.host.say("changes");
  }
  getIcon() {
    return "history";
  }
  async onOpen() {
    this.contentEl.empty();
    this.contentEl.addClass("vaultctx-ledger");
    const refresh = this.contentEl.createEl("button", { text: this.host.say("refresh") });
    this.registerDomEvent(refresh, "click", () => void this.refresh());
    this.list = this.contentEl.createDiv({ cls: "vaultctx-records" });
    await this.refresh();
  }
  async refresh() {
    const client = await this.host.client();
    if (!client) return;
    let records;
    try {
      records = (await client.post("changes")).records;
    } catch (error) {
      this.list.setText(error instanceof Error ? error.message : String(error));
      return;
    }
    this.list.empty();
    if (!records.length) this.list.createDiv({ cls: "vaultctx-empty", text: this.host.say("noChanges") });
    records.forEach((record, index) => {
      const item = this.list.createDiv({ cls: "vaultctx-record", attr: { "data-id": record.id } });
      item.createDiv({ cls: "vaultctx-record-label", text: record.label });
      const when = new Date(record.created_at * 1e3).toLocaleString();
      item.createDiv({ cls: "vaultctx-record-meta", text: `${record.id} \xB7 ${when} \xB7 ${record.source} \xB7 ${record.kind}` });
      for (const diff of record.diffs) {
        const details = item.createEl("details");
        details.createEl("summary", { text: diff.path });
        const pre = details.createEl("pre", { cls: "vaultctx-diff" });
        for (const line of diffLines(diff.diff)) pre.createDiv({ cls: `vaultctx-diff-${line.kind}`, text: line.text });
      }
      if (index === 0) {
        const undo = item.createEl("button", { cls: "mod-warning", text: this.host.say("undo") });
        this.registerDomEvent(undo, "click", () => void this.undo(record.id));
      }
    });
  }
  async undo(record) {
    const client = await this.host.client();
    if (!client) return;
    try {
      const done = await client.post("undo", { record });
      new import_obsidian7.Notice(`${this.host.say("undone")} ${done.paths.join(", ")}`);
    } catch (error) {
      new import_obsidian7.Notice(error instanceof Error ? error.message : String(error));
    }
    await this.refresh();
  }
};

// src/views/search_view.ts
var import_obsidian8 = require("obsidian");
var SEARCH_VIEW = "vaultctx-search";
var SIMILAR_VIEW = "vaultctx-similar";
var TYPING_PAUSE_MS2 = 250;
function showHits(view, list, hits, empty) {
  list.empty();
  if (!hits.length) {
    list.createDiv({ cls: "vaultctx-empty", text: empty });
    return;
  }
  for (const hit of hits) {
    const item = list.createDiv({ cls: "vaultctx-hit", attr: { tabindex: "0", "data-path": hit.path } });
    item.createDiv({ cls: "vaultctx-hit-title", text: hit.title });
    if (hit.heading) item.createDiv({ cls: "vaultctx-hit-heading", text: hit.heading });
    item.createDiv({ cls: "vaultctx-hit-text", text: hit.text.slice(0, 240) });
    const open = () => void view.app.workspace.openLinkText(citationLink(hit.citation), "", false);
    view.registerDomEvent(item, "click", open);
    view.registerDomEvent(item, "keydown", (event) => {
      if (event.key === "Enter") open();
    });
  }
}
var SearchView = class extends import_obsidian8.ItemView {
  constructor(leaf, host) {
    super(leaf);
    this.host = host;
    this.asked = 0;
  }
  getViewType() {
    return SEARCH_VIEW;
  }
  getDisplayText() {
    return this.host.say("search");
  }
  getIcon() {
    return "search";
  }
  async onOpen() {
    const root = this.contentEl;
    root.empty();
    root.addClass("vaultctx-search");
    const input = root.createEl("input", { type: "search", attr: { placeholder: this.host.say("searchPlaceholder") } });
    const list = root.createDiv({ cls: "vaultctx-hits" });
    const search = debounce((query) => void this.search(query, list), TYPING_PAUSE_MS2, window);
    this.registerDomEvent(input, "input", () => search(input.value));
    input.focus();
  }
  async search(query, list) {
    const asked = ++this.asked;
    const client = await this.host.client();
    if (!client || !query.trim()) return list.empty();
    try {
      const found = await client.post("search", { query });
      if (asked === this.asked) showHits(this, list, found.results, this.host.say("noResults"));
    } catch (error) {
      if (asked === this.asked) list.setText(error instanceof Error ? error.message : String(error));
    }
  }
};
var SimilarView = class extends import_obsidian8.ItemView {
  constructor(leaf, host) {
    super(leaf);
    this.host = host;
  }
  getViewType() {
    return SIMILAR_VIEW;
  }
  getDisplayText() {
    return this.host.say("similar");
  }
  getIcon() {
    return "network";
  }
  async onOpen() {
    this.contentEl.empty();
    this.contentEl.addClass("vaultctx-similar");
    this.list = this.contentEl.createDiv({ cls: "vaultctx-hits" });
    this.registerEvent(this.app.workspace.on("file-open", (file) => void this.show(file)));
    await this.show(this.app.workspace.getActiveFile());
  }
  async show(file) {
    if (!file || file.extension !== "md") {
      this.list.setText(this.host.say("noActiveNote"));
      return;
    }
    const client = await this.host.client();
    if (!client) return;
    try {
      const found = await client.post("similar", { path: file.path });
      showHits(this, this.list, found.results, this.host.say("noResults"));
    } catch (error) {
      this.list.setText(error instanceof Error ? error.message : String(error));
    }
  }
};

// src/main.ts
var STATUS_EVERY_MS = 15e3;
var VaultctxPlugin = class extends import_obsidian9.Plugin {
  constructor() {
    super(...arguments);
    this.settings = { ...DEFAULT_SETTINGS };
    this.serverSettings = null;
    this.connecting = null;
    this.statusEl = null;
    this.language = pickLanguage((0, import_obsidian9.getLanguage)());
    this.opens = new OpenReporter((batch) => this.reportOpens(batch), window);
    this.say = (key, fill = {}) => translate(this.language, key, fill);
  }
  async onload() {
    const saved = await this.loadData() ?? {};
    this.settings = {
      executable: saved.executable ?? DEFAULT_SETTINGS.executable,
      reportOpens: saved.reportOpens ?? DEFAULT_SETTINGS.reportOpens
    };
    this.registerView(CHAT_VIEW, (leaf) => new ChatView(leaf, this));
    this.registerView(SEARCH_VIEW, (leaf) => new SearchView(leaf, this));
    this.registerView(SIMILAR_VIEW, (leaf) => new SimilarView(leaf, this));
    this.registerView(LEDGER_VIEW, (leaf) => new LedgerView(leaf, this));
    this.registerView(CONVERSATIONS_VIEW, (leaf) => new ConversationsView(leaf, this));
    this.addRibbonIcon("message-square", this.say("openAssistant"), () => void this.open(CHAT_VIEW));
    this.addCommand({ id: "open-assistant", name: this.say("openAssistant"), callback: () => void this.open(CHAT_VIEW) });
    this.addCommand({ id: "search", name: this.say("openSearch"), callback: () => void this.open(SEARCH_VIEW) });
    this.addCommand({ id: "similar-notes", name: this.say("openSimilar"), callback: () => void this.open(SIMILAR_VIEW) });
    this.addCommand({ id: "show-conversations", name: this.say("openConversations"), callback: () => void this.openConversations() });
    this.addCommand({ id: "show-changes", name: this.say("openChanges"), callback: () => void this.open(LEDGER_VIEW) });
    this.addCommand({ id: "index-vault", name: this.say("indexVault"), callback: () => void this.reindex() });
    this.addCommand({ id: "undo-last-change", name: this.say("undoLast"), callback: () => void this.undoLast() });
    this.addSettingTab(new VaultctxSettingTab(this.app, this));
    this.statusEl = this.addStatusBarItem();
    this.statusEl.setText(this.say("engineDown"));
    this.registerInterval(window.setInterval(() => this.refreshStatus(), STATUS_EVERY_MS));
    this.app.workspace.onLayoutReady(() => this.refreshStatus());
    this.registerEvent(
      this.app.workspace.on("file-open", (file) => {
        const reported = this.settings.reportOpens && isReportable(file, this.app.vault.configDir);
        this.opens.opened(reported && file ? file.path : null);
      })
    );
  }
  onunload() {
    this.opens.cancel();
    void this.opens.flush();
  }
  /** Report opened notes on the connected server; a failure keeps them for the next open. */
  async reportOpens(opens) {
    const client = await this.client();
    if (!client) throw new Error("vaultctx is not connected");
    await client.post("opens", { opens });
  }
  /** The reasoning effort in force (vaultctx.toml), sent with each question. */
  effort() {
    return this.serverSettings?.effort ?? "";
  }
  async saveSettings() {
    await this.saveData(this.settings);
  }
  /** The connected client; a failure is a Notice (with the install command when vaultctx is
   * missing) and the next call tries again. */
  client() {
    this.connecting ??= this.connectOnce();
    return this.connecting;
  }
  async connectOnce() {
    const adapter = this.app.vault.adapter;
    const vault = adapter instanceof import_obsidian9.FileSystemAdapter ? adapter.getBasePath() : "";
    try {
      let pending = null;
      const again = () => pending ??= connect(this.settings.executable, vault).finally(() => pending = null);
      const client = new VaultctxClient(await again(), again);
      this.serverSettings = await client.post("settings").catch(() => null);
      return client;
    } catch (error) {
      this.connecting = null;
      const message = error instanceof Error ? error.message : String(error);
      new import_obsidian9.Notice(error instanceof MissingExecutable ? this.say("missing", { path: this.settings.executable }) : this.say("cannotConnect", { message }), 15e3);
      return null;
    }
  }
  refreshStatus() {
    void this.client().then(async (client) => {
      let status = null;
      try {
        status = client ? await client.post("status") : null;
      } catch {
        this.connecting = null;
      }
      const { key, fill } = statusKey(status);
      this.statusEl?.setText(this.say(key, fill));
    });
  }
  async open(type) {
    const { workspace } = this.app;
    let leaf = workspace.getLeavesOfType(type)[0] ?? null;
    if (!leaf) {
      leaf = workspace.getRightLeaf(false);
      if (!leaf) return null;
      await leaf.setViewState({ type, active: true });
    }
    await workspace.revealLeaf(leaf);
    return leaf;
  }
  async openConversations() {
    const leaf = await this.open(CONVERSATIONS_VIEW);
    if (leaf?.view instanceof ConversationsView) await leaf.view.refresh();
  }
  async resume(id) {
    const leaf = await this.open(CHAT_VIEW);
    if (leaf?.view instanceof ChatView) await leaf.view.resume(id);
  }
  async reindex() {
    const client = await this.client();
    if (!client) return;
    await client.post("reindex");
    new import_obsidian9.Notice(this.say("indexStarted"));
    this.refreshStatus();
  }
  async undoLast() {
    const client = await this.client();
    if (!client) return;
    try {
      const done = await client.post("undo", { record: "" });
      new import_obsidian9.Notice(`${this.say("undone")} ${done.paths.join(", ")}`);
    } catch (error) {
      new import_obsidian9.Notice(error instanceof Error ? error.message : this.say("nothingToUndo"));
    }
  }
};
