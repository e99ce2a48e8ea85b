// The message types of the AI SDK, the Anthropic SDK and the OpenAI SDK go
// into the history functions as they are, and come back as the same types.
import type { ModelMessage, UIMessage } from "ai";
import type { Message as AnthropicReply, MessageParam } from "@anthropic-ai/sdk/resources/messages";
import type { ChatCompletionMessageParam } from "openai/resources/chat/completions";
import type { ResponseInputItem } from "openai/resources/responses/responses";
import type { Content } from "@google/genai";
import type { BaseMessage, ToolMessage } from "@langchain/core/messages";
import type { SerializedConstructor } from "@langchain/core/load/serializable";
import type { Message as OllamaClientMessage } from "ollama";
import { effectiveHistory, emergencyPrune, estimateTokens, needsCompaction, pruneForModel, describeMessages, requestReady } from "kram-compaction";

declare const aiSdk: ModelMessage[];
declare const anthropic: MessageParam[];
declare const chat: ChatCompletionMessageParam[];
declare const responses: ResponseInputItem[];

const a: ModelMessage[] = pruneForModel(effectiveHistory(aiSdk), { format: "ai-sdk" });
const b: MessageParam[] = emergencyPrune(pruneForModel(anthropic), 60_000, { format: "anthropic" });
const c: ChatCompletionMessageParam[] = pruneForModel(chat);
const d: ResponseInputItem[] = effectiveHistory(responses, { format: "openai-responses" });
const tokens: number = estimateTokens(aiSdk) + estimateTokens(anthropic) + estimateTokens(chat) + estimateTokens(responses);
const over: boolean = needsCompaction(anthropic, 100_000);
const format: string = describeMessages(responses).format;
export { a, b, c, d, tokens, over, format };

// Gemini's contents, as @google/genai types them.
declare const gemini: Content[];
const g: Content[] = emergencyPrune(pruneForModel(effectiveHistory(gemini)), 60_000, { format: "gemini" });
const geminiTokens: number = estimateTokens(gemini);
export { g, geminiTokens };

// A history that stores Anthropic replies as returned is read as it is, and
// requestReady makes it a request the Messages API accepts.
declare const stored: (MessageParam | AnthropicReply)[];
const storedTokens: number = estimateTokens(stored);
const ready: (MessageParam | AnthropicReply)[] = requestReady(emergencyPrune(stored, 60_000));

// LangChain.js: live messages (any BaseMessage subclass) and serialised ones
// (JSON.stringify, LangGraph checkpoints) go in and come back as they are.
declare const langchain: BaseMessage[];
declare const tools: ToolMessage[];
declare const serialised: SerializedConstructor[];
const lc: BaseMessage[] = pruneForModel(effectiveHistory(langchain), { format: "langchain" });
const lcTools: ToolMessage[] = emergencyPrune(tools, 60_000);
const lcStored: SerializedConstructor[] = pruneForModel(serialised);
export { lc, lcTools, lcStored };

// Ollama: the ollama client's own Message goes in and comes back as itself.
declare const ollamaChat: OllamaClientMessage[];
const ollama: OllamaClientMessage[] = pruneForModel(effectiveHistory(ollamaChat), { format: "ollama" });
export { ollama };

// AI SDK UI messages: useChat's own UIMessage goes in and comes back as itself.
declare const ui: UIMessage[];
const uiOut: UIMessage[] = emergencyPrune(pruneForModel(effectiveHistory(ui), { format: "ai-sdk-ui" }), 60_000);
const uiTokens: number = estimateTokens(ui);
export { uiOut, uiTokens };

// compact's marker goes into the SDK's own store: AI SDK messages take every
// marker a plain history can have; an Anthropic store the forced format's.
import { compact, type Gateway } from "kram-compaction";
declare const gateway: Gateway;
async function store(): Promise<void> {
  aiSdk.push(await compact(gateway, "m", aiSdk));
  anthropic.push(await compact(gateway, "m", anthropic, { format: "anthropic" }));
  ui.push(await compact(gateway, "m", ui));
}
export { store };
