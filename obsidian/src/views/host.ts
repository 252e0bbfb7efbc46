import type { VaultctxClient } from "../client";
import type { Say } from "./say";

/** What the views need from the plugin: its words, settings and the connected client. */
export interface Host {
	say: Say;
	/** The reasoning effort in force, sent with each question ("" for the settings' own). */
	effort(): string;
	/** The client, connecting first; null (after a Notice) when vaultctx cannot be reached. */
	client(): Promise<VaultctxClient | null>;
	refreshStatus(): void;
	/** Show the saved conversations beside the chat. */
	openConversations(): Promise<void>;
	/** Open the chat view on a saved conversation, to go on with it. */
	resume(id: string): Promise<void>;
}
