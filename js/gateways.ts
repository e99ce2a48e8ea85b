// Ready-made gateways over fetch: OpenAI-compatible chat completions and
// Anthropic Messages. Each is a function `compact` can call as it is.
import type { Gateway, GatewaySignal } from "./compact.js";
import type { GatewayReply, SummaryRequest } from "./wasm.js";
import { GatewayHttpError, kindOf } from "./errors.js";

/** `fetch`, named by the part the gateways use, so the types need no DOM library. */
export type Fetch = (
  url: string,
  init: { method: "POST"; headers: Record<string, string>; body: string; signal: GatewaySignal },
) => Promise<{ ok: boolean; status: number; statusText: string; text(): Promise<string> }>;

export interface OpenAIChatGatewayOptions {
  /** Default "https://api.openai.com/v1"; any OpenAI-compatible server (Ollama, vLLM, LM Studio, OpenRouter). */
  baseURL?: string;
  /** Sent as `Authorization: Bearer ...` when given. */
  apiKey?: string;
  /** Default `globalThis.fetch`. */
  fetch?: Fetch;
  headers?: Record<string, string>;
}

export interface AnthropicGatewayOptions {
  /** Default "https://api.anthropic.com". */
  baseURL?: string;
  /** Sent as `x-api-key` when given. */
  apiKey?: string;
  fetch?: Fetch;
  /** The `anthropic-version` header. Default "2023-06-01". */
  version?: string;
  headers?: Record<string, string>;
}

/** POSTs the request to `{baseURL}/chat/completions` and answers the completion. */
export function openAIChatGateway(options: OpenAIChatGatewayOptions = {}): Gateway {
  const { baseURL = "https://api.openai.com/v1", apiKey, headers } = options;
  const fetch = fetchOf(options.fetch);
  const url = `${trimSlash(baseURL)}/chat/completions`;
  return (request, { signal }) =>
    postJson(fetch, url, request, signal, {
      ...(apiKey === undefined ? {} : { authorization: `Bearer ${apiKey}` }),
      ...headers,
    });
}

/** POSTs to `{baseURL}/v1/messages`, the system prompt in the top-level `system` field. */
export function anthropicGateway(options: AnthropicGatewayOptions = {}): Gateway {
  const { baseURL = "https://api.anthropic.com", apiKey, version = "2023-06-01", headers } = options;
  const fetch = fetchOf(options.fetch);
  const url = `${trimSlash(baseURL)}/v1/messages`;
  return (request, { signal }) =>
    postJson(fetch, url, anthropicBody(request), signal, {
      "anthropic-version": version,
      ...(apiKey === undefined ? {} : { "x-api-key": apiKey }),
      ...headers,
    });
}

/** The Anthropic Messages body of a summary request. */
function anthropicBody({ model, messages, max_tokens }: SummaryRequest) {
  return {
    model,
    max_tokens,
    system: messages.filter((m) => m.role === "system").map((m) => m.content).join("\n\n"),
    messages: messages.filter((m) => m.role !== "system"),
  };
}

/**
 * The parsed JSON answer; a non-2xx status rejects with the status and the
 * start of the body. Its shape is the provider's reply, and compact checks it
 * when it reads it (a reply it cannot read is a CompactionError saying what
 * came back).
 */
async function postJson(
  fetch: Fetch,
  url: string,
  body: unknown,
  signal: GatewaySignal,
  headers: Record<string, string>,
): Promise<GatewayReply> {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
    signal,
  });
  const text = await response.text();
  if (!response.ok) {
    const excerpt = text.length > 500 ? `${text.slice(0, 500)}...` : text;
    throw new GatewayHttpError(`POST ${url} answered ${response.status} ${response.statusText}: ${excerpt}`, response.status, url);
  }
  try {
    return JSON.parse(text) as GatewayReply;
  } catch {
    throw new GatewayHttpError(`POST ${url} answered ${response.status} with a body that is not JSON: ${text.slice(0, 200)}`, response.status, url);
  }
}

function fetchOf(given: Fetch | undefined): Fetch {
  if (given !== undefined) {
    if (typeof given !== "function") throw new TypeError(`options.fetch must be a function, got ${kindOf(given)}`);
    return given;
  }
  if (typeof globalThis.fetch !== "function") {
    throw new TypeError("options.fetch is needed: this runtime has no globalThis.fetch");
  }
  return (url, init) => globalThis.fetch(url, init as RequestInit);
}

function trimSlash(url: string): string {
  if (typeof url !== "string") throw new TypeError(`options.baseURL must be a string, got ${kindOf(url)}`);
  return url.replace(/\/+$/, "");
}
