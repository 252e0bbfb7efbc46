// Unit tests of the plugin's own logic (src/logic.ts, bundled by `npm run build` into
// build/logic.mjs). Run with `npm test`; tests/obsidian/test_plugin_unit.py runs them in pytest.
import { test } from "node:test";
import assert from "node:assert/strict";
import {
	applyEvent, attachmentFields, attachmentName, citationLink, citationsIn, debounce, diffLines,
	droppedLinks, isMissingExecutable, newTurn, parseConnection, pickLanguage, snippetParts,
	sameServer, statusKey, toBase64, translate, LANGUAGES, readReply, StaleConnection, VaultctxProblem,
} from "../build/logic.mjs";

test("a connection is read from the last line vaultctx prints", () => {
	const out = 'starting…\n{"url": "http://127.0.0.1:8767", "token": "abc", "started": true}\n';
	assert.deepEqual(parseConnection(out), { url: "http://127.0.0.1:8767", token: "abc" });
});

test("the token is never sent off this machine", () => {
	for (const url of ["http://example.com:80", "https://127.0.0.1:8767", "http://127.0.0.1.evil.com:1", "http://127.0.0.1:8767/x"]) {
		assert.throws(() => parseConnection(JSON.stringify({ url, token: "t" })), /not on this machine/);
	}
	assert.throws(() => parseConnection(JSON.stringify({ url: "http://[::1]:1", token: "" })), /no token/);
	assert.throws(() => parseConnection("Traceback…"), /no connection/);
});

const ENGINE = { socket: "/run/user/1000/vaultctx/obsidian.sock", base: "/vaults/0123456789abcdef", pid: 4242 };

test("the engine's socket is read from connect's output, with no token", () => {
	const out = `no engine yet\n${JSON.stringify({ ...ENGINE, started: true })}\n`;
	assert.deepEqual(parseConnection(out), ENGINE);
});

test("an engine socket that is no local path, or no vault on it, is refused", () => {
	for (const socket of ["obsidian.sock", "http://127.0.0.1:1", "/tmp/a\0b", 7]) {
		assert.throws(() => parseConnection(JSON.stringify({ ...ENGINE, socket })), /not a path on this machine/);
	}
	for (const base of ["/vaults/../../etc", "/vaults/0123", "", "/vaults/0123456789abcdef/x"]) {
		assert.throws(() => parseConnection(JSON.stringify({ ...ENGINE, base })), /no vault/);
	}
	assert.throws(() => parseConnection(JSON.stringify({ ...ENGINE, pid: "1" })), /no engine process/);
});

test("a restarted engine is told apart by its process, and never equals an HTTP server", () => {
	assert.equal(sameServer(ENGINE, { ...ENGINE }), true);
	assert.equal(sameServer(ENGINE, { ...ENGINE, pid: 4243 }), false);
	assert.equal(sameServer(ENGINE, { url: "http://127.0.0.1:8767", token: "a" }), false);
});

test("a reply is the data, vaultctx's problem with its fix, or a stale engine to reconnect to", () => {
	const http = { url: "http://127.0.0.1:8767", token: "a" };
	assert.deepEqual(readReply({ status: 200, json: { results: [] } }, ENGINE), { results: [] });
	assert.throws(() => readReply({ status: 400, json: { error: "bad", suggestion: "fix it" } }, ENGINE), (e) => e instanceof VaultctxProblem && e.message === "bad (fix it)");
	assert.throws(() => readReply({ status: 410, json: { error: "not opened" } }, ENGINE), StaleConnection);
	assert.throws(() => readReply({ status: 410, json: {} }, http), VaultctxProblem);
	assert.throws(() => readReply({ status: 404, json: {} }, ENGINE), /the vaultctx engine at \/run\/user/);
	assert.throws(() => readReply({ status: 500, json: null }, http), /HTTP 500/);
});

test("a missing executable is told apart from other failures", () => {
	assert.equal(isMissingExecutable({ code: "ENOENT" }), true);
	assert.equal(isMissingExecutable({ code: 1 }), false);
	assert.equal(isMissingExecutable(null), false);
});

test("citations become the link text openLinkText takes", () => {
	assert.equal(citationLink("30-resources/db/SQLite tuning.md#WAL mode"), "30-resources/db/SQLite tuning#WAL mode");
	assert.equal(citationLink("[[Note#A#B|shown]]"), "Note#A#B");
	assert.equal(citationLink("Plain.md"), "Plain");
	assert.deepEqual(citationsIn("see [[A#x]] and [[B]] and [[A#x]]"), ["A#x", "B"]);
});

test("events build the answer in order", () => {
	let state = newTurn();
	for (const event of [
		{ kind: "text", data: "Hello " },
		{ kind: "tool", data: { name: "search_vault" } },
		{ kind: "confirm", data: { id: "q1", tool: "create_note", args: "{}", diff: "+x" } },
		{ kind: "text", data: "world" },
		{ kind: "unknown", data: 1 },
		{ kind: "done", data: { sources: ["A.md#h"], unresolved: [{ citation: "B", message: "no note" }], conversation: "c1", stopped: false } },
	]) state = applyEvent(state, event);
	assert.equal(state.text, "Hello world");
	assert.deepEqual(state.tools, ["search_vault"]);
	assert.equal(state.confirms[0].id, "q1");
	assert.deepEqual(state.sources, ["A.md#h"]);
	assert.deepEqual(state.unresolved, [{ citation: "B", message: "no note" }]);
	assert.equal(state.conversation, "c1");
	assert.equal(state.done, true);
});

test("a failure ends the turn with its fix, a stop with stopped", () => {
	const failed = applyEvent(newTurn(), { kind: "failure", data: { message: "no model", suggestion: "set [agent] model" } });
	assert.equal(failed.error, "no model (set [agent] model)");
	assert.equal(failed.done, true);
	const stopped = applyEvent(newTurn(), { kind: "stopped", data: {} });
	assert.equal(stopped.stopped && stopped.done, true);
});

test("typing runs the search once the pause is long enough", () => {
	const waiting = new Map();
	let next = 1;
	const timers = { setTimeout: (f) => (waiting.set(next, f), next++), clearTimeout: (id) => waiting.delete(id) };
	const seen = [];
	const typed = debounce((q) => seen.push(q), 250, timers);
	typed("w"); typed("wa"); typed("wal");
	assert.equal(waiting.size, 1);
	[...waiting.values()][0]();
	assert.deepEqual(seen, ["wal"]);
});

test("Obsidian's language picks our words; others fall back to English", () => {
	assert.equal(pickLanguage("ko"), "ko");
	assert.equal(pickLanguage("ja"), "ja");
	assert.equal(pickLanguage("zh-TW"), "en");
	assert.equal(pickLanguage(undefined), "en");
	assert.equal(translate("ko", "send"), "보내기");
	assert.equal(translate("ja", "engineUp", { files: 3 }), "vaultctx: 3 ノートを索引済み");
	assert.equal(translate("en", "engineUp", {}), "vaultctx: {files} notes indexed");
});

test("the status bar says what the server is doing", () => {
	assert.equal(statusKey(null).key, "engineDown");
	const idle = { state: "idle", done: 0, total: 0 };
	assert.deepEqual(statusKey({ indexed: true, files: 9, chunks: 40, quality_vectors: 0, job: { state: "running", done: 2, total: 5 } }), { key: "engineIndexing", fill: { done: 2, total: 5 } });
	assert.deepEqual(statusKey({ indexed: true, files: 9, chunks: 40, quality_vectors: 10, job: idle }), { key: "enginePass2", fill: { files: 9, percent: 25 } });
	assert.deepEqual(statusKey({ indexed: true, files: 9, chunks: 40, quality_vectors: 40, job: idle }), { key: "engineUp", fill: { files: 9 } });
	// A Korean vault: pass 2 embeds only its 8 English chunks; the rest are the multilingual pass's.
	assert.deepEqual(statusKey({ indexed: true, files: 9, chunks: 40, quality_chunks: 8, quality_vectors: 8, job: idle }), { key: "engineUp", fill: { files: 9 } });
	assert.deepEqual(statusKey({ indexed: true, files: 9, chunks: 40, quality_chunks: 8, quality_vectors: 2, job: idle }), { key: "enginePass2", fill: { files: 9, percent: 25 } });
});

test("diff lines are classed for colour", () => {
	assert.deepEqual(diffLines("--- a\n+++ b\n@@ -1 +1 @@\n-old\n+new\n same").map((l) => l.kind), ["hunk", "hunk", "hunk", "del", "add", "ctx"]);
});

test("a search snippet is split into text and its marked matches", () => {
	assert.deepEqual(snippetParts("how often does **WAL** **checkpoint**?"), [
		{ text: "how often does ", match: false },
		{ text: "WAL", match: true },
		{ text: " ", match: false },
		{ text: "checkpoint", match: true },
		{ text: "?", match: false },
	]);
	assert.deepEqual(snippetParts("<img src=x onerror=alert(1)>"), [{ text: "<img src=x onerror=alert(1)>", match: false }]);
});

test("what is dropped on the chat names vault files by link", () => {
	const explorer = "obsidian://open?vault=My%20Vault&file=30-resources%2Fdatabases%2FSQLite%20tuning";
	assert.deepEqual(droppedLinks(explorer), ["30-resources/databases/SQLite tuning"]);
	assert.deepEqual(droppedLinks("see [[SQLite tuning#WAL mode|WAL]] and [[img/diagram.png]]\n[[SQLite tuning]]"), ["SQLite tuning", "img/diagram.png"]);
	assert.deepEqual(droppedLinks(`${explorer}\n${explorer}`), ["30-resources/databases/SQLite tuning"]);
	assert.deepEqual(droppedLinks("obsidian://not a url\nplain text"), []);
});

test("files from disk travel as base64, vault files by path, each once", () => {
	assert.equal(toBase64(new Uint8Array([0, 1, 2, 250, 255])), "AAEC+v8=");
	const big = new Uint8Array(100_000).map((_, i) => i % 251);
	assert.equal(toBase64(big), Buffer.from(big).toString("base64")); // more than one piece
	const pending = [
		{ kind: "vault", path: "a.md" },
		{ kind: "disk", name: "photo.png", data: "AAEC" },
		{ kind: "vault", path: "a.md" },
	];
	assert.deepEqual(attachmentFields(pending), { vault_files: ["a.md"], files: [{ name: "photo.png", data: "AAEC" }] });
	assert.deepEqual(pending.map(attachmentName), ["a.md", "photo.png", "a.md"]);
});

test("every new word is there in each language", () => {
	for (const language of LANGUAGES) {
		for (const key of ["newChat", "regenerate", "conversations", "apiKey", "keySaved", "dropHere"]) {
			assert.notEqual(translate(language, key, { name: "n", title: "t", count: 1, link: "l" }), "");
		}
	}
	assert.match(translate("ko", "keySaved", { name: "openai" }), /openai/);
});

test("a restarted server is told apart from the one that went away", () => {
	const before = { url: "http://127.0.0.1:8767", token: "a" };
	assert.equal(sameServer(before, { ...before }), true);
	assert.equal(sameServer(before, { url: "http://127.0.0.1:8768", token: "a" }), false);
	assert.equal(sameServer(before, { url: before.url, token: "b" }), false);
});
