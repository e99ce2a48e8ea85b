//! The TypeScript types of the exports' arguments. They are declared here, once,
//! beside the code that reads them; wasm-bindgen writes them into the `.d.ts`.

use wasm_bindgen::prelude::*;

#[wasm_bindgen(typescript_custom_section)]
const MESSAGE_TYPES: &'static str = r#"
/** The formats a history can be in; found from the history, or forced. */
export type MessageFormat = "openai-chat";

/** A tool call of an OpenAI Chat Completions assistant message. */
export interface ChatToolCall {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
  [field: string]: unknown;
}

/** A content part of an OpenAI Chat Completions message. */
export type ChatContentPart =
  | { type: "text"; text: string; [field: string]: unknown }
  | { type: "image_url"; image_url: { url: string; detail?: "auto" | "low" | "high" }; [field: string]: unknown }
  | { type: "input_audio"; input_audio: { data: string; format: string }; [field: string]: unknown }
  | { type: "file"; file: Record<string, unknown>; [field: string]: unknown }
  | { type: "refusal"; refusal: string; [field: string]: unknown };

/**
 * An OpenAI Chat Completions message as agent loops store it. Unknown roles
 * (such as "developer") are read as system-like. Fields the package does not
 * know (reasoning_content, cache_control, ...) are kept as they are.
 */
export interface ChatMessage {
  role: "system" | "user" | "assistant" | "tool" | (string & {});
  content?: string | null | ChatContentPart[];
  name?: string;
  tool_calls?: ChatToolCall[];
  tool_call_id?: string;
  [field: string]: unknown;
}

/** A message of any supported format. */
export type Message = ChatMessage;

/** Options every history function takes. */
export interface FormatOptions {
  /** Read the history as this format instead of detecting it. */
  format?: MessageFormat;
}

/** Options of `pruneForModel`. */
export interface PruneOptions extends FormatOptions {
  /** The newest user turns whose tool results all stay whole. Default 2. */
  protectTurns?: number;
  /** Estimated tokens of older tool output that stay whole, newest first. Default 40,000. */
  protectTokens?: number;
  /** Change nothing unless clearing saves at least this many estimated tokens. Default 20,000. */
  minimumSavings?: number;
  /** What a cleared tool result's content becomes. Default "[Old tool result content cleared]". */
  placeholder?: string;
}
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
}
