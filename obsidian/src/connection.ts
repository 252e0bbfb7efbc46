// Finds the vaultctx server for this vault the way the user would: by running
// `vaultctx obsidian connect`, which prints the running server's address and token (starting
// `vaultctx ui` when none runs). The token stays in memory; nothing is written to data.json.
import { Platform } from "obsidian";
import { parseConnection, type Connection } from "./logic";

export class MissingExecutable extends Error {}

export async function connect(executable: string, vault: string): Promise<Connection> {
	if (!Platform.isDesktop) throw new Error("vaultctx runs on desktop only");
	// Obsidian's loader provides Node's modules to desktop plugins through require().
	const { execFile } = require("child_process") as typeof import("child_process");
	const stdout = await new Promise<string>((resolve, reject) => {
		execFile(executable, ["obsidian", "connect", "--vault", vault], { timeout: 120_000, windowsHide: true, encoding: "utf8" }, (error, out, err) => {
			if (error) {
				const message = err.trim().split("\n").pop() || error.message;
				reject(error.code === "ENOENT" ? new MissingExecutable(executable) : new Error(message));
				return;
			}
			resolve(out);
		});
	});
	return parseConnection(stdout);
}
