// Talks to vaultctx: every call is POST <base>/vaultctx/obsidian/<action> with a JSON body,
// and an answer arrives as a long poll of its events. Two ways there, chosen by the connection
// and invisible to the views: the engine's Unix socket (Node's http, no token: the engine
// checks who connects) on Linux and macOS, or Obsidian's requestUrl to a loopback server with
// its bearer token (Windows, or where the engine does not serve). A server or engine that went
// away is found (or started) again.
import { requestUrl } from "obsidian";
import {
	applyEvent, isSocket, newTurn, readReply, sameServer, StaleConnection, VaultctxProblem,
	type Connection, type HttpConnection, type Reply, type TurnEvent, type TurnState,
} from "./logic";
import { postOverSocket } from "./socket_transport";

export { VaultctxProblem };

export interface SearchHit {
	path: string;
	title: string;
	heading: string;
	citation: string;
	text: string;
	score: number;
}

export interface LedgerEntry {
	id: string;
	label: string;
	created_at: number;
	source: string;
	kind: string;
	diffs: { path: string; diff: string }[];
}

export interface Question {
	chat: string;
	question: string;
	effort: string;
	active_note: string;
	selection: string;
	/** The saved conversation this one continues ("" for a new one). */
	conversation: string;
	/** Answer the last question again (its attachments went with it already). */
	regenerate: boolean;
	vault_files: string[];
	files: { name: string; data: string }[];
}

/** A saved conversation in the list, or (with `snippet`) a search hit. */
export interface ConversationItem {
	id: string;
	title: string;
	updated?: string;
	messages?: number;
	snippet?: string;
}

export interface SavedConversation {
	id: string;
	title: string;
	turns: { role: "user" | "assistant"; text: string }[];
}

/** How the plugin finds the server again (`vaultctx obsidian connect`, which starts one when
 * none answers). */
export type Reconnect = () => Promise<Connection>;

export class VaultctxClient {
	constructor(
		private connection: Connection,
		private readonly reconnect: Reconnect | null = null,
	) {}

	/** One action; when the server cannot be reached at all (it was stopped, or the machine
	 * restarted it), the plugin connects again and, if that found another server, retries once:
	 * the old one is gone, so nothing it did can be done twice. */
	async post<T>(action: string, body: Record<string, unknown> = {}): Promise<T> {
		try {
			return await this.send<T>(action, body);
		} catch (error) {
			if (error instanceof VaultctxProblem) throw error; // vaultctx answered: no retry
			const before = this.connection;
			if (!this.reconnect) throw error;
			this.connection = await this.reconnect();
			// An engine that had not opened this vault did nothing: retried even if the same.
			if (sameServer(before, this.connection) && !(error instanceof StaleConnection)) throw error;
			return this.send<T>(action, body);
		}
	}

	private async send<T>(action: string, body: Record<string, unknown>): Promise<T> {
		const connection = this.connection;
		const reply = isSocket(connection) ? await postOverSocket(connection, action, body) : await postOverHttp(connection, action, body);
		return readReply<T>(reply, connection);
	}

	/** Ask, and hand each new state of the answer to `update` until it is done; `started`
	 * gets the turn's id (for Stop). */
	async ask(question: Question, update: (state: TurnState) => void, started: (turn: string) => void): Promise<TurnState> {
		const { turn } = await this.post<{ turn: string }>("chat", { ...question });
		started(turn);
		let state = newTurn();
		let seen = 0;
		while (!state.done) {
			const polled = await this.post<{ events: TurnEvent[]; done: boolean }>("poll", { turn, after: seen });
			seen += polled.events.length;
			for (const event of polled.events) state = applyEvent(state, event);
			if (polled.done && !state.done) state = { ...state, done: true };
			update(state);
		}
		return state;
	}
}

async function postOverHttp(connection: HttpConnection, action: string, body: Record<string, unknown>): Promise<Reply> {
	const response = await requestUrl({
		url: `${connection.url}/vaultctx/obsidian/${action}`,
		method: "POST",
		contentType: "application/json",
		headers: { Authorization: `Bearer ${connection.token}` },
		body: JSON.stringify(body),
		throw: false,
	});
	let json: unknown = {};
	try {
		json = response.json as unknown;
	} catch {
		json = {}; // not JSON (an old or foreign server): its status speaks
	}
	return { status: response.status, json };
}
