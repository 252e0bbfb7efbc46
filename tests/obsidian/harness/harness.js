// Loads the built main.js as Obsidian does (a CommonJS module whose `require` provides
// `obsidian` and, on desktop, Node's modules) and exposes a few handles to the test.
"use strict";

function childProcess() {
	return {
		/** Node's execFile, run by the harness's Python side on the real executable. */
		execFile(file, args, options, callback) {
			window.harnessCall("/__run", { file, args }).then((result) => {
				if (result.error === "ENOENT") {
					const error = new Error(`spawn ${file} ENOENT`);
					error.code = "ENOENT";
					callback(error, "", "");
				} else if (result.code !== 0) {
					const error = new Error(`Command failed: ${file}`);
					error.code = result.code;
					callback(error, result.stdout, result.stderr);
				} else {
					callback(null, result.stdout, result.stderr);
				}
			});
		},
	};
}

async function loadPlugin() {
	const config = window.__harnessConfig;
	const app = new window.obsidianStandIn.App(config.vault, config.files);
	const code = await (await fetch("plugin/main.js")).text();
	const manifest = await (await fetch("plugin/manifest.json")).json();
	const module = { exports: {} };
	const require = (name) => {
		if (name === "obsidian") return window.obsidianStandIn;
		if (name === "child_process") return childProcess();
		throw new Error(`the harness has no module ${name}`);
	};
	new Function("module", "exports", "require", code)(module, module.exports, require);
	const PluginClass = module.exports.default;
	const plugin = new PluginClass(app, manifest);
	await plugin.load();
	window.harness = {
		app,
		plugin,
		runCommand: (id) => plugin.commands[id].callback(),
		openFile: (path, selection) => app.workspace.openFile(path, selection),
		opened: () => app.workspace.opened,
		notices: () => window.obsidianStandIn.notices,
		/** The plugin's settings tab, shown as Obsidian shows it: display() into its container. */
		showSettings: () => {
			const tab = plugin.settingTabs[0];
			tab.containerEl.className = "vertical-tab-content";
			document.getElementById("workspace-root").appendChild(tab.containerEl);
			tab.display();
		},
	};
	document.body.setAttribute("data-loaded", "yes");
}

loadPlugin().catch((error) => {
	document.body.setAttribute("data-loaded", "failed");
	document.getElementById("notices").textContent = String(error && error.stack || error);
});
