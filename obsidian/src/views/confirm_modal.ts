// A change the model wants to make, put to the user with its diff: Yes, No or Always. Closing
// the modal any other way is No. The diff is text (one element per line), never markup.
import { Modal, type App } from "obsidian";
import { diffLines, type ConfirmQuestion } from "../logic";
import type { Say } from "./say";

export type Decision = "yes" | "no" | "always";

export class ConfirmModal extends Modal {
	private decided: Decision = "no";

	constructor(app: App, private readonly question: ConfirmQuestion, private readonly say: Say, private readonly answer: (decision: Decision) => void) {
		super(app);
	}

	onOpen(): void {
		const { contentEl } = this;
		contentEl.addClass("vaultctx-confirm");
		this.setTitle(this.say("confirmTitle"));
		contentEl.createEl("p", { cls: "vaultctx-confirm-tool", text: this.question.tool });
		const pre = contentEl.createEl("pre", { cls: "vaultctx-diff" });
		for (const line of diffLines(this.question.diff || this.question.args)) {
			pre.createDiv({ cls: `vaultctx-diff-${line.kind}`, text: line.text });
		}
		const buttons = contentEl.createDiv({ cls: "modal-button-container" });
		const choices: [Decision, "yes" | "no" | "always"][] = [["yes", "yes"], ["no", "no"], ["always", "always"]];
		for (const [decision, key] of choices) {
			const button = buttons.createEl("button", { text: this.say(key) });
			if (decision === "yes") button.addClass("mod-cta");
			button.addEventListener("click", () => {
				this.decided = decision;
				this.close();
			});
			if (decision === "yes") window.setTimeout(() => button.focus(), 0);
		}
	}

	onClose(): void {
		this.contentEl.empty();
		this.answer(this.decided);
	}
}
