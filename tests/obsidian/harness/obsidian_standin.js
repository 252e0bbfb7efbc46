// A small stand-in for the `obsidian` module, for loading the plugin's built main.js in Chromium.
// It follows the public API's documented behaviour for the parts the plugin uses and nothing
// more; what it cannot prove is listed in docs/obsidian.md. Requests and processes go to the
// real vaultctx through the harness's own server (tests/obsidian/harness_server.py), as
// Obsidian's requestUrl and Node's child_process leave the page.
"use strict";

// -- Obsidian's DOM helpers on HTMLElement (createEl, createDiv, setText, …) -----------------
(function installDomHelpers() {
	const proto = HTMLElement.prototype;
	function applyOptions(el, o) {
		if (typeof o === "string") o = { cls: o };
		o = o || {};
		if (o.cls) (Array.isArray(o.cls) ? o.cls : o.cls.split(" ")).filter(Boolean).forEach((c) => el.classList.add(c));
		if (o.text !== undefined) el.textContent = String(o.text); // text, never markup
		if (o.attr) for (const [k, v] of Object.entries(o.attr)) if (v !== null && v !== undefined) el.setAttribute(k, String(v));
		for (const key of ["href", "type", "placeholder", "value", "title"]) if (o[key] !== undefined) el.setAttribute(key, String(o[key]));
	}
	proto.createEl = function (tag, o, callback) {
		const el = document.createElement(tag);
		applyOptions(el, o);
		this.appendChild(el);
		if (callback) callback(el);
		return el;
	};
	proto.createDiv = function (o, callback) { return this.createEl("div", o, callback); };
	proto.createSpan = function (o, callback) { return this.createEl("span", o, callback); };
	proto.empty = function () { while (this.firstChild) this.removeChild(this.firstChild); };
	proto.setText = function (text) { this.textContent = String(text); };
	proto.appendText = function (text) { this.appendChild(document.createTextNode(String(text))); };
	proto.addClass = function (...classes) { this.classList.add(...classes); };
	proto.removeClass = function (...classes) { this.classList.remove(...classes); };
	proto.toggleClass = function (c, on) { this.classList.toggle(c, on); };
	proto.hasClass = function (c) { return this.classList.contains(c); };
	proto.setAttr = function (k, v) { if (v === null) this.removeAttribute(k); else this.setAttribute(k, String(v)); };
	proto.instanceOf = function (type) { return this instanceof type; };
})();

// -- Events and components ------------------------------------------------------------------
class Events {
	constructor() { this._handlers = {}; }
	on(name, callback, ctx) {
		const ref = { name, callback: ctx ? callback.bind(ctx) : callback, owner: this };
		(this._handlers[name] = this._handlers[name] || []).push(ref);
		return ref;
	}
	offref(ref) { const list = this._handlers[ref.name] || []; const i = list.indexOf(ref); if (i >= 0) list.splice(i, 1); }
	trigger(name, ...args) { for (const ref of [...(this._handlers[name] || [])]) ref.callback(...args); }
}

class Component {
	constructor() { this._cleanups = []; this._children = []; this._loaded = false; }
	load() { this._loaded = true; if (this.onload) return this.onload(); }
	onload() {}
	unload() { for (const child of this._children) child.unload(); while (this._cleanups.length) this._cleanups.pop()(); this._loaded = false; if (this.onunload) this.onunload(); }
	onunload() {}
	addChild(child) { this._children.push(child); child.load(); return child; }
	register(cleanup) { this._cleanups.push(cleanup); }
	registerEvent(ref) { this.register(() => ref.owner.offref(ref)); }
	registerDomEvent(el, type, callback, options) { el.addEventListener(type, callback, options); this.register(() => el.removeEventListener(type, callback, options)); }
	registerInterval(id) { this.register(() => window.clearInterval(id)); return id; }
}

// -- Files, vault, workspace ----------------------------------------------------------------
class TAbstractFile {}
class TFile extends TAbstractFile {
	constructor(path) {
		super();
		this.path = path;
		this.name = path.split("/").pop();
		this.extension = this.name.includes(".") ? this.name.split(".").pop() : "";
		this.basename = this.extension ? this.name.slice(0, -(this.extension.length + 1)) : this.name;
	}
}
class FileSystemAdapter { constructor(base) { this._base = base; } getBasePath() { return this._base; } }

class Vault extends Events {
	constructor(base, paths) { super(); this.adapter = new FileSystemAdapter(base); this._files = paths.map((p) => new TFile(p)); this.configDir = ".obsidian"; }
	getMarkdownFiles() { return this._files.filter((f) => f.extension === "md"); }
	getFiles() { return [...this._files]; }
	getAbstractFileByPath(path) { return this._files.find((f) => f.path === path) || null; }
}

class MetadataCache extends Events {
	constructor(vault) { super(); this._vault = vault; }
	/** Obsidian's rule: an exact path (with or without .md) first, else the shortest path whose
	 * file name matches; null when none does. */
	getFirstLinkpathDest(linkpath) {
		const files = this._vault.getFiles();
		const wanted = linkpath.toLowerCase();
		const exact = files.find((f) => f.path.toLowerCase() === wanted || f.path.toLowerCase() === `${wanted}.md`);
		if (exact) return exact;
		const named = files.filter((f) => f.basename.toLowerCase() === wanted.split("/").pop());
		named.sort((a, b) => a.path.length - b.path.length);
		return named[0] || null;
	}
}

class WorkspaceLeaf extends Events {
	constructor(workspace, side) {
		super();
		this.workspace = workspace;
		this.containerEl = document.createElement("div");
		this.containerEl.className = "workspace-leaf";
		(side === "right" ? workspace.rightSplitEl : workspace.rootSplitEl).appendChild(this.containerEl);
		this.view = null;
	}
	getViewState() { return { type: this.view ? this.view.getViewType() : "empty" }; }
	async setViewState(state) {
		const factory = this.workspace._viewFactories[state.type];
		if (!factory) throw new Error(`no view registered for ${state.type}`);
		if (this.view) { await this.view.onClose(); this.view.unload(); this.containerEl.empty(); }
		this.view = factory(this);
		this.containerEl.appendChild(this.view.containerEl);
		this.view.load();
		await this.view.onOpen();
		this.containerEl.setAttribute("data-type", state.type);
	}
	detach() { if (this.view) { this.view.onClose(); this.view.unload(); } this.containerEl.remove(); this.workspace._leaves = this.workspace._leaves.filter((l) => l !== this); }
}

class Workspace extends Events {
	constructor(app) {
		super();
		this.app = app;
		this.rootSplitEl = document.getElementById("workspace-root");
		this.rightSplitEl = document.getElementById("workspace-right");
		this._leaves = [];
		this._viewFactories = {};
		this._active = null;
		this._selection = "";
		this.opened = []; // every openLinkText, for the test to read
		const workspace = this;
		this.activeEditor = { get editor() { return { getSelection: () => workspace._selection }; } };
	}
	getActiveFile() { return this._active; }
	getLeavesOfType(type) { return this._leaves.filter((l) => l.view && l.view.getViewType() === type); }
	getRightLeaf(split) { const leaf = new WorkspaceLeaf(this, "right"); this._leaves.push(leaf); return leaf; }
	getLeaf() { const leaf = new WorkspaceLeaf(this, "root"); this._leaves.push(leaf); return leaf; }
	async revealLeaf(leaf) { leaf.containerEl.scrollIntoView(); }
	onLayoutReady(callback) { window.setTimeout(callback, 0); }
	/** Opens the note a link names (its subpath: the heading), as a click on a link would. */
	async openLinkText(linktext, sourcePath, newLeaf) {
		const [path, ...rest] = linktext.split("#");
		const file = this.app.metadataCache.getFirstLinkpathDest(path, sourcePath);
		const subpath = rest.length ? `#${rest.join("#")}` : "";
		this.opened.push({ linktext, path: file ? file.path : null, subpath });
		if (!file) return; // Obsidian would offer to create it; the stand-in records the miss
		this.openFile(file.path, "");
	}
	openFile(path, selection) {
		this._active = this.app.vault.getAbstractFileByPath(path);
		this._selection = selection || "";
		document.getElementById("active-note").textContent = path;
		this.trigger("file-open", this._active);
		this.trigger("active-leaf-change", null);
	}
}

class App {
	constructor(base, paths) {
		this.vault = new Vault(base, paths);
		this.metadataCache = new MetadataCache(this.vault);
		this.workspace = new Workspace(this);
	}
}

// -- Views, modals, notices, settings -------------------------------------------------------
class View extends Component {
	constructor(leaf) {
		super();
		this.leaf = leaf;
		this.app = leaf.workspace.app;
		this.containerEl = document.createElement("div");
		this.containerEl.className = "view-container";
		this.containerEl.createDiv({ cls: "view-header" });
		this.contentEl = this.containerEl.createDiv({ cls: "view-content" });
	}
	getIcon() { return ""; }
	async onOpen() {}
	async onClose() {}
}
class ItemView extends View {}

class Modal {
	constructor(app) {
		this.app = app;
		this.containerEl = document.createElement("div");
		this.containerEl.className = "modal-container";
		this.modalEl = this.containerEl.createDiv({ cls: "modal" });
		this.titleEl = this.modalEl.createDiv({ cls: "modal-title" });
		this.contentEl = this.modalEl.createDiv({ cls: "modal-content" });
	}
	setTitle(title) { this.titleEl.textContent = title; return this; }
	open() { document.body.appendChild(this.containerEl); this.onOpen(); }
	close() { this.containerEl.remove(); this.onClose(); }
	onOpen() {}
	onClose() {}
}

const notices = [];
class Notice {
	constructor(message, duration) {
		this.noticeEl = document.createElement("div");
		this.noticeEl.className = "notice";
		this.noticeEl.textContent = String(message);
		document.getElementById("notices").appendChild(this.noticeEl);
		notices.push(String(message));
	}
	hide() { this.noticeEl.remove(); }
}

class Setting {
	constructor(containerEl) { this.settingEl = containerEl.createDiv({ cls: "setting-item" }); this.nameEl = this.settingEl.createDiv({ cls: "setting-item-name" }); this.descEl = this.settingEl.createDiv({ cls: "setting-item-description" }); this.controlEl = this.settingEl.createDiv({ cls: "setting-item-control" }); }
	setName(name) { this.nameEl.textContent = name; return this; }
	setDesc(desc) { this.descEl.textContent = desc; return this; }
	addText(build) {
		const input = this.controlEl.createEl("input", { type: "text" });
		const text = { inputEl: input, setValue(v) { input.value = v; return text; }, getValue: () => input.value, onChange(cb) { input.addEventListener("input", () => cb(input.value)); return text; }, setPlaceholder(p) { input.placeholder = p; return text; } };
		build(text);
		return this;
	}
	addDropdown(build) {
		const select = this.controlEl.createEl("select");
		const dropdown = { selectEl: select, addOption(v, d) { const o = select.createEl("option", { text: d }); o.value = v; return dropdown; }, setValue(v) { select.value = v; return dropdown; }, getValue: () => select.value, onChange(cb) { select.addEventListener("change", () => cb(select.value)); return dropdown; } };
		build(dropdown);
		return this;
	}
}
Setting.prototype.addToggle = function (build) {
	const input = this.controlEl.createEl("input", { type: "checkbox", cls: "checkbox-container" });
	const toggle = { toggleEl: input, setValue(v) { input.checked = !!v; return toggle; }, getValue: () => input.checked, onChange(cb) { input.addEventListener("change", () => cb(input.checked)); return toggle; } };
	build(toggle);
	return this;
};
Setting.prototype.addButton = function (build) {
	const el = this.controlEl.createEl("button");
	const button = { buttonEl: el, setButtonText(t) { el.textContent = t; return button; }, setCta() { el.classList.add("mod-cta"); return button; }, onClick(cb) { el.addEventListener("click", cb); return button; } };
	build(button);
	return this;
};
class PluginSettingTab { constructor(app, plugin) { this.app = app; this.plugin = plugin; this.containerEl = document.createElement("div"); } display() {} hide() {} }

class Plugin extends Component {
	constructor(app, manifest) { super(); this.app = app; this.manifest = manifest; this._data = window.__harnessConfig.data || null; this.commands = {}; this.settingTabs = []; }
	async loadData() { return this._data; }
	async saveData(data) { this._data = JSON.parse(JSON.stringify(data)); }
	registerView(type, factory) { this.app.workspace._viewFactories[type] = factory; }
	addRibbonIcon(icon, title, callback) { const el = document.getElementById("ribbon").createDiv({ cls: "side-dock-ribbon-action", attr: { "aria-label": title, "data-icon": icon } }); el.addEventListener("click", callback); return el; }
	addCommand(command) { this.commands[`${this.manifest.id}:${command.id}`] = command; return command; }
	addSettingTab(tab) { this.settingTabs.push(tab); }
	addStatusBarItem() { return document.getElementById("status-bar").createDiv({ cls: "status-bar-item" }); }
}

// -- requestUrl, the renderer, the platform --------------------------------------------------
/** What Obsidian's main process does for the page, done by the harness's server. */
async function harnessCall(path, params) {
	const response = await fetch(path, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(params) });
	return response.json();
}
window.harnessCall = harnessCall;

/** Performed outside the page (no CORS, no cookies), as Obsidian's requestUrl is; throws on a
 * status of 400 or more unless `throw: false`. */
async function requestUrl(request) {
	const params = typeof request === "string" ? { url: request } : request;
	const headers = { ...(params.headers || {}) };
	if (params.contentType) headers["Content-Type"] = params.contentType;
	const answer = await harnessCall("/__request", { url: params.url, method: params.method || "GET", headers, body: params.body || "" });
	if (answer.error) throw new Error(answer.error); // no answer at all: requestUrl rejects, whatever `throw` says
	let json = null;
	try { json = JSON.parse(answer.text); } catch (e) { json = null; }
	const response = { status: answer.status, headers: answer.headers, text: answer.text, json, arrayBuffer: new TextEncoder().encode(answer.text).buffer };
	if (answer.status >= 400 && params.throw !== false) { const error = new Error(`Request failed, status ${answer.status}`); error.status = answer.status; throw error; }
	return response;
}

/** A small markdown renderer: paragraphs, headings, list items, `code`, **bold** and
 * [[wikilinks]] (as Obsidian's `a.internal-link` with data-href). Everything is set as text:
 * Obsidian's own renderer sanitises raw HTML; this one never interprets it. */
const MarkdownRenderer = {
	async render(app, markdown, el, sourcePath, component) {
		for (const block of markdown.split(/\n{2,}/)) {
			const heading = block.match(/^(#{1,6})\s+(.*)$/);
			const target = heading ? el.createEl(`h${heading[1].length}`) : el.createEl("p");
			renderInline(heading ? heading[2] : block, target);
		}
	},
};
function renderInline(text, target) {
	const pattern = /\[\[([^\]|]+)(?:\|([^\]]+))?\]\]|`([^`]+)`|\*\*([^*]+)\*\*/g;
	let last = 0;
	for (const match of text.matchAll(pattern)) {
		if (match.index > last) target.appendChild(document.createTextNode(text.slice(last, match.index)));
		if (match[1]) target.createEl("a", { cls: "internal-link", text: match[2] || match[1], attr: { "data-href": match[1], href: match[1] } });
		else if (match[3]) target.createEl("code", { text: match[3] });
		else target.createEl("strong", { text: match[4] });
		last = match.index + match[0].length;
	}
	if (last < text.length) target.appendChild(document.createTextNode(text.slice(last)));
}

const Platform = { isDesktop: true, isDesktopApp: true, isMobile: false, isMobileApp: false };
function getLanguage() { return window.__harnessConfig.language || "en"; }

window.obsidianStandIn = {
	App, Component, Events, FileSystemAdapter, ItemView, MarkdownRenderer, Modal, Notice, Platform,
	Plugin, PluginSettingTab, Setting, TAbstractFile, TFile, View, Vault, Workspace, WorkspaceLeaf,
	getLanguage, requestUrl, notices,
};
