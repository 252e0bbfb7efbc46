// The assistant in the right sidebar: questions go to vaultctx with the open note (and its
// selection) and whatever was attached; the answer streams in as text, then is rendered by
// Obsidian's MarkdownRenderer, with its sources as links that open the note at the heading.
// A saved conversation can be resumed here, and the last answer regenerated.
import { ItemView, MarkdownRenderer, Notice, TFile, type App, type WorkspaceLeaf } from "obsidian";
import type { SavedConversation, VaultctxClient } from "../client";
import {
	attachmentFields, attachmentName, citationLink, droppedLinks, toBase64,
	type PendingAttachment, type TurnState,
} from "../logic";
import type { Host } from "./host";
import { ConfirmModal } from "./confirm_modal";

export const CHAT_VIEW = "vaultctx-chat";

function chatKey(): string {
	const bytes = new Uint8Array(18);
	window.crypto.getRandomValues(bytes);
	return Array.from(bytes, (b) => "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"[b % 64]).join("");
}

/** The files Obsidian itself is dragging (from its file explorer, a search result, a tab).
 * `app.dragManager` is not in the public API, so it is read defensively: only real TFiles. */
function draggedFiles(app: App): TFile[] {
	const manager = (app as unknown as { dragManager?: { draggable?: { file?: unknown; files?: unknown } | null } }).dragManager;
	const draggable = manager?.draggable;
	if (!draggable) return [];
	const files = Array.isArray(draggable.files) ? (draggable.files as unknown[]) : [];
	return [draggable.file, ...files].filter((file): file is TFile => file instanceof TFile);
}

export class ChatView extends ItemView {
	private key = chatKey();
	private conversation = "";
	private lastQuestion = "";
	private canRegenerate = false;
	private pending: PendingAttachment[] = [];
	private turn: string | null = null;
	private busy = false;
	private titleEl!: HTMLElement;
	private messagesEl!: HTMLElement;
	private pendingEl!: HTMLElement;
	private questionEl!: HTMLTextAreaElement;
	private sendEl!: HTMLButtonElement;
	private stopEl!: HTMLButtonElement;
	private regenEl!: HTMLButtonElement;

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
		this.registerDomEvent(picker, "change", () => void this.addFiles(Array.from(picker.files ?? [])).then(() => (picker.value = "")));
		this.registerDomEvent(this.questionEl, "keydown", (event: KeyboardEvent) => {
			if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
				event.preventDefault();
				void this.send(false);
			}
		});
		this.registerDomEvent(this.messagesEl, "click", (event: MouseEvent) => this.followLink(event));
		this.registerDomEvent(root, "dragover", (event: DragEvent) => event.preventDefault());
		this.registerDomEvent(root, "drop", (event: DragEvent) => void this.dropped(event));
	}

	private button(parent: HTMLElement, text: string, click: () => void): HTMLButtonElement {
		const el = parent.createEl("button", { text });
		this.registerDomEvent(el, "click", click);
		return el;
	}

	/** A rendered [[link]] in an answer opens its note, as links do in a note's preview. */
	private followLink(event: MouseEvent): void {
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
	private async dropped(event: DragEvent): Promise<void> {
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

	private addVaultLink(link: string): void {
		const file = this.app.metadataCache.getFirstLinkpathDest(link, "");
		if (!file) {
			new Notice(this.host.say("notInVault", { link }));
			return;
		}
		this.attach({ kind: "vault", path: file.path });
	}

	private attachActive(): void {
		const active = this.app.workspace.getActiveFile();
		if (active) this.attach({ kind: "vault", path: active.path });
		else new Notice(this.host.say("noActiveNote"));
	}

	private async addFiles(files: File[]): Promise<void> {
		for (const file of files) {
			const bytes = new Uint8Array(await file.arrayBuffer());
			this.attach({ kind: "disk", name: file.name, data: toBase64(bytes) });
		}
	}

	private attach(attachment: PendingAttachment): void {
		this.pending.push(attachment);
		this.showPending();
	}

	private showPending(): void {
		this.pendingEl.empty();
		if (!this.pending.length) this.pendingEl.createDiv({ cls: "vaultctx-hint", text: this.host.say("dropHere") });
		this.pending.forEach((attachment, index) => {
			const name = attachmentName(attachment);
			const chip = this.pendingEl.createDiv({ cls: "vaultctx-chip", attr: { "data-kind": attachment.kind } });
			chip.createSpan({ text: name });
			const remove = chip.createEl("button", { text: "×", attr: { "aria-label": this.host.say("removeAttachment", { name }) } });
			this.registerDomEvent(remove, "click", () => {
				this.pending.splice(index, 1);
				this.showPending();
			});
		});
	}

	// -- conversations -------------------------------------------------------------------

	/** A fresh conversation: the server keeps the old one saved. */
	newChat(): void {
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
	async resume(id: string): Promise<void> {
		const client = await this.host.client();
		if (!client || this.busy) return;
		let saved: SavedConversation;
		try {
			saved = await client.post<SavedConversation>("conversation", { id });
		} catch (error) {
			new Notice(error instanceof Error ? error.message : String(error));
			return;
		}
		this.newChat();
		this.conversation = saved.id;
		this.titleEl.setText(this.host.say("continuing", { title: saved.title }));
		let turnEl: HTMLElement | null = null;
		for (const turn of saved.turns) {
			if (turn.role === "user" || !turnEl) {
				turnEl = this.messagesEl.createDiv({ cls: "vaultctx-turn", attr: { "data-state": "saved" } });
			}
			if (turn.role === "user") turnEl.createDiv({ cls: "vaultctx-question", text: turn.text });
			else await MarkdownRenderer.render(this.app, turn.text, turnEl.createDiv({ cls: "vaultctx-answer" }), "", this);
		}
	}

	// -- asking ------------------------------------------------------------------------

	/** Ask the question typed (with the attachments), or with `regenerate` the last one again. */
	async send(regenerate: boolean): Promise<void> {
		const question = regenerate ? this.lastQuestion : this.questionEl.value.trim();
		if (!question || this.busy || (regenerate && !this.canRegenerate)) return;
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
		if (attachments.length) turnEl.createDiv({ cls: "vaultctx-attached", text: `📎 ${attachments.map(attachmentName).join(", ")}` });
		const answerEl = turnEl.createDiv({ cls: "vaultctx-answer", text: this.host.say("thinking") });
		this.setBusy(true);
		try {
			const state = await this.ask(client, {
				chat: this.key, question, effort: this.host.effort(), active_note: active?.path ?? "", selection,
				conversation: this.conversation, regenerate, ...attachmentFields(attachments),
			}, answerEl);
			if (state.conversation) this.conversation = state.conversation;
			this.lastQuestion = question;
			this.canRegenerate = true;
			await this.showAnswer(turnEl, answerEl, state, active?.path ?? "");
		} catch (error) {
			answerEl.setText(error instanceof Error ? error.message : String(error));
			turnEl.setAttr("data-state", "failed");
			if (!regenerate && !this.pending.length) {
				this.pending = attachments; // not asked: they wait for the next try
				this.showPending();
			}
		} finally {
			this.turn = null;
			this.setBusy(false);
		}
	}

	private ask(client: VaultctxClient, question: Parameters<VaultctxClient["ask"]>[0], answerEl: HTMLElement): Promise<TurnState> {
		const shown = new Set<string>();
		return client.ask(
			question,
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
		this.regenEl.disabled = busy || !this.canRegenerate;
	}

	async stop(): Promise<void> {
		const client = await this.host.client();
		if (client && this.turn) await client.post("stop", { turn: this.turn });
	}
}
