// The public surface of kram-compaction. To add a module: write js/NAME.ts and
// add its export line here; the build and the published types pick it up.
import * as wasm from "./wasm.js";
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

/** The estimated tokens of what the model sees of `messages`: the sum of each message's estimate as it stands there (reasoning the provider no longer renders counts 0). */
export const estimateTokens = wasm.estimateTokens as unknown as ReadMessages<[options?: FormatOptions], number>;

/** Whether the estimate of `effective` is over `maxTokens` (default 60,000). */
export const needsCompaction = wasm.needsCompaction as unknown as ReadMessages<
  [maxTokens?: number, options?: FormatOptions],
  boolean
>;

/** The leading system messages, then everything from the newest compaction marker on; the whole history when there is no marker. */
export const effectiveHistory = wasm.effectiveHistory as unknown as SameMessages<[options?: FormatOptions]>;

/** What the history functions read each message as: the format, and per message its role, turn start, marker, estimate and content. */
export const describeMessages = wasm.describeMessages as unknown as ReadMessages<
  [options?: FormatOptions],
  HistoryDescription
>;

/** The cheap first pass: old tool results' payloads become a placeholder, keeping the newest turns (or, over `maxTokens`, the newest step) and tool output whole. */
export const pruneForModel = wasm.pruneForModel as unknown as SameMessages<[options?: PruneOptions]>;

/** The fallback when summarising fails: the leading system messages and the newest whole user turns that fit in `maxTokens`, or the newest turn's request and newest steps. */
export const emergencyPrune = wasm.emergencyPrune as unknown as SameMessages<
  [maxTokens?: number, options?: FormatOptions]
>;

export { HistoryMemo } from "./memo.js";

/**
 * The `name` that tags an OpenAI Chat system message as a compaction summary;
 * the other formats open the summary's text with the tag `<kram:compaction_summary>`.
 */
export const COMPACTION_MARKER_NAME: string = wasm.compactionMarkerName();

/** Every message format the package reads, in the order detection prefers them when a history fits several. */
export const MESSAGE_FORMATS: readonly MessageFormat[] = Object.freeze(wasm.messageFormats() as MessageFormat[]);

/** The token budget the history functions use when none is given. */
export const DEFAULT_MAX_TOKENS: number = wasm.defaultMaxTokens();

export { requestReady } from "./request.js";

export { compact } from "./compact.js";
export type { AbortSignalLike, CompactOptions, Gateway, GatewayReply, GatewaySignal, SummaryRequest } from "./compact.js";
export { CompactionError, GatewayHttpError } from "./errors.js";
export { anthropicGateway, openAIChatGateway } from "./gateways.js";
export type { AnthropicGatewayOptions, Fetch, OpenAIChatGatewayOptions } from "./gateways.js";

export { ContextManager } from "./context-manager.js";
export type { ContextManagerOptions, LastUsage, Prepared, Tier } from "./context-manager.js";

export { readStoredHistory, StoredHistoryError } from "./stored-history.js";
export type { StoredHistory } from "./stored-history.js";

export { VERSION } from "./version.js";
