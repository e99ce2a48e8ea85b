// The public surface of kram-compaction. To add a module: write js/NAME.ts and
// add its export line here; the build and the published types pick it up.
import * as wasm from "./wasm.js";

export {
  estimateTokens,
  needsCompaction,
  effectiveHistory,
  pruneForModel,
  emergencyPrune,
  describeMessages,
} from "./wasm.js";
export type {
  Message,
  MessageFormat,
  ChatMessage,
  ChatToolCall,
  ChatContentPart,
  FormatOptions,
  PruneOptions,
  MessageBlock,
  MessageInfo,
  HistoryDescription,
} from "./wasm.js";

/** The `name` that tags a system message as a compaction summary. */
export const COMPACTION_MARKER_NAME: string = wasm.compactionMarkerName();

/** The token budget the history functions use when none is given. */
export const DEFAULT_MAX_TOKENS: number = wasm.defaultMaxTokens();

export { VERSION } from "./version.js";
