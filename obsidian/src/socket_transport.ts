// HTTP over the engine's Unix socket (Node's http.request with socketPath: desktop Obsidian
// gives plugins Node's modules). No token: the engine asks the kernel who connects and serves
// this user only. No Origin either, as the plugin routes refuse web pages. Free of Obsidian's
// API, so a node script drives this very code against a real engine in the tests.
import type { Reply, SocketConnection } from "./logic";

const MAX_REPLY_BYTES = 64 * 1024 * 1024;
// Silence this long ends the call: a long poll answers within 10 s, a search within seconds.
const SILENCE_MS = 180_000;

/** POST one action to this vault's routes on the engine's socket. A socket that is gone
 * (ENOENT, ECONNREFUSED) rejects, which is how the client knows to connect again. */
export function postOverSocket(connection: SocketConnection, action: string, body: Record<string, unknown>): Promise<Reply> {
	// Required here, not at load: Obsidian's loader provides Node's modules to desktop plugins
	// through require(), as connection.ts uses child_process.
	const { request } = require("http") as typeof import("http");
	const payload = new TextEncoder().encode(JSON.stringify(body));
	return new Promise<Reply>((resolve, reject) => {
		const call = request(
			{
				socketPath: connection.socket,
				path: `${connection.base}/vaultctx/obsidian/${action}`,
				method: "POST",
				headers: { "Content-Type": "application/json", "Content-Length": payload.byteLength },
			},
			(response) => {
				const chunks: Uint8Array[] = [];
				let size = 0;
				response.on("data", (chunk: Uint8Array) => {
					size += chunk.byteLength;
					if (size > MAX_REPLY_BYTES) call.destroy(new Error(`the vaultctx engine answered more than ${MAX_REPLY_BYTES} bytes`));
					else chunks.push(chunk);
				});
				response.on("end", () => resolve({ status: response.statusCode ?? 0, json: parsed(chunks) }));
				response.on("error", reject);
			},
		);
		call.setTimeout(SILENCE_MS, () => call.destroy(new Error("the vaultctx engine stopped answering")));
		call.on("error", reject);
		call.end(payload);
	});
}

function parsed(chunks: Uint8Array[]): unknown {
	const bytes = new Uint8Array(chunks.reduce((n, c) => n + c.byteLength, 0));
	let at = 0;
	for (const chunk of chunks) {
		bytes.set(chunk, at);
		at += chunk.byteLength;
	}
	try {
		return JSON.parse(new TextDecoder().decode(bytes)) as unknown;
	} catch {
		return {};
	}
}
