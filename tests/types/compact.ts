// compact, its gateways and its error, used with real types.
import {
  compact,
  CompactionError,
  GatewayHttpError,
  openAIChatGateway,
  anthropicGateway,
  type AbortSignalLike,
  type AnthropicGatewayOptions,
  type Fetch,
  type ChatMessage,
  type CompactOptions,
  type Gateway,
  type GatewayReply,
  type OpenAIChatGatewayOptions,
  type SummaryOptions,
  type SummaryRequest,
  type GatewaySignal,
  type AnthropicMessage,
  type CompactionMarker,
  type CompactionMarkers,
  type MarkerByShape,
  type ChatCompactionMarker,
  type UserTextCompactionMarker,
  type ResponsesCompactionMarker,
  type GeminiCompactionMarker,
  type GeminiContent,
  type OllamaCompactionMarker,
  type UiCompactionMarker,
  type AiSdkUiMessage,
} from "kram-compaction";

const history: ChatMessage[] = [{ role: "user", content: "Fix the failing test" }];
declare const hostFetch: Fetch;
declare const hostSignal: AbortSignalLike;
const fromFetch: Gateway = async (request: SummaryRequest, { signal }: { signal: GatewaySignal }) => {
  const body = JSON.stringify(request);
  const response = await hostFetch("http://127.0.0.1:1/v1/chat/completions", { method: "POST", headers: {}, body, signal });
  return JSON.parse(await response.text()) as GatewayReply;
};
const openAIOptions: OpenAIChatGatewayOptions = { baseURL: "http://127.0.0.1:1/v1", apiKey: "k", fetch: hostFetch };
const anthropicOptions: AnthropicGatewayOptions = { apiKey: "k", version: "2023-06-01" };
const shape: SummaryOptions = { maxInputTokens: 30_000, maxSummaryTokens: 2_000, toolOutputChars: 1_000 };
const options: CompactOptions = { ...shape, timeoutMs: 60_000, signal: hostSignal, onProgress: ({ done, total }) => done / total };

async function run(): Promise<ChatMessage> {
  const viaFetch: ChatMessage = await compact(fromFetch, "gpt-4o-mini", history, options);
  await compact(openAIChatGateway(openAIOptions), "gpt-4o-mini", history);
  await compact(anthropicGateway(anthropicOptions), "claude-haiku", history);
  return viaFetch;
}
const failure: CompactionError = new CompactionError("the gateway failed", { cause: new Error("x") });
export { run, failure };

// @ts-expect-error the model is a string
compact(fromFetch, 4, history);
// @ts-expect-error timeoutMs is a number
compact(fromFetch, "m", history, { timeoutMs: "1s" });

// A gateway's HTTP failure carries its status as a field.
declare const caught: unknown;
if (caught instanceof CompactionError && caught.cause instanceof GatewayHttpError) {
  const status: number = caught.cause.status;
  const url: string = caught.cause.url;
}

// A gateway must answer a reply: a number is not one.
// @ts-expect-error not a GatewayReply
const answersANumber: Gateway = () => 42;

// The marker is typed as what it is. A plain { role, content } history reads
// as OpenAI Chat, so its marker may be a system message.
async function markers(): Promise<void> {
  const plain: { role: "user"; content: string }[] = [{ role: "user", content: "hi" }];
  const marker = await compact(fromFetch, "m", plain);
  const role: "system" | "user" = marker.role;
  // @ts-expect-error the marker of a plain history may be a system message
  const onlyUser: "user" = marker.role;
  // A literal format gives exactly its marker.
  const anthropic: AnthropicMessage[] = [{ role: "user", content: "hi" }];
  const forAnthropic: UserTextCompactionMarker = await compact(fromFetch, "m", anthropic, { format: "anthropic" });
  anthropic.push(forAnthropic);
  const gemini: GeminiContent[] = [{ role: "user", parts: [{ text: "hi" }] }];
  const forGemini: GeminiCompactionMarker = await compact(fromFetch, "m", gemini);
  const ui: AiSdkUiMessage[] = [{ id: "u", role: "user", parts: [{ type: "text", text: "hi" }] }];
  const forUi: UiCompactionMarker = await compact(fromFetch, "m", ui);
  ui.push(forUi);
  const byName: CompactionMarkers<ChatMessage>["openai-responses"] = await compact(fromFetch, "m", history, { format: "openai-responses" });
  const chat: ChatCompactionMarker | UserTextCompactionMarker | OllamaCompactionMarker = await compact(fromFetch, "m", history);
  const responses: ResponsesCompactionMarker = byName;
  const shape: MarkerByShape<ChatMessage> = chat;
  const named: CompactionMarker<ChatMessage, "ollama"> = await compact(fromFetch, "m", history, { format: "ollama" });
  void [role, onlyUser, forGemini, responses, shape, named];
}
export { markers };
