// The plugin's own logic, free of Obsidian's API so node's test runner can check it
// (test/logic.test.mjs runs against the bundle esbuild makes of this file).

export { LANGUAGES, pickLanguage, translate } from "./strings";
export { isReportable, MAX_WAITING_OPENS, OPEN_DWELL_MS, OpenReporter } from "./open_reports";
export type { NoteOpen, OpenedFile } from "./open_reports";
export type { Language, StringKey } from "./strings";

/** A loopback HTTP server and the token for it (`vaultctx ui`, `serve --http`): Windows, or
 * where the engine does not serve. */
export interface HttpConnection {
	url: string;
	token: string;
}

/** The engine's plugin socket (HTTP on a Unix socket that checks each caller's user: no
 * token), this vault's base path on it, and the engine's pid (a restarted engine has another). */
export interface SocketConnection {
	socket: string;
	base: string;
	pid: number;
}

/** Where vaultctx answers, as `vaultctx obsidian connect` prints it. */
export type Connection = HttpConnection | SocketConnection;

export function isSocket(connection: Connection): connection is SocketConnection {
	return "socket" in connection;
}

const LOOPBACK_URL = /^http:\/\/(127\.0\.0\.1|localhost|\[::1\]):\d{1,5}$/;
const VAULT_BASE = /^\/vaults\/[0-9a-f]{16}$/;

/** The connection from `vaultctx obsidian connect`'s output; a token is sent to loopback
 * addresses only, and a socket must be an absolute path, whatever the output says. */
export function parseConnection(stdout: string): Connection {
	let data: unknown;
	try {
		data = JSON.parse(stdout.trim().split("\n").pop() ?? "");
	} catch {
		throw new Error("vaultctx printed no connection (is it older than this plugin?)");
	}
	const found = (typeof data === "object" && data !== null ? data : {}) as { url?: unknown; token?: unknown; socket?: unknown; base?: unknown; pid?: unknown };
	if (found.socket !== undefined) return socketConnection(found);
	if (typeof found.url !== "string" || !LOOPBACK_URL.test(found.url)) {
		throw new Error("vaultctx named a server that is not on this machine");
	}
	if (typeof found.token !== "string" || found.token.length === 0) {
		throw new Error("vaultctx gave no token for its server");
	}
	return { url: found.url, token: found.token };
}

function socketConnection(found: { socket?: unknown; base?: unknown; pid?: unknown }): SocketConnection {
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

/** Whether two connections are the same server (a restarted one has a new port or token, or
 * a new engine process). */
export function sameServer(a: Connection, b: Connection): boolean {
	if (isSocket(a) || isSocket(b)) {
		return isSocket(a) && isSocket(b) && a.socket === b.socket && a.base === b.base && a.pid === b.pid;
	}
	return a.url === b.url && a.token === b.token;
}

/** Where a connection is, for messages (never the token). */
export function describeConnection(connection: Connection): string {
	return isSocket(connection) ? `the vaultctx engine at ${connection.socket}` : `the vaultctx server at ${connection.url}`;
}

/** What a call answered, whichever way it went (requestUrl, or HTTP on the engine's socket). */
export interface Reply {
	status: number;
	json: unknown;
}

/** The engine restarted since the plugin connected (it has not opened this vault): connect
 * again, and the call is retried; nothing was done. */
export class StaleConnection extends Error {}

export class VaultctxProblem extends Error {}

/** The answer's data, or the problem it reports (with vaultctx's fix) as an error. */
export function readReply<T>(reply: Reply, connection: Connection): T {
	const data = (typeof reply.json === "object" && reply.json !== null ? reply.json : {}) as { error?: string; suggestion?: string };
	if (reply.status === 410 && isSocket(connection)) throw new StaleConnection(data.error ?? "the engine restarted");
	if (reply.status === 404) {
		throw new VaultctxProblem(
			`${describeConnection(connection)} does not serve the Obsidian plugin (an older vaultctx?); update vaultctx and restart that server`,
		);
	}
	if (reply.status >= 400) {
		const fix = data.suggestion ? ` (${data.suggestion})` : "";
		throw new VaultctxProblem(`${data.error ?? `HTTP ${reply.status}`}${fix}`);
	}
	return data as T;
}

/** Whether running the executable failed because it is not there (a Notice says how to install). */
export function isMissingExecutable(error: unknown): boolean {
	return typeof error === "object" && error !== null && (error as { code?: unknown }).code === "ENOENT";
}

export interface Timers {
	setTimeout(handler: () => void, ms: number): number;
	clearTimeout(id: number): void;
}

/** `run` once typing has paused for `ms`; each call replaces the one waiting. */
export function debounce<A extends unknown[]>(run: (...args: A) => void, ms: number, timers: Timers): (...args: A) => void {
	let waiting: number | null = null;
	return (...args: A) => {
		if (waiting !== null) timers.clearTimeout(waiting);
		waiting = timers.setTimeout(() => {
			waiting = null;
			run(...args);
		}, ms);
	};
}

/** A note's link text from a citation (`path/Note.md#Heading`, or `[[path/Note#Heading|alias]]`),
 * as `workspace.openLinkText` takes it. */
export function citationLink(citation: string): string {
	let text = citation.trim();
	if (text.startsWith("[[") && text.endsWith("]]")) text = text.slice(2, -2);
	text = text.split("|")[0] ?? "";
	const [path = "", ...heading] = text.split("#");
	const note = path.toLowerCase().endsWith(".md") ? path.slice(0, -3) : path;
	return heading.length ? `${note}#${heading.join("#")}` : note;
}

/** The `[[…]]` citations an answer makes, in order, each once. */
export function citationsIn(answer: string): string[] {
	const found = answer.match(/\[\[[^\]\n]+\]\]/g) ?? [];
	return [...new Set(found.map((c) => c.slice(2, -2)))];
}

export interface ConfirmQuestion {
	id: string;
	tool: string;
	args: string;
	diff: string;
}

export interface Unresolved {
	citation: string;
	message: string;
}

/** One answer as the chat view shows it, built from the server's events in order. */
export interface TurnState {
	text: string;
	sources: string[];
	unresolved: Unresolved[];
	tools: string[];
	confirms: ConfirmQuestion[];
	error: string | null;
	conversation: string | null;
	done: boolean;
	stopped: boolean;
}

export function newTurn(): TurnState {
	return { text: "", sources: [], unresolved: [], tools: [], confirms: [], error: null, conversation: null, done: false, stopped: false };
}

export interface TurnEvent {
	kind: string;
	data: unknown;
}

function asRecord(data: unknown): Record<string, unknown> {
	return typeof data === "object" && data !== null ? (data as Record<string, unknown>) : {};
}

function asText(value: unknown): string {
	return typeof value === "string" ? value : "";
}

/** The turn after one event: `text` pieces add up, `done` brings sources and unresolved
 * citations, `failure` the message with its fix, `stopped` ends it. Unknown kinds are ignored. */
export function applyEvent(state: TurnState, event: TurnEvent): TurnState {
	const data = asRecord(event.data);
	switch (event.kind) {
		case "text":
			return { ...state, text: state.text + asText(event.data) };
		case "tool":
			return { ...state, tools: [...state.tools, asText(data.name)] };
		case "confirm":
			return {
				...state,
				confirms: [...state.confirms, { id: asText(data.id), tool: asText(data.tool), args: asText(data.args), diff: asText(data.diff) }],
			};
		case "done": {
			const sources = Array.isArray(data.sources) ? data.sources.map(asText).filter(Boolean) : [];
			const unresolved = Array.isArray(data.unresolved)
				? data.unresolved.map((item) => ({ citation: asText(asRecord(item).citation), message: asText(asRecord(item).message) }))
				: [];
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

export interface IndexSnapshot {
	indexed: boolean;
	files: number;
	chunks: number;
	quality_vectors: number;
	/** Chunks pass 2 embeds (a Korean vault's Korean chunks are read by the multilingual vectors instead); absent from an older server. */
	quality_chunks?: number;
	job: { state: string; done: number; total: number };
}

/** The status bar's words for the server's status (null: not connected): an index run's
 * progress, else the notes indexed and, while pass 2 is unfinished, its share done. */
export function statusKey(status: IndexSnapshot | null): { key: "engineUp" | "enginePass2" | "engineIndexing" | "engineDown"; fill: Record<string, number> } {
	if (status === null) return { key: "engineDown", fill: {} };
	if (status.job.state === "running") return { key: "engineIndexing", fill: { done: status.job.done, total: status.job.total } };
	const pass2 = status.quality_chunks ?? status.chunks;
	if (pass2 > 0 && status.quality_vectors < pass2) {
		return { key: "enginePass2", fill: { files: status.files, percent: Math.floor((100 * status.quality_vectors) / pass2) } };
	}
	return { key: "engineUp", fill: { files: status.files } };
}

/** A unified diff's lines with the class each shows in (added, removed, hunk, context). */
export function diffLines(diff: string): { text: string; kind: "add" | "del" | "hunk" | "ctx" }[] {
	return diff.split("\n").map((text) => {
		if (text.startsWith("+++") || text.startsWith("---")) return { text, kind: "hunk" as const };
		if (text.startsWith("+")) return { text, kind: "add" as const };
		if (text.startsWith("-")) return { text, kind: "del" as const };
		if (text.startsWith("@@")) return { text, kind: "hunk" as const };
		return { text, kind: "ctx" as const };
	});
}

/** A saved conversation's search snippet in pieces, each match (between `**`) marked, to show
 * as text. */
export function snippetParts(snippet: string): { text: string; match: boolean }[] {
	return snippet
		.split("**")
		.map((text, index) => ({ text, match: index % 2 === 1 }))
		.filter((part) => part.text.length > 0);
}

/** The vault links in what was dropped on the chat: `obsidian://open?…&file=…` addresses (a
 * file dragged from Obsidian's file explorer) and `[[wikilinks]]` (a link dragged from a note),
 * each once, as link paths for `metadataCache.getFirstLinkpathDest`. */
export function droppedLinks(text: string): string[] {
	const found: string[] = [];
	for (const line of text.split(/\r?\n/)) {
		const trimmed = line.trim();
		if (trimmed.startsWith("obsidian://")) {
			try {
				const file = new URL(trimmed).searchParams.get("file");
				if (file) found.push(file);
			} catch {
				// not an address after all
			}
		}
	}
	for (const match of text.matchAll(/\[\[([^\]\n]+)\]\]/g)) {
		const link = (match[1] ?? "").split("|")[0]?.split("#")[0]?.trim();
		if (link) found.push(link);
	}
	return [...new Set(found)];
}

/** Bytes as base64, in pieces (a large file would overflow one call's arguments). */
export function toBase64(bytes: Uint8Array): string {
	let binary = "";
	const piece = 0x8000;
	for (let start = 0; start < bytes.length; start += piece) {
		binary += String.fromCharCode(...bytes.subarray(start, start + piece));
	}
	return btoa(binary);
}

/** A file that goes with the next question: a vault file by its path (the server reads and
 * confines it), or a file from disk by its bytes. */
export type PendingAttachment = { kind: "vault"; path: string } | { kind: "disk"; name: string; data: string };

export function attachmentName(attachment: PendingAttachment): string {
	return attachment.kind === "vault" ? attachment.path : attachment.name;
}

/** The attachments as the `chat` action takes them; a vault file named twice goes once. */
export function attachmentFields(pending: PendingAttachment[]): { vault_files: string[]; files: { name: string; data: string }[] } {
	const vault = pending.flatMap((a) => (a.kind === "vault" ? [a.path] : []));
	const files = pending.flatMap((a) => (a.kind === "disk" ? [{ name: a.name, data: a.data }] : []));
	return { vault_files: [...new Set(vault)], files };
}
