// Unit tests of the open reports (src/open_reports.ts, bundled into build/logic.mjs): which
// files count, the dwell that debounces flicking through notes, and what waits when sending fails.
import { test } from "node:test";
import assert from "node:assert/strict";
import { isReportable, MAX_WAITING_OPENS, OPEN_DWELL_MS, OpenReporter } from "../build/logic.mjs";

/** Timers the test advances by hand, and a clock they share. */
function fakeTime() {
	let now = 1_000_000;
	let next = 1;
	const due = new Map();
	return {
		now: () => now,
		timers: {
			setTimeout(handler, ms) {
				due.set(next, { at: now + ms, handler });
				return next++;
			},
			clearTimeout(id) {
				due.delete(id);
			},
		},
		async advance(ms) {
			now += ms;
			for (const [id, timer] of [...due].sort((a, b) => a[1].at - b[1].at)) {
				if (timer.at > now) continue;
				due.delete(id);
				timer.handler();
			}
			await new Promise((resolve) => setImmediate(resolve));
		},
		waiting: () => due.size,
	};
}

function reporter(time, fail = () => false) {
	const sent = [];
	const send = async (opens) => {
		if (fail()) throw new Error("server gone");
		sent.push(opens);
	};
	return { sent, reporter: new OpenReporter(send, time.timers, time.now) };
}

test("only markdown notes outside the configuration folder are reported", () => {
	assert.equal(isReportable({ path: "Notes/Plan.md", extension: "md" }, ".obsidian"), true);
	assert.equal(isReportable({ path: "Plan.MD", extension: "MD" }, ".obsidian"), true);
	assert.equal(isReportable(null, ".obsidian"), false);
	assert.equal(isReportable({ path: "photo.png", extension: "png" }, ".obsidian"), false);
	assert.equal(isReportable({ path: "board.canvas", extension: "canvas" }, ".obsidian"), false);
	assert.equal(isReportable({ path: ".obsidian/snippets.md", extension: "md" }, ".obsidian"), false);
	assert.equal(isReportable({ path: "config/x.md", extension: "md" }, "config"), false);
	assert.equal(isReportable({ path: "Notes/.hidden/x.md", extension: "md" }, ".obsidian"), false);
	assert.equal(isReportable({ path: "", extension: "md" }, ".obsidian"), false);
});

test("an open is reported once the note stayed open, with the time it was opened", async () => {
	const time = fakeTime();
	const { sent, reporter: opens } = reporter(time);
	const openedAt = time.now();
	opens.opened("A.md");
	await time.advance(OPEN_DWELL_MS - 1);
	assert.deepEqual(sent, []);
	await time.advance(1);
	assert.deepEqual(sent, [[{ path: "A.md", at: openedAt }]]);
});

test("flicking through notes reports only the one stayed on", async () => {
	const time = fakeTime();
	const { sent, reporter: opens } = reporter(time);
	for (const path of ["A.md", "B.md", "C.md"]) {
		opens.opened(path);
		await time.advance(300);
	}
	const stayed = time.now() - 300;
	await time.advance(OPEN_DWELL_MS - 301); // C has been open 1 ms short of the dwell
	assert.deepEqual(sent, []);
	await time.advance(1);
	assert.deepEqual(sent, [[{ path: "C.md", at: stayed }]]);
	assert.equal(time.waiting(), 0);
});

test("closing the note (or opening a file that is not reported) before the dwell reports nothing", async () => {
	const time = fakeTime();
	const { sent, reporter: opens } = reporter(time);
	opens.opened("A.md");
	await time.advance(500);
	opens.opened(null);
	await time.advance(OPEN_DWELL_MS * 2);
	opens.opened("B.md");
	opens.cancel();
	await time.advance(OPEN_DWELL_MS * 2);
	assert.deepEqual(sent, []);
});

test("opens that could not be sent go with the next report, the newest kept", async () => {
	const time = fakeTime();
	let down = true;
	const { sent, reporter: opens } = reporter(time, () => down);
	for (let i = 0; i < MAX_WAITING_OPENS + 5; i++) {
		opens.opened(`N${i}.md`);
		await time.advance(OPEN_DWELL_MS);
	}
	assert.deepEqual(sent, []);
	const waiting = opens.pending();
	assert.equal(waiting.length, MAX_WAITING_OPENS);
	assert.equal(waiting[0].path, "N5.md");
	assert.equal(waiting.at(-1).path, `N${MAX_WAITING_OPENS + 4}.md`);
	down = false;
	opens.opened("Last.md");
	await time.advance(OPEN_DWELL_MS);
	assert.equal(sent.length, 1);
	assert.equal(sent[0].length, MAX_WAITING_OPENS);
	assert.equal(sent[0].at(-1).path, "Last.md");
	assert.deepEqual(opens.pending(), []);
});
