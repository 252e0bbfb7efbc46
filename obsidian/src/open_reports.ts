// Which notes the user opens, reported to vaultctx for its review queue (a note read lately is
// not one to read again). Only a markdown note's vault path and the time go: never its text.
// An open counts once the note has stayed open OPEN_DWELL_MS (flicking through notes reports
// only where the user stopped); reports that cannot be sent wait, at most MAX_WAITING_OPENS,
// for the next one. Free of Obsidian's API so node's test runner can check it.
import type { Timers } from "./logic";

export interface NoteOpen {
	path: string;
	/** When it was opened, in milliseconds since the epoch (Date.now()). */
	at: number;
}

/** What `file-open` hands over: a TFile, or null when the last pane closed. */
export interface OpenedFile {
	path: string;
	extension: string;
}

export const OPEN_DWELL_MS = 2_000;
export const MAX_WAITING_OPENS = 50; // the server takes at most 50 in one report

/** A markdown note of the vault, outside its configuration folder (`.obsidian`, or the one the
 * user chose); the server checks again. */
export function isReportable(file: OpenedFile | null, configDir: string): file is OpenedFile {
	if (!file || file.extension.toLowerCase() !== "md" || file.path.length === 0) return false;
	const parts = file.path.split("/");
	return parts[0] !== configDir && !parts.some((part) => part.startsWith("."));
}

export class OpenReporter {
	private candidate: NoteOpen | null = null;
	private timer: number | null = null;
	private waiting: NoteOpen[] = [];
	private sending = false;

	constructor(
		private readonly send: (opens: NoteOpen[]) => Promise<void>,
		private readonly timers: Timers,
		private readonly now: () => number = Date.now,
		private readonly dwellMs: number = OPEN_DWELL_MS,
	) {}

	/** A note was opened (or `null`: none is open now); a later open before the dwell ends
	 * replaces it. */
	opened(path: string | null): void {
		if (this.timer !== null) this.timers.clearTimeout(this.timer);
		this.timer = null;
		this.candidate = path ? { path, at: this.now() } : null;
		if (!this.candidate) return;
		this.timer = this.timers.setTimeout(() => {
			this.timer = null;
			if (this.candidate) this.keep(this.candidate);
			this.candidate = null;
			void this.flush();
		}, this.dwellMs);
	}

	/** Send what waits; on failure it waits for the next open (the newest kept). */
	async flush(): Promise<void> {
		if (this.sending || this.waiting.length === 0) return;
		const batch = this.waiting;
		this.waiting = [];
		this.sending = true;
		let sent = false;
		try {
			await this.send(batch);
			sent = true;
		} catch {
			for (const open of batch.reverse()) this.keep(open, true);
		} finally {
			this.sending = false;
		}
		if (sent) await this.flush(); // what was opened meanwhile
	}

	/** The opens not yet sent, oldest first (for the tests and for unload). */
	pending(): NoteOpen[] {
		return [...this.waiting];
	}

	/** Stop waiting: an open still in its dwell is dropped (the note was not stayed on). */
	cancel(): void {
		if (this.timer !== null) this.timers.clearTimeout(this.timer);
		this.timer = null;
		this.candidate = null;
	}

	private keep(open: NoteOpen, older = false): void {
		if (older) this.waiting.unshift(open);
		else this.waiting.push(open);
		if (this.waiting.length > MAX_WAITING_OPENS) this.waiting = this.waiting.slice(-MAX_WAITING_OPENS);
	}
}
