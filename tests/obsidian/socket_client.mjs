// Drives the plugin's own transport (obsidian/src/socket_transport.ts, built by esbuild into
// obsidian/build/) and its answer logic against a real engine, as the plugin does on desktop:
// status, search, a chat turn whose change is confirmed, the ledger, undo.
// Run by tests/obsidian/test_plugin_engine_socket.py:
//   node socket_client.mjs '<connect output>' '<search query>' '<question>'
// Prints one JSON object with what each step answered.
import { applyEvent, newTurn, parseConnection, readReply } from "../../obsidian/build/logic.mjs";
import { postOverSocket } from "../../obsidian/build/socket_transport.mjs";

const [connectOutput, query, question] = process.argv.slice(2);
const connection = parseConnection(connectOutput);
const call = async (action, body = {}) => readReply(await postOverSocket(connection, action, body), connection);

const status = await call("status");
const search = await call("search", { query });
const { turn } = await call("chat", {
	chat: "node-test-transport-0001", question, effort: "", active_note: "", selection: "", conversation: "",
	regenerate: false, vault_files: [], files: [],
});
let state = newTurn();
let seen = 0;
const confirmed = [];
const deadline = Date.now() + 240_000;
while (!state.done && Date.now() < deadline) {
	const polled = await call("poll", { turn, after: seen });
	seen += polled.events.length;
	for (const event of polled.events) state = applyEvent(state, event);
	if (polled.done) state = { ...state, done: true };
	for (const confirm of state.confirms) {
		if (confirmed.includes(confirm.id)) continue;
		confirmed.push(confirm.id);
		await call("confirm", { id: confirm.id, decision: "yes" });
	}
}
const changes = await call("changes");
const newest = changes.records[0] ?? { id: "", diffs: [] };
const undone = newest.id ? await call("undo", { record: newest.id }) : null;
console.log(JSON.stringify({
	status,
	search: search.results.map((r) => r.path),
	answer: { text: state.text, tools: state.tools, confirms: state.confirms, error: state.error, done: state.done },
	newest: { id: newest.id, paths: newest.diffs.map((d) => d.path) },
	undone,
}));
