// The message types of the four formats: each history goes in and comes back
// as its own type; the @ts-expect-error lines prove wrong shapes fail.
import {
  effectiveHistory,
  emergencyPrune,
  estimateTokens,
  MESSAGE_FORMATS,
  pruneForModel,
  requestReady,
  type AiSdkMessage,
  type AiSdkPart,
  type AiSdkToolResultOutput,
  type AnthropicBlock,
  type AnthropicMessage,
  type Message,
  type MessageFormat,
  type ResponsesItem,
  type ResponsesPart,
  type AiSdk4Message,
  type AiSdk4Part,
  type GeminiContent,
  type GeminiPart,
  type LangChainContentBlock,
  type LangChainMessage,
  type OllamaMessage,
  type AiSdkUiMessage,
  type AiSdkUiPart,
  type LangChainMessageFields,
  type LangChainMessageInstance,
  type LangChainSerializedMessage,
  type LangChainToolCall,
} from "kram-compaction";

const output: AiSdkToolResultOutput = { type: "content", value: [{ type: "media", data: "iVBOR", mediaType: "image/png" }] };
const part: AiSdkPart = { type: "tool-result", toolCallId: "call_0", toolName: "screenshot", output };
const block: AnthropicBlock = { type: "tool_result", tool_use_id: "toolu_0", content: [{ type: "text", text: "ok" }] };
const responsesPart: ResponsesPart = { type: "input_image", image_url: "https://example.com/a.png", detail: "low" };

const aiSdk: AiSdkMessage[] = [
  { role: "system", content: "You are a coding agent." },
  { role: "user", content: [{ type: "text", text: "Read the file" }, { type: "image", image: "https://example.com/a.png" }] },
  {
    role: "assistant",
    content: [
      { type: "reasoning", text: "Read it first.", providerOptions: { anthropic: { signature: "sig" } } },
      { type: "tool-call", toolCallId: "call_1", toolName: "readFile", input: { path: "a.ts" } },
    ],
  },
  { role: "tool", content: [{ type: "tool-result", toolCallId: "call_1", toolName: "readFile", output: { type: "error-text", value: "ENOENT" } }] },
  { role: "tool", content: [part] },
];
const v4Result: AiSdk4Part = { type: "tool-result", toolCallId: "call_1", toolName: "readFile", result: { error: "ENOENT" }, isError: true };
const aiSdk4: AiSdk4Message[] = [
  { role: "user", content: [{ type: "text", text: "Read the file" }, { type: "image", image: "https://example.com/a.png", mimeType: "image/png" }] },
  { role: "assistant", content: [{ type: "tool-call", toolCallId: "call_1", toolName: "readFile", args: { path: "a.ts" } }] },
  { role: "tool", content: [v4Result] },
];
const v4: AiSdk4Message[] = pruneForModel(aiSdk4, { format: "ai-sdk-4" });
// @ts-expect-error an AI SDK 4 tool call has args, not a string input
const v4Wrong: AiSdk4Part = { type: "tool-call", toolCallId: "c", toolName: "t", args: {}, input: "x" };

const ollamaHistory: OllamaMessage[] = [
  { role: "user", content: "Read a.ts", images: ["iVBOR"] },
  { role: "assistant", content: "", thinking: "Read it first.", tool_calls: [{ function: { name: "read_file", arguments: { path: "a.ts" } } }] },
  { role: "tool", content: "export const a = 1;", tool_name: "read_file" },
];
const ollamaOut: OllamaMessage[] = emergencyPrune(pruneForModel(ollamaHistory, { format: "ollama" }), 1_000);
// @ts-expect-error an Ollama message's content is a string
const ollamaWrong: OllamaMessage = { role: "user", content: [{ type: "text", text: "hi" }] };

const uiToolPart: AiSdkUiPart = { type: "tool-readFile", toolCallId: "call_1", state: "output-available", input: { path: "a.ts" }, output: "export const a = 1;" };
const uiHistory: AiSdkUiMessage[] = [
  { id: "u1", role: "user", parts: [{ type: "text", text: "Read a.ts" }, { type: "file", mediaType: "image/png", url: "data:image/png;base64,iVBOR" }] },
  {
    id: "a1",
    role: "assistant",
    parts: [
      { type: "step-start" },
      { type: "reasoning", text: "Read it first.", state: "done" },
      uiToolPart,
      { type: "dynamic-tool", toolName: "search", toolCallId: "call_2", state: "output-error", input: {}, errorText: "offline" },
    ],
  },
];
const uiOut: AiSdkUiMessage[] = emergencyPrune(pruneForModel(uiHistory, { format: "ai-sdk-ui" }), 1_000);
// @ts-expect-error a UI message has parts, not content
const uiWrong: AiSdkUiMessage = { id: "x", role: "user", content: "hi" };

const anthropic: AnthropicMessage[] = [
  { role: "user", content: [{ type: "text", text: "Read the file", cache_control: { type: "ephemeral" } }] },
  {
    role: "assistant",
    content: [
      { type: "thinking", thinking: "Read it first.", signature: "sig" },
      { type: "tool_use", id: "toolu_1", name: "read_file", input: { path: "a.ts" } },
    ],
  },
  { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "ENOENT", is_error: true }] },
  { role: "user", content: [block] },
];
const responses: ResponsesItem[] = [
  { type: "message", role: "developer", content: [{ type: "input_text", text: "Be brief." }] },
  { role: "user", content: [{ type: "input_text", text: "Read the file" }, responsesPart] },
  { type: "reasoning", summary: [{ type: "summary_text", text: "Read it first." }], encrypted_content: "gAAAA" },
  { type: "function_call", call_id: "call_1", name: "read_file", arguments: "{}" },
  { type: "function_call_output", call_id: "call_1", output: [{ type: "input_text", text: "ENOENT" }] },
];

const geminiPart: GeminiPart = { functionResponse: { name: "read_file", response: { error: "ENOENT" } } };
const gemini: GeminiContent[] = [
  { role: "user", parts: [{ text: "Read the file" }, { inlineData: { mimeType: "image/png", data: "iVBOR" } }] },
  { role: "model", parts: [{ text: "Read it first.", thought: true }, { functionCall: { name: "read_file", args: { path: "a.ts" } }, thoughtSignature: "c2ln" }] },
  { role: "user", parts: [geminiPart] },
];

const a: AiSdkMessage[] = pruneForModel(effectiveHistory(aiSdk, { format: "ai-sdk" }));
const b: AnthropicMessage[] = emergencyPrune(pruneForModel(anthropic, { protectTurns: 1 }), 1_000);
const c: ResponsesItem[] = effectiveHistory(responses);
const formats: readonly MessageFormat[] = MESSAGE_FORMATS;
const g: GeminiContent[] = emergencyPrune(pruneForModel(gemini, { format: "gemini" }), 1_000);
const all: Message[] = [...a, ...b, ...c, ...g];
const tokens: number = estimateTokens(all.slice(0, 1), { format: formats[0] });
export { tokens };

// @ts-expect-error Anthropic has no system role in the list
const noSystem: AnthropicMessage = { role: "system", content: "x" };
// @ts-expect-error an AI SDK tool result's output is an object
const badOutput: AiSdkMessage = { role: "tool", content: [{ type: "tool-result", toolCallId: "c", toolName: "t", output: "ok" }] };
// @ts-expect-error what comes back is the caller's own type
const mismatched: AnthropicMessage[] = pruneForModel(aiSdk);
// @ts-expect-error a Gemini content's parts are an array
const badParts: GeminiContent = { role: "user", parts: { text: "x" } };
export { noSystem, badOutput, mismatched, badParts };

const readyAnthropic: AnthropicMessage[] = requestReady(anthropic);
const readyResponses: ResponsesItem[] = requestReady(responses, { format: "openai-responses" });
// @ts-expect-error not an array of messages
requestReady("hello");

// LangChain.js messages, serialised and live.
const langchainBlock: LangChainContentBlock = { type: "image_url", image_url: { url: "data:image/png;base64,iVBOR" } };
const langchainCall: LangChainToolCall = { id: "call_1", name: "bash", args: { command: "ls" } };
const langchainFields: LangChainMessageFields = { content: [{ type: "text", text: "hi" }, langchainBlock], tool_calls: [langchainCall] };
const serialisedMessage: LangChainSerializedMessage = { lc: 1, type: "constructor", id: ["langchain_core", "messages", "AIMessage"], kwargs: langchainFields };
declare const liveMessage: LangChainMessageInstance;
const langchain: LangChainMessage[] = pruneForModel([serialisedMessage, liveMessage]);
const langchainTokens: number = estimateTokens(langchain, { format: "langchain" });
// @ts-expect-error a serialised message's type is "constructor"
const notSerialised: LangChainSerializedMessage = { lc: 1, type: "human", id: [], kwargs: {} };
export { langchainTokens, notSerialised };
export { uiOut, uiWrong };
