// The settings tab. The vaultctx executable is the plugin's own setting (data.json); backend,
// model, effort, confirmations and the Second Brain are written by vaultctx into your own
// vaultctx.toml (never the vault's), as the CLI reads them. No key or token is kept here.
import { Notice, PluginSettingTab, Setting, type App, type Plugin } from "obsidian";
import type { VaultctxClient } from "./client";
import type { Say } from "./views/say";

export interface PluginSettings {
	executable: string;
	/** Tell vaultctx which notes are opened (path and time only), for its review queue. */
	reportOpens: boolean;
}

export const DEFAULT_SETTINGS: PluginSettings = { executable: "vaultctx", reportOpens: true };

/** The settings in force, as the server reports them (`settings`). */
export interface ServerSettings {
	/** The keyring name the backend's key is kept under, and whether one is found there (or in
	 * the environment); never the key itself. */
	key_name: string;
	key_set: boolean;
	backend: string;
	model: string;
	effort: string;
	confirm_changes: boolean;
	second_brain: boolean;
	file: string;
	backends: string[];
	efforts: string[];
}

export interface SettingsHost extends Plugin {
	settings: PluginSettings;
	say: Say;
	saveSettings(): Promise<void>;
	client(): Promise<VaultctxClient | null>;
	serverSettings: ServerSettings | null;
}

export class VaultctxSettingTab extends PluginSettingTab {
	constructor(app: App, private readonly owner: SettingsHost) {
		super(app, owner);
	}

	display(): void {
		const { containerEl } = this;
		const say = this.owner.say;
		containerEl.empty();
		new Setting(containerEl)
			.setName(say("executable"))
			.setDesc(say("executableDesc"))
			.addText((text) =>
				text.setValue(this.owner.settings.executable).onChange(async (value) => {
					this.owner.settings.executable = value.trim() || DEFAULT_SETTINGS.executable;
					await this.owner.saveSettings();
				}),
			);
		new Setting(containerEl)
			.setName(say("reportOpens"))
			.setDesc(say("reportOpensDesc"))
			.addToggle((toggle) =>
				toggle.setValue(this.owner.settings.reportOpens).onChange(async (value) => {
					this.owner.settings.reportOpens = value;
					await this.owner.saveSettings();
				}),
			);
		const shared = containerEl.createDiv({ cls: "vaultctx-shared-settings" });
		void this.showShared(shared);
	}

	private async showShared(el: HTMLElement): Promise<void> {
		const client = await this.owner.client();
		if (!client) return;
		let current: ServerSettings;
		try {
			current = await client.post<ServerSettings>("settings");
		} catch (error) {
			el.setText(error instanceof Error ? error.message : String(error));
			return;
		}
		this.owner.serverSettings = current;
		const say = this.owner.say;
		const save = async (name: string, value: string | boolean) => {
			try {
				this.owner.serverSettings = await client.post<ServerSettings>("set_setting", { name, value });
			} catch (error) {
				new Notice(error instanceof Error ? error.message : String(error));
			}
		};
		el.createEl("p", { cls: "setting-item-description", text: `${say("settingsNote")} ${current.file}` });
		new Setting(el).setName(say("backend")).addDropdown((dropdown) => {
			dropdown.addOption("", say("asConfigured"));
			for (const name of current.backends) dropdown.addOption(name, name);
			dropdown.setValue(current.backend).onChange((value) => void save("backend", value));
		});
		new Setting(el).setName(say("model")).addText((text) => {
			text.setValue(current.model);
			text.inputEl.addEventListener("change", () => void save("model", text.getValue()));
		});
		this.showKey(el, client, current);
		new Setting(el).setName(say("effort")).addDropdown((dropdown) => {
			dropdown.addOption("", say("asConfigured"));
			for (const level of current.efforts) dropdown.addOption(level, level);
			dropdown.setValue(current.effort).onChange((value) => void save("effort", value));
		});
		new Setting(el)
			.setName(say("confirmChanges"))
			.setDesc(say("confirmChangesDesc"))
			.addToggle((toggle) => toggle.setValue(current.confirm_changes).onChange((value) => void save("confirm_changes", value)));
		new Setting(el)
			.setName(say("secondBrain"))
			.addToggle((toggle) => toggle.setValue(current.second_brain).onChange((value) => void save("second_brain", value)));
	}

	/** The key goes once to vaultctx, which keeps it in the OS keyring; the field is emptied and
	 * the tab only ever learns whether a key is set. */
	private showKey(el: HTMLElement, client: VaultctxClient, current: ServerSettings): void {
		const say = this.owner.say;
		const state = say(current.key_set ? "keySet" : "keyMissing");
		let typed = "";
		new Setting(el)
			.setName(say("apiKey"))
			.setDesc(`${say("apiKeyDesc", { name: current.key_name })} ${state}`)
			.addText((text) => {
				text.inputEl.type = "password";
				text.inputEl.autocomplete = "off";
				text.onChange((value) => (typed = value));
			})
			.addButton((button) =>
				button.setButtonText(say("saveKey")).onClick(async () => {
					if (!typed.trim()) return;
					try {
						this.owner.serverSettings = await client.post<ServerSettings>("set_key", { key: typed });
						typed = "";
						new Notice(say("keySaved", { name: this.owner.serverSettings.key_name }));
						this.display();
					} catch (error) {
						new Notice(error instanceof Error ? error.message : String(error));
					}
				}),
			);
	}
}
