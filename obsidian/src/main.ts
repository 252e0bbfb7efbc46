// vaultctx inside Obsidian: every answer comes from the local vaultctx server (views/).
import { FileSystemAdapter, getLanguage, Notice, Plugin, type WorkspaceLeaf } from "obsidian";
import { VaultctxClient } from "./client";
import { connect, MissingExecutable } from "./connection";
import { pickLanguage, statusKey, translate, type Connection, type IndexSnapshot, type StringKey } from "./logic";
import { isReportable, OpenReporter, type NoteOpen } from "./open_reports";
import { DEFAULT_SETTINGS, VaultctxSettingTab, type PluginSettings, type ServerSettings } from "./settings";
import { CHAT_VIEW, ChatView } from "./views/chat_view";
import { CONVERSATIONS_VIEW, ConversationsView } from "./views/conversations_view";
import type { Host } from "./views/host";
import { LEDGER_VIEW, LedgerView } from "./views/ledger_view";
import { SEARCH_VIEW, SIMILAR_VIEW, SearchView, SimilarView } from "./views/search_view";

const STATUS_EVERY_MS = 15_000;

export default class VaultctxPlugin extends Plugin implements Host {
	settings: PluginSettings = { ...DEFAULT_SETTINGS };
	serverSettings: ServerSettings | null = null;
	private connecting: Promise<VaultctxClient | null> | null = null;
	private statusEl: HTMLElement | null = null;
	private readonly language = pickLanguage(getLanguage());
	private readonly opens = new OpenReporter((batch) => this.reportOpens(batch), window);

	say = (key: StringKey, fill: Record<string, string | number> = {}): string => translate(this.language, key, fill);

	async onload(): Promise<void> {
		const saved = ((await this.loadData()) ?? {}) as Partial<PluginSettings>;
		this.settings = {
			executable: saved.executable ?? DEFAULT_SETTINGS.executable,
			reportOpens: saved.reportOpens ?? DEFAULT_SETTINGS.reportOpens,
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
		// For the review queue: the note's path and when, never its text (docs/obsidian.md).
		this.registerEvent(
			this.app.workspace.on("file-open", (file) => {
				const reported = this.settings.reportOpens && isReportable(file, this.app.vault.configDir);
				this.opens.opened(reported && file ? file.path : null);
			}),
		);
	}

	onunload(): void {
		this.opens.cancel();
		void this.opens.flush();
	}

	/** Report opened notes on the connected server; a failure keeps them for the next open. */
	private async reportOpens(opens: NoteOpen[]): Promise<void> {
		const client = await this.client();
		if (!client) throw new Error("vaultctx is not connected");
		await client.post("opens", { opens });
	}

	/** The reasoning effort in force (vaultctx.toml), sent with each question. */
	effort(): string {
		return this.serverSettings?.effort ?? "";
	}

	async saveSettings(): Promise<void> {
		await this.saveData(this.settings);
	}

	/** The connected client; a failure is a Notice (with the install command when vaultctx is
	 * missing) and the next call tries again. */
	client(): Promise<VaultctxClient | null> {
		this.connecting ??= this.connectOnce();
		return this.connecting;
	}

	private async connectOnce(): Promise<VaultctxClient | null> {
		const adapter = this.app.vault.adapter;
		const vault = adapter instanceof FileSystemAdapter ? adapter.getBasePath() : "";
		try {
			// One reconnection at a time: views failing together must not start two servers.
			let pending: Promise<Connection> | null = null;
			const again = () => (pending ??= connect(this.settings.executable, vault).finally(() => (pending = null)));
			const client = new VaultctxClient(await again(), again);
			this.serverSettings = await client.post<ServerSettings>("settings").catch(() => null);
			return client;
		} catch (error) {
			this.connecting = null;
			const message = error instanceof Error ? error.message : String(error);
			new Notice(error instanceof MissingExecutable ? this.say("missing", { path: this.settings.executable }) : this.say("cannotConnect", { message }), 15_000);
			return null;
		}
	}

	refreshStatus(): void {
		void this.client().then(async (client) => {
			let status: IndexSnapshot | null = null;
			try {
				status = client ? await client.post<IndexSnapshot>("status") : null;
			} catch {
				this.connecting = null; // the server went away: connect again next time
			}
			const { key, fill } = statusKey(status);
			this.statusEl?.setText(this.say(key, fill));
		});
	}

	async open(type: string): Promise<WorkspaceLeaf | null> {
		const { workspace } = this.app;
		let leaf: WorkspaceLeaf | null = workspace.getLeavesOfType(type)[0] ?? null;
		if (!leaf) {
			leaf = workspace.getRightLeaf(false);
			if (!leaf) return null;
			await leaf.setViewState({ type, active: true });
		}
		await workspace.revealLeaf(leaf);
		return leaf;
	}

	async openConversations(): Promise<void> {
		const leaf = await this.open(CONVERSATIONS_VIEW);
		if (leaf?.view instanceof ConversationsView) await leaf.view.refresh();
	}

	async resume(id: string): Promise<void> {
		const leaf = await this.open(CHAT_VIEW);
		if (leaf?.view instanceof ChatView) await leaf.view.resume(id);
	}

	private async reindex(): Promise<void> {
		const client = await this.client();
		if (!client) return;
		await client.post("reindex");
		new Notice(this.say("indexStarted"));
		this.refreshStatus();
	}

	private async undoLast(): Promise<void> {
		const client = await this.client();
		if (!client) return;
		try {
			const done = await client.post<{ paths: string[] }>("undo", { record: "" });
			new Notice(`${this.say("undone")} ${done.paths.join(", ")}`);
		} catch (error) {
			new Notice(error instanceof Error ? error.message : this.say("nothingToUndo"));
		}
	}
}
