//! The TypeScript types of the exports' arguments. They are declared here, once,
//! beside the code that reads them; wasm-bindgen writes them into the `.d.ts`.
//! A `{{name}}` is a list or default that Rust decides: `scripts/build.mjs`
//! fills it from `examples/ts_lists.rs`, which reads it from the Rust item
//! itself (`ALL_FORMATS`, `PruneOptions::default()`, ...), so no list or
//! default is written twice.

use wasm_bindgen::prelude::*;

#[wasm_bindgen(typescript_custom_section)]
const MESSAGE_TYPES: &'static str = r#"
/** The formats a history can be in; found from the history, or forced. */
export type MessageFormat = {{MessageFormat}};

/** The tier `ContextManager.prepare` ended at, cheapest first (src/ladder.rs). */
export type Tier = {{Tier}};

// The message types name the fields the package reads and leave the rest
// open: no index signatures, so the SDKs' own interfaces (the AI SDK's
// ModelMessage, Anthropic's MessageParam, OpenAI's message and input item
// params) are accepted as they are, unknown fields and all.

/** A tool call of an OpenAI Chat Completions assistant message. */
export interface ChatToolCall {
  id: string;
  type: "function" | (string & {});
  function?: { name?: string; arguments?: string };
}

/** A content part of an OpenAI Chat Completions message. */
export type ChatContentPart =
  | { type: "text"; text: string }
  | { type: "image_url"; image_url: { url: string; detail?: "auto" | "low" | "high" } }
  | { type: "input_audio"; input_audio: { data: string; format: string } }
  | { type: "file"; file: object }
  | { type: "refusal"; refusal: string };

/**
 * An OpenAI Chat Completions message as agent loops store it. Unknown roles
 * (such as "developer") are read as system-like. Fields the package does not
 * know (reasoning_content, cache_control, ...) are kept as they are.
 */
export interface ChatMessage {
  role: "system" | "user" | "assistant" | "tool" | (string & {});
  content?: string | null | readonly ChatContentPart[];
  name?: string;
  tool_calls?: readonly ChatToolCall[];
  tool_call_id?: string;
}

/** The `output` of an AI SDK tool result. */
export type AiSdkToolResultOutput =
  | { type: "text" | "error-text"; value: string }
  | { type: "json" | "error-json"; value: unknown }
  | { type: "content"; value: readonly { type: string; text?: string; data?: string; mediaType?: string; url?: string }[] }
  | { type: "execution-denied"; reason?: string };

/** A content part of an AI SDK message. */
export type AiSdkPart =
  | { type: "text" | "reasoning"; text: string; providerOptions?: object }
  | { type: "image"; image: unknown; mediaType?: string }
  | { type: "file"; data: unknown; mediaType: string; filename?: string }
  | { type: "tool-call"; toolCallId: string; toolName: string; input: unknown }
  | { type: "tool-result"; toolCallId: string; toolName: string; output: AiSdkToolResultOutput }
  | { type: "tool-approval-request" | "tool-approval-response" | "reasoning-file" | "custom" };

/**
 * An AI SDK `ModelMessage` (v5 and v6). Tool results are `tool-result` parts
 * of `role: "tool"` messages; pruning replaces a part's `output`.
 */
export interface AiSdkMessage {
  role: "system" | "user" | "assistant" | "tool";
  content: string | readonly AiSdkPart[];
  providerOptions?: object;
}

/** A content part of an AI SDK 4 `CoreMessage`. */
export type AiSdk4Part =
  | { type: "text" | "reasoning"; text: string; providerOptions?: object }
  | { type: "redacted-reasoning"; data: string }
  | { type: "image"; image: unknown; mimeType?: string }
  | { type: "file"; data: unknown; mimeType: string; filename?: string }
  | { type: "tool-call"; toolCallId: string; toolName: string; args: unknown }
  | { type: "tool-result"; toolCallId: string; toolName: string; result: unknown; isError?: boolean; experimental_content?: readonly object[] };

/**
 * An AI SDK 4 `CoreMessage`. Tool results are `tool-result` parts of `role:
 * "tool"` messages; pruning replaces a part's `result`.
 */
export interface AiSdk4Message {
  role: "system" | "user" | "assistant" | "tool";
  content: string | readonly AiSdk4Part[];
  providerOptions?: object;
}

/** A content block of an Anthropic message. */
export type AnthropicBlock =
  | { type: "text"; text: string; cache_control?: unknown }
  | { type: "image" | "document"; source: object }
  | { type: "thinking"; thinking: string; signature: string }
  | { type: "redacted_thinking"; data: string }
  | { type: "tool_use"; id: string; name: string; input: unknown }
  | { type: "tool_result"; tool_use_id: string; content?: string | readonly AnthropicBlock[]; is_error?: boolean }
  | { type: string & {} };

/**
 * An Anthropic Messages API message. Tool results are `tool_result` blocks of
 * user messages; pruning replaces a block's `content`.
 */
export interface AnthropicMessage {
  role: "user" | "assistant";
  content: string | readonly AnthropicBlock[];
}

/** A content part of an OpenAI Responses message or function call output. */
export type ResponsesPart =
  | { type: "input_text" | "output_text"; text: string }
  | { type: "refusal"; refusal: string }
  | { type: "input_image"; image_url?: string | null; file_id?: string | null; detail?: string }
  | { type: "input_file"; file_data?: string; file_id?: string | null; file_url?: string; filename?: string }
  | { type: "input_audio"; input_audio?: object }
  | { type: string & {} };

/**
 * An OpenAI Responses input item: a message (with or without
 * `type: "message"`), a `function_call` / `function_call_output` pair joined
 * by `call_id`, a `reasoning` item, or a built-in tool's item. Pruning
 * replaces a call output's `output`.
 */
export type ResponsesItem =
  | {
      type?: "message";
      role: "user" | "assistant" | "system" | "developer";
      content: string | readonly ResponsesPart[];
    }
  | { type: "function_call"; call_id: string; name: string; arguments: string }
  | { type: "function_call_output" | "custom_tool_call_output"; call_id: string; output: string | readonly ResponsesPart[] }
  | { type: "reasoning"; summary?: readonly { type: "summary_text"; text: string }[]; encrypted_content?: string | null }
  | { type?: "item_reference" | null; id: string }
  | { type: string & {} };

/**
 * A part of a Gemini content (`Part` in @google/genai): untyped, holding one
 * of `text` (a thought summary with `thought: true`), `inlineData`,
 * `fileData`, `functionCall`, `functionResponse`, `executableCode`,
 * `codeExecutionResult`, ...; `thoughtSignature` goes back as it came.
 */
export interface GeminiPart {
  text?: string;
  thought?: boolean;
  thoughtSignature?: string;
  inlineData?: { mimeType?: string; data?: string };
  fileData?: { fileUri?: string; mimeType?: string };
  functionCall?: { id?: string; name?: string; args?: Record<string, unknown> };
  functionResponse?: { id?: string; name?: string; response?: Record<string, unknown> };
}

/**
 * A Gemini content (`Content` in @google/genai), an element of `contents`.
 * The system prompt is the request's `systemInstruction`, not a content. Tool
 * results are `functionResponse` parts of user contents; pruning replaces a
 * part's `functionResponse.response`.
 */
export interface GeminiContent {
  role?: "user" | "model" | (string & {});
  parts?: readonly GeminiPart[];
  /** Never there: a message with `content` is of another format. */
  content?: never;
}

/** A content block of a LangChain.js message: text, or any other block (image_url, image, file, a provider's own). */
export type LangChainContentBlock =
  | string
  | { type: "text"; text: string }
  | { type: "image_url"; image_url: string | { url: string; detail?: string } }
  | { type: string & {} };

/** A tool call of a LangChain.js AI message; its `id` pairs it with a ToolMessage's `tool_call_id`. */
export interface LangChainToolCall {
  id?: string;
  name: string;
  args: object;
}

/** The fields the package reads of a LangChain.js message: a serialised one's `kwargs`, or an instance's own. */
export interface LangChainMessageFields {
  content?: string | readonly LangChainContentBlock[];
  tool_calls?: readonly LangChainToolCall[];
  tool_call_id?: string;
}

/** A LangChain.js message as `JSON.stringify` and LangGraph checkpoints store it: the class is `id`'s last name. */
export interface LangChainSerializedMessage {
  lc: number;
  type: "constructor";
  id: readonly string[];
  kwargs: LangChainMessageFields;
}

/**
 * A live instance of a `@langchain/core/messages` class (HumanMessage,
 * AIMessage, ToolMessage, SystemMessage, their chunks): `type` is its role,
 * `lc_kwargs` its constructor's fields. Pruning a ToolMessage builds a new
 * instance of its class holding the placeholder.
 */
export interface LangChainMessageInstance extends LangChainMessageFields {
  readonly type: string;
  lc_kwargs: object;
}

/** A LangChain.js message, serialised or live. */
export type LangChainMessage = LangChainSerializedMessage | LangChainMessageInstance;

/**
 * An Ollama `/api/chat` message (`Message` in the ollama client). Tool calls
 * have no id: the tool messages right after an assistant message answer its
 * calls in order. Pruning replaces a tool message's `content`.
 */
export interface OllamaMessage {
  role: "system" | "user" | "assistant" | "tool" | (string & {});
  content: string;
  thinking?: string;
  images?: readonly (string | Uint8Array)[];
  tool_calls?: readonly { function: { name: string; arguments: object } }[];
  tool_name?: string;
}

/**
 * A part of an AI SDK `UIMessage`. A tool part (`tool-NAME` or
 * `dynamic-tool`) holds a call and, once its state says so, its result.
 */
export type AiSdkUiPart =
  | { type: "text" | "reasoning"; text: string; state?: "streaming" | "done"; providerMetadata?: object }
  | { type: "file"; mediaType: string; url: string; filename?: string }
  | { type: "step-start" }
  | { type: "source-url"; sourceId: string; url: string; title?: string }
  | { type: "source-document"; sourceId: string; mediaType: string; title: string }
  | { type: `tool-${string}`; toolCallId: string; state: string; input?: unknown; output?: unknown; errorText?: string }
  | { type: "dynamic-tool"; toolName: string; toolCallId: string; state: string; input?: unknown; output?: unknown; errorText?: string }
  | { type: `data-${string}`; id?: string; data: unknown };

/**
 * An AI SDK `UIMessage` (v5 and v6), what `useChat` keeps. Pruning replaces
 * a tool part's `output` (or `errorText`) with the placeholder string.
 */
export interface AiSdkUiMessage {
  id: string;
  role: "system" | "user" | "assistant";
  metadata?: unknown;
  parts: readonly AiSdkUiPart[];
}

/** A message of any supported format. */
export type Message = ChatMessage | AiSdkMessage | AnthropicMessage | ResponsesItem | AiSdk4Message | GeminiContent | LangChainMessage | OllamaMessage | AiSdkUiMessage;

/** The marker `compact` makes of an `openai-chat` history: a named system message. */
export interface ChatCompactionMarker {
  role: "system";
  name: "kram:compaction_summary";
  content: string;
}

/** The marker of an `ai-sdk`, `ai-sdk-4` or `anthropic` history: a user message of one text part. */
export interface UserTextCompactionMarker {
  role: "user";
  content: [{ type: "text"; text: string }];
}

/** The marker of an `openai-responses` history. */
export interface ResponsesCompactionMarker {
  type: "message";
  role: "user";
  content: [{ type: "input_text"; text: string }];
}

/** The marker of a `gemini` history. */
export interface GeminiCompactionMarker {
  role: "user";
  parts: [{ text: string }];
}

/** The marker of an `ollama` history. */
export interface OllamaCompactionMarker {
  role: "user";
  content: string;
}

/** The marker of an `ai-sdk-ui` history, its id made from the summary. */
export interface UiCompactionMarker {
  id: string;
  role: "user";
  parts: [{ type: "text"; text: string }];
}

/** The marker of each format, by the format's name. */
export interface CompactionMarkers<M> {
  "openai-chat": ChatCompactionMarker;
  "ai-sdk": UserTextCompactionMarker;
  anthropic: UserTextCompactionMarker;
  "openai-responses": ResponsesCompactionMarker;
  "ai-sdk-4": UserTextCompactionMarker;
  gemini: GeminiCompactionMarker;
  // An instance of the history's own HumanMessage class, or serialised when it has none.
  langchain: (M extends LangChainMessageInstance ? M : never) | LangChainSerializedMessage;
  ollama: OllamaCompactionMarker;
  "ai-sdk-ui": UiCompactionMarker;
}

/**
 * What `compact` returns for a history of `M` read as format `F` (a literal
 * `options.format`): that format's marker. Without one, every marker a
 * history of `M` can be read as, from the shape of `M`: a plain `{ role,
 * content }` history reads as OpenAI Chat, whose marker is a system message.
 */
export type CompactionMarker<M, F = undefined> = [NonNullable<F>] extends [never]
  ? MarkerByShape<M>
  : MessageFormat extends NonNullable<F>
    ? MarkerByShape<M>
    : CompactionMarkers<M>[NonNullable<F> & MessageFormat];

/** Every marker a history of `M` can be read as, from the shape of `M`. */
export type MarkerByShape<M> = M extends LangChainMessage
  ? CompactionMarkers<M>["langchain"]
  : "parts" extends keyof M
    ? "id" extends keyof M
      ? UiCompactionMarker
      : GeminiCompactionMarker
    : "type" extends keyof M
      ? ResponsesCompactionMarker | ChatCompactionMarker | UserTextCompactionMarker | OllamaCompactionMarker
      : ChatCompactionMarker | UserTextCompactionMarker | OllamaCompactionMarker;

/** Options every history function takes. */
export interface FormatOptions {
  /** Read the history as this format instead of detecting it. */
  format?: MessageFormat;
}

/** Options of `pruneForModel`. */
export interface PruneOptions extends FormatOptions {
  /** The newest user turns whose tool results all stay whole. Default {{protectTurns}}. */
  protectTurns?: number;
  /** Estimated tokens of older tool output that stay whole, newest first. Default {{protectTokens}}. */
  protectTokens?: number;
  /** Change nothing unless clearing saves at least this many estimated tokens. Default {{minimumSavings}}. */
  minimumSavings?: number;
  /** What a cleared tool result's content becomes. Default {{placeholder}}. */
  placeholder?: string;
  /**
   * The budget the pruned history is for. When clearing before the protected
   * turns leaves it over this, the protected tail shrinks to the newest step.
   * Default: none (the protected turns stay whole).
   */
  maxTokens?: number;
}

/** The options of `compact` that shape the requests. */
export interface SummaryOptions extends FormatOptions {
  /** No request's estimate exceeds this. Default {{maxInputTokens}}. */
  maxInputTokens?: number;
  /** Sent as `max_tokens`; a longer summary is cut at a line. Default {{maxSummaryTokens}}. */
  maxSummaryTokens?: number;
  /** A longer tool output becomes a head-and-tail excerpt of this many characters. Default {{toolOutputChars}}. */
  toolOutputChars?: number;
}

/**
 * What `compact` hands the gateway: a plain OpenAI Chat Completions request
 * body, to `JSON.stringify` as it is (written from src/summary/prompt.rs).
 */
export interface SummaryRequest {{SummaryRequest}}

/**
 * What a gateway may answer: a string, an OpenAI chat completion, an AI SDK
 * `generateText` result, or `{ content }` (an Anthropic Messages reply);
 * the shapes src/summary/reply.rs reads.
 */
export type GatewayReply = {{GatewayReply}};
"#;

#[wasm_bindgen]
extern "C" {
    /// An array of messages.
    #[wasm_bindgen(typescript_type = "Message[]")]
    pub type MessageList;

    /// A token budget: a positive finite number.
    #[wasm_bindgen(typescript_type = "number")]
    pub type MaxTokensArg;

    #[wasm_bindgen(typescript_type = "FormatOptions")]
    pub type FormatOptionsArg;

    #[wasm_bindgen(typescript_type = "PruneOptions")]
    pub type PruneOptionsArg;

    #[wasm_bindgen(typescript_type = "SummaryOptions")]
    pub type SummaryOptionsArg;
}
