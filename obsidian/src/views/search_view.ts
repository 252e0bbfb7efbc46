// Hybrid search as you type (debounced), and the notes similar to the open one: both list
// passages as text; a click opens the note at the passage's heading.
import { ItemView, type TFile, type WorkspaceLeaf } from "obsidian";
import type { SearchHit } from "../client";
import { citationLink, debounce } from "../logic";
import type { Host } from "./host";

export const SEARCH_VIEW = "vaultctx-search";
export const SIMILAR_VIEW = "vaultctx-similar";
const TYPING_PAUSE_MS = 250;

function showHits(view: ItemView, list: HTMLElement, hits: SearchHit[], empty: string): void {
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
		view.registerDomEvent(item, "keydown", (event: KeyboardEvent) => {
			if (event.key === "Enter") open();
		});
	}
}

export class SearchView extends ItemView {
	private asked = 0;

	constructor(leaf: WorkspaceLeaf, private readonly host: Host) {
		super(leaf);
	}

	getViewType(): string {
		return SEARCH_VIEW;
	}

	getDisplayText(): string {
		return this.host.say("search");
	}

	getIcon(): string {
		return "search";
	}

	async onOpen(): Promise<void> {
		const root = this.contentEl;
		root.empty();
		root.addClass("vaultctx-search");
		const input = root.createEl("input", { type: "search", attr: { placeholder: this.host.say("searchPlaceholder") } });
		const list = root.createDiv({ cls: "vaultctx-hits" });
		const search = debounce((query: string) => void this.search(query, list), TYPING_PAUSE_MS, window);
		this.registerDomEvent(input, "input", () => search(input.value));
		input.focus();
	}

	private async search(query: string, list: HTMLElement): Promise<void> {
		const asked = ++this.asked;
		const client = await this.host.client();
		if (!client || !query.trim()) return list.empty();
		try {
			const found = await client.post<{ results: SearchHit[] }>("search", { query });
			if (asked === this.asked) showHits(this, list, found.results, this.host.say("noResults"));
		} catch (error) {
			if (asked === this.asked) list.setText(error instanceof Error ? error.message : String(error));
		}
	}
}

export class SimilarView extends ItemView {
	private list!: HTMLElement;

	constructor(leaf: WorkspaceLeaf, private readonly host: Host) {
		super(leaf);
	}

	getViewType(): string {
		return SIMILAR_VIEW;
	}

	getDisplayText(): string {
		return this.host.say("similar");
	}

	getIcon(): string {
		return "network";
	}

	async onOpen(): Promise<void> {
		this.contentEl.empty();
		this.contentEl.addClass("vaultctx-similar");
		this.list = this.contentEl.createDiv({ cls: "vaultctx-hits" });
		this.registerEvent(this.app.workspace.on("file-open", (file) => void this.show(file)));
		await this.show(this.app.workspace.getActiveFile());
	}

	async show(file: TFile | null): Promise<void> {
		if (!file || file.extension !== "md") {
			this.list.setText(this.host.say("noActiveNote"));
			return;
		}
		const client = await this.host.client();
		if (!client) return;
		try {
			const found = await client.post<{ results: SearchHit[] }>("similar", { path: file.path });
			showHits(this, this.list, found.results, this.host.say("noResults"));
		} catch (error) {
			this.list.setText(error instanceof Error ? error.message : String(error));
		}
	}
}
