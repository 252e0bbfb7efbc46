// The AI change ledger: the last changes with their diffs (as text), and Undo on the newest,
// which the server undoes only while it is still the newest.
import { ItemView, Notice, type WorkspaceLeaf } from "obsidian";
import type { LedgerEntry } from "../client";
import { diffLines } from "../logic";
import type { Host } from "./host";

export const LEDGER_VIEW = "vaultctx-ledger";

export class LedgerView extends ItemView {
	private list!: HTMLElement;

	constructor(leaf: WorkspaceLeaf, private readonly host: Host) {
		super(leaf);
	}

	getViewType(): string {
		return LEDGER_VIEW;
	}

	getDisplayText(): string {
		return this.host.say("changes");
	}

	getIcon(): string {
		return "history";
	}

	async onOpen(): Promise<void> {
		this.contentEl.empty();
		this.contentEl.addClass("vaultctx-ledger");
		const refresh = this.contentEl.createEl("button", { text: this.host.say("refresh") });
		this.registerDomEvent(refresh, "click", () => void this.refresh());
		this.list = this.contentEl.createDiv({ cls: "vaultctx-records" });
		await this.refresh();
	}

	async refresh(): Promise<void> {
		const client = await this.host.client();
		if (!client) return;
		let records: LedgerEntry[];
		try {
			records = (await client.post<{ records: LedgerEntry[] }>("changes")).records;
		} catch (error) {
			this.list.setText(error instanceof Error ? error.message : String(error));
			return;
		}
		this.list.empty();
		if (!records.length) this.list.createDiv({ cls: "vaultctx-empty", text: this.host.say("noChanges") });
		records.forEach((record, index) => {
			const item = this.list.createDiv({ cls: "vaultctx-record", attr: { "data-id": record.id } });
			item.createDiv({ cls: "vaultctx-record-label", text: record.label });
			const when = new Date(record.created_at * 1000).toLocaleString();
			item.createDiv({ cls: "vaultctx-record-meta", text: `${record.id} · ${when} · ${record.source} · ${record.kind}` });
			for (const diff of record.diffs) {
				const details = item.createEl("details");
				details.createEl("summary", { text: diff.path });
				const pre = details.createEl("pre", { cls: "vaultctx-diff" });
				for (const line of diffLines(diff.diff)) pre.createDiv({ cls: `vaultctx-diff-${line.kind}`, text: line.text });
			}
			if (index === 0) {
				const undo = item.createEl("button", { cls: "mod-warning", text: this.host.say("undo") });
				this.registerDomEvent(undo, "click", () => void this.undo(record.id));
			}
		});
	}

	async undo(record: string): Promise<void> {
		const client = await this.host.client();
		if (!client) return;
		try {
			const done = await client.post<{ undone: string; paths: string[] }>("undo", { record });
			new Notice(`${this.host.say("undone")} ${done.paths.join(", ")}`);
		} catch (error) {
			new Notice(error instanceof Error ? error.message : String(error));
		}
		await this.refresh();
	}
}
