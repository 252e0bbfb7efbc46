// The assistant in the right sidebar: questions go to vaultctx with the open note (and its
// selection); the answer streams in as text, then is rendered by Obsidian's MarkdownRenderer,
// with its sources as links that open the note at the heading.
import { ItemView, MarkdownRenderer, Notice, type WorkspaceLeaf } from "obsidian";
import { citationLink, type TurnState } from "../logic";
import type { Host } from "./host";
import { ConfirmModal } from "./confirm_modal";

export const CHAT_VIEW = "vaultctx-chat";

function chatKey(): string {
	const bytes = new Uint8Array(18);
	window.crypto.getRandomValues(bytes);
	return Array.from(bytes, (b) => "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"[b % 64]).join("");
}

export class ChatView extends ItemView {
	private readonly key = chatKey();
	private turn: string | null = null;
	private busy = false;
	private messagesEl!: HTMLElement;
	private questionEl!: HTMLTextAreaElement;
	private sendEl!: HTMLButtonElement;
	private stopEl!: HTMLButtonElement;

	constructor(leaf: WorkspaceLeaf, private readonly host: Host) {
		super(leaf);
	}

	getViewType(): string {
		return CHAT_VIEW;
	}

	getDisplayText(): string {
		return this.host.say("assistant");
	}

	getIcon(): string {
		return "message-square";
	}

	async onOpen(): Promise<void> {
		const root = this.contentEl;
		root.empty();
		root.addClass("vaultctx-chat");
		this.messagesEl = root.createDiv({ cls: "vaultctx-messages" });
		const form = root.createDiv({ cls: "vaultctx-ask" });
		this.questionEl = form.createEl("textarea", { attr: { placeholder: this.host.say("ask"), rows: "3" } });
		const buttons = form.createDiv({ cls: "vaultctx-ask-buttons" });
		this.sendEl = buttons.createEl("button", { cls: "mod-cta", text: this.host.say("send") });
		this.stopEl = buttons.createEl("button", { text: this.host.say("stop") });
		this.stopEl.disabled = true;
		this.registerDomEvent(this.sendEl, "click", () => void this.send());
		this.registerDomEvent(this.stopEl, "click", () => void this.stop());
		this.registerDomEvent(this.questionEl, "keydown", (event: KeyboardEvent) => {
			if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
				event.preventDefault();
				void this.send();
			}
		});
		this.registerDomEvent(this.messagesEl, "click", (event: MouseEvent) => this.followLink(event));
	}

	/** A rendered [[link]] in an answer opens its note, as links do in a note's preview. */
	private followLink(event: MouseEvent): void {
		const target = event.target instanceof HTMLElement ? event.target.closest("a.internal-link") : null;
		const href = target?.getAttribute("data-href");
		if (!href) return;
		event.preventDefault();
		void this.app.workspace.openLinkText(href, "", false);
	}

	async send(): Promise<void> {
		const question = this.questionEl.value.trim();
		if (!question || this.busy) return;
		const client = await this.host.client();
		if (!client) return;
		const active = this.app.workspace.getActiveFile();
		const selection = this.app.workspace.activeEditor?.editor?.getSelection() ?? "";
		this.questionEl.value = "";
		const turnEl = this.messagesEl.createDiv({ cls: "vaultctx-turn", attr: { "data-state": "asking" } });
		turnEl.createDiv({ cls: "vaultctx-question", text: question });
		const answerEl = turnEl.createDiv({ cls: "vaultctx-answer", text: this.host.say("thinking") });
		const shown = new Set<string>();
		this.setBusy(true);
		try {
			const state = await client.ask(
				{ chat: this.key, question, effort: this.host.effort(), active_note: active?.path ?? "", selection, conversation: "" },
				(current) => {
					if (!current.done) answerEl.setText(current.text);
					for (const confirm of current.confirms) {
						if (shown.has(confirm.id)) continue;
						shown.add(confirm.id);
						new ConfirmModal(this.app, confirm, this.host.say, (decision) => {
							void client.post("confirm", { id: confirm.id, decision }).catch((e: Error) => new Notice(e.message));
						}).open();
					}
				},
				(turn) => (this.turn = turn),
			);
			await this.showAnswer(turnEl, answerEl, state, active?.path ?? "");
		} catch (error) {
			answerEl.setText(error instanceof Error ? error.message : String(error));
			turnEl.setAttr("data-state", "failed");
		} finally {
			this.setBusy(false);
			this.turn = null;
		}
	}

	private async showAnswer(turnEl: HTMLElement, answerEl: HTMLElement, state: TurnState, sourcePath: string): Promise<void> {
		answerEl.empty();
		if (state.text) await MarkdownRenderer.render(this.app, state.text, answerEl, sourcePath, this);
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

	private setBusy(busy: boolean): void {
		this.busy = busy;
		this.sendEl.disabled = busy;
		this.stopEl.disabled = !busy;
	}

	async stop(): Promise<void> {
		const client = await this.host.client();
		if (client && this.turn) await client.post("stop", { turn: this.turn });
	}
}
