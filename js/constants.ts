// The constants Rust decides, written in by the build from the Rust items
// themselves (examples/ts_lists.rs), as the version is from package.json:
// reading them calls nothing in the wasm, so loading the package compiles
// none of it.
import type { MessageFormat } from "./wasm.js";

declare const __KRAM_COMPACTION_MARKER_NAME__: string;
declare const __KRAM_MESSAGE_FORMATS__: MessageFormat[];
declare const __KRAM_DEFAULT_MAX_TOKENS__: number;

export const compactionMarkerName: string = __KRAM_COMPACTION_MARKER_NAME__;
export const messageFormats: readonly MessageFormat[] = Object.freeze(__KRAM_MESSAGE_FORMATS__);
export const defaultMaxTokens: number = __KRAM_DEFAULT_MAX_TOKENS__;
