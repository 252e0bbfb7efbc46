// The saved conversations (the same ones `vaultctx conversations` lists): the newest first, or
// those matching what is typed; a click resumes one in the chat view. Everything is text.
import { ItemView, type WorkspaceLeaf } from "obsidian";
import type { ConversationItem } from "../client";
import { debounce, snippetParts } from "../logic";
import type { Host } from "./host";

export const CONVERSATIONS_VIEW = "vaultctx-conversations";
const TYPING_PAUSE_MS = 250;

export class ConversationsView extends ItemView {
	private asked = 0;
	private input!: HTMLInputElement;
	private list!: HTMLElement;

	constructor(leaf: WorkspaceLeaf, private readonly host: Host) {
		super(leaf);
	}

	getViewType(): string {
		return CONVERSATIONS_VIEW;
	}

	getDisplayText(): string {
		return this.host.say("conversations");
	}

	getIcon(): string {
		return "messages-square";
	}

	async onOpen(): Promise<void> {
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
	async refresh(): Promise<void> {
		const asked = ++this.asked;
		const client = await this.host.client();
		if (!client) return;
		try {
			const found = await client.post<{ conversations: ConversationItem[] }>("conversations", { query: this.input.value });
			if (asked === this.asked) this.show(found.conversations);
		} catch (error) {
			if (asked === this.asked) this.list.setText(error instanceof Error ? error.message : String(error));
		}
	}

	private show(items: ConversationItem[]): void {
		this.list.empty();
		if (!items.length) {
			this.list.createDiv({ cls: "vaultctx-empty", text: this.host.say(this.input.value.trim() ? "noResults" : "noConversations") });
			return;
		}
		for (const item of items) {
			const row = this.list.createDiv({ cls: "vaultctx-hit vaultctx-conversation", attr: { tabindex: "0", "data-id": item.id } });
			row.createDiv({ cls: "vaultctx-hit-title", text: item.title });
			if (item.snippet !== undefined) {
				const snippet = row.createDiv({ cls: "vaultctx-hit-text" });
				for (const part of snippetParts(item.snippet)) {
					if (part.match) snippet.createEl("mark", { text: part.text });
					else snippet.appendText(part.text);
				}
			} else {
				const when = item.updated ? new Date(item.updated).toLocaleString() : "";
				row.createDiv({ cls: "vaultctx-hit-heading", text: `${when} · ${this.host.say("messages", { count: item.messages ?? 0 })}` });
			}
			const open = () => void this.host.resume(item.id);
			this.registerDomEvent(row, "click", open);
			this.registerDomEvent(row, "keydown", (event: KeyboardEvent) => {
				if (event.key === "Enter") open();
			});
		}
	}
}
