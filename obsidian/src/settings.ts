// The plugin's own settings (data.json): where the vaultctx command is and the reasoning
// effort. Nothing secret lives here: the token is read at start-up, keys stay in the keyring.
import { PluginSettingTab, Setting, type App, type Plugin } from "obsidian";
import type { Say } from "./views/say";

export interface PluginSettings {
	executable: string;
	effort: string;
}

export const DEFAULT_SETTINGS: PluginSettings = { executable: "vaultctx", effort: "" };
const EFFORTS = ["", "minimal", "low", "medium", "high", "xhigh", "max"];

export interface SettingsHost extends Plugin {
	settings: PluginSettings;
	say: Say;
	saveSettings(): Promise<void>;
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
			.setName(say("effort"))
			.setDesc(say("effortDesc"))
			.addDropdown((dropdown) => {
				for (const level of EFFORTS) dropdown.addOption(level, level || say("asConfigured"));
				dropdown.setValue(this.owner.settings.effort).onChange(async (value) => {
					this.owner.settings.effort = value;
					await this.owner.saveSettings();
				});
			});
		containerEl.createEl("p", { cls: "setting-item-description", text: say("settingsNote") });
	}
}
