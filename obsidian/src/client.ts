// Talks to the vaultctx server over Obsidian's requestUrl (outside the page: no CORS, no
// cookies). Every call is POST /vaultctx/obsidian/<action> with the bearer token; an answer
// arrives as a long poll of its events. A server that went away is found (or started) again.
import { requestUrl, type RequestUrlResponse } from "obsidian";
import { applyEvent, newTurn, sameServer, type Connection, type TurnEvent, type TurnState } from "./logic";

export class VaultctxProblem extends Error {}

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
		let response: RequestUrlResponse;
		try {
			response = await this.send(action, body);
		} catch (error) {
			const before = this.connection;
			if (!this.reconnect) throw error;
			this.connection = await this.reconnect();
			if (sameServer(before, this.connection)) throw error;
			response = await this.send(action, body);
		}
		return this.answer<T>(response);
	}

	private send(action: string, body: Record<string, unknown>): Promise<RequestUrlResponse> {
		return requestUrl({
			url: `${this.connection.url}/vaultctx/obsidian/${action}`,
			method: "POST",
			contentType: "application/json",
			headers: { Authorization: `Bearer ${this.connection.token}` },
			body: JSON.stringify(body),
			throw: false,
		});
	}

	private answer<T>(response: RequestUrlResponse): T {
		const data = (response.json ?? {}) as { error?: string; suggestion?: string };
		if (response.status === 404) {
			throw new VaultctxProblem(
				`the vaultctx server at ${this.connection.url} does not serve the Obsidian plugin (an older vaultctx?); update vaultctx and restart that server`,
			);
		}
		if (response.status >= 400) {
			const fix = data.suggestion ? ` (${data.suggestion})` : "";
			throw new VaultctxProblem(`${data.error ?? `HTTP ${response.status}`}${fix}`);
		}
		return data as T;
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
