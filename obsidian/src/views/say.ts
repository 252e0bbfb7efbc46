import type { StringKey } from "../logic";

/** The plugin's words in the user's language (strings.ts). */
export type Say = (key: StringKey, fill?: Record<string, string | number>) => string;
