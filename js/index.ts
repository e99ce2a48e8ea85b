// The public surface of kram-compaction. To add a module: write js/NAME.ts and
// add its export line here; the build and the published types pick it up.
// Each export's JSDoc here is its one doc, with its example: it is what the
// published .d.ts shows, and the README's example of each function is checked
// against it (tests/js/one-source.test.mjs). The Rust bindings point here.
import * as wasm from "./wasm.js";
import { compactionMarkerName, defaultMaxTokens, messageFormats } from "./constants.js";
import type { FormatOptions, HistoryDescription, Message, MessageFormat, PruneOptions } from "./wasm.js";

export type {
  Message,
  MessageFormat,
  ChatMessage,
  ChatToolCall,
  ChatContentPart,
  AiSdkMessage,
  AiSdkPart,
  AiSdkToolResultOutput,
  AiSdk4Message,
  AiSdk4Part,
  AnthropicMessage,
  AnthropicBlock,
  ResponsesItem,
  ResponsesPart,
  GeminiContent,
  GeminiPart,
  LangChainMessage,
  LangChainSerializedMessage,
  LangChainMessageInstance,
  LangChainMessageFields,
  LangChainContentBlock,
  LangChainToolCall,
  OllamaMessage,
  AiSdkUiMessage,
  CompactionMarker,
  CompactionMarkers,
  MarkerByShape,
  ChatCompactionMarker,
  UserTextCompactionMarker,
  ResponsesCompactionMarker,
  GeminiCompactionMarker,
  OllamaCompactionMarker,
  UiCompactionMarker,
  AiSdkUiPart,
  FormatOptions,
  PruneOptions,
  SummaryOptions,
  SummaryRequest,
  GatewayReply,
  MessageBlock,
  MessageInfo,
  HistoryDescription,
} from "./wasm.js";

/**
 * The history functions take the caller's own message type (an SDK's, or one
 * of the package's) and those that return messages give it back: an
 * `AnthropicMessage[]` in, an `AnthropicMessage[]` out.
 */
type SameMessages<Rest extends unknown[]> = <M extends Message>(messages: readonly M[], ...rest: Rest) => M[];
type ReadMessages<Rest extends unknown[], R> = <M extends Message>(messages: readonly M[], ...rest: Rest) => R;

/**
 * The estimated tokens of what the model sees of `messages`: the sum of each
 * message's estimate as it stands there (reasoning the provider no longer
 * renders counts 0).
 *
 * @example
 * ```js
 * const tokens = estimateTokens([{ role: "user", content: "Fix the failing test in src/lib.rs" }]);
 * ```
 */
export const estimateTokens = wasm.estimateTokens as unknown as ReadMessages<[options?: FormatOptions], number>;

/**
 * Whether the estimate of `effective` is over `maxTokens` (default
 * `DEFAULT_MAX_TOKENS`). Read newest first: once the newest messages are
 * over the budget, the older ones are left unread.
 *
 * @example
 * ```js
 * if (needsCompaction(effectiveHistory(all), 128_000)) {
 *   // prune, then compact if still over
 * }
 * ```
 */
export const needsCompaction = wasm.needsCompaction as unknown as ReadMessages<
  [maxTokens?: number, options?: FormatOptions],
  boolean
>;

/**
 * The leading system messages, then everything from the newest compaction
 * marker on; the whole history when there is no marker.
 *
 * @example
 * ```js
 * const effective = effectiveHistory(storedMessages);
 * ```
 */
export const effectiveHistory = wasm.effectiveHistory as unknown as SameMessages<[options?: FormatOptions]>;

/**
 * What the history functions read each message as: the format, and per
 * message its role, turn start, marker, estimate and content.
 *
 * @example
 * ```js
 * const { format, messages } = describeMessages(history);
 * const userTurns = messages.filter((m) => m.startsUserTurn).length;
 * ```
 */
export const describeMessages = wasm.describeMessages as unknown as ReadMessages<
  [options?: FormatOptions],
  HistoryDescription
>;

/**
 * The cheap first pass: old tool results' payloads become a placeholder,
 * keeping the newest turns (or, over `maxTokens`, the newest step) and tool
 * output whole.
 *
 * @example
 * ```js
 * const forModel = pruneForModel(effective, { protectTurns: 2, protectTokens: 40_000, minimumSavings: 20_000, maxTokens: 100_000 });
 * ```
 */
export const pruneForModel = wasm.pruneForModel as unknown as SameMessages<[options?: PruneOptions]>;

/**
 * The fallback when summarising fails: the leading system messages and the
 * newest whole user turns that fit in `maxTokens`, or the newest turn's
 * request and newest steps.
 *
 * @example
 * ```js
 * const forModel = emergencyPrune(effective, 60_000);
 * ```
 */
export const emergencyPrune = wasm.emergencyPrune as unknown as SameMessages<
  [maxTokens?: number, options?: FormatOptions]
>;

export { HistoryMemo } from "./memo.js";

/**
 * The `name` that tags an OpenAI Chat system message as a compaction summary;
 * the other formats open the summary's text with the tag `<kram:compaction_summary>`.
 */
export const COMPACTION_MARKER_NAME: string = compactionMarkerName;

/** Every message format the package reads, in the order detection prefers them when a history fits several. */
export const MESSAGE_FORMATS: readonly MessageFormat[] = messageFormats;

/** The token budget the history functions use when none is given. */
export const DEFAULT_MAX_TOKENS: number = defaultMaxTokens;

export { requestReady } from "./request.js";

export { compact } from "./compact.js";
export type { AbortSignalLike, CompactOptions, Gateway, GatewaySignal } from "./compact.js";
export { CompactionError, GatewayHttpError } from "./errors.js";
export { anthropicGateway, openAIChatGateway } from "./gateways.js";
export type { AnthropicGatewayOptions, Fetch, OpenAIChatGatewayOptions } from "./gateways.js";

export { ContextManager } from "./context-manager.js";
export type { ContextManagerOptions, LastUsage, Prepared, Tier } from "./context-manager.js";

export { readStoredHistory, StoredHistoryError } from "./stored-history.js";
export type { StoredHistory } from "./stored-history.js";

export { VERSION } from "./version.js";
