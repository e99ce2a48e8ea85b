// Gateways written as the README writes them, over the SDKs' own clients,
// type-check under --strict with no cast of the signal.
import OpenAI from "openai";
import Anthropic from "@anthropic-ai/sdk";
import { generateText } from "ai";
import { createOpenAI } from "@ai-sdk/openai";
import { GoogleGenAI } from "@google/genai";
import { Ollama } from "ollama";
import { openAIChatGateway, anthropicGateway, type Gateway } from "kram-compaction";

const client = new OpenAI({ apiKey: "k" });
const viaOpenAI: Gateway = (request, { signal }) => client.chat.completions.create(request, { signal });

const claude = new Anthropic({ apiKey: "k" });
const viaAnthropic: Gateway = (request, { signal }) =>
  claude.messages.create(
    { model: request.model, max_tokens: request.max_tokens, system: request.messages[0].content, messages: [{ role: "user", content: request.messages[1].content }] },
    { signal },
  );

const openai = createOpenAI({ apiKey: "k" });
const viaAiSdk: Gateway = (request, { signal }) =>
  generateText({ model: openai.chat(request.model), system: request.messages[0].content, prompt: request.messages[1].content, maxOutputTokens: request.max_tokens, abortSignal: signal });

const gemini = new GoogleGenAI({ apiKey: "k" });
const viaGemini: Gateway = async (request, { signal }) =>
  (
    await gemini.models.generateContent({
      model: request.model,
      contents: request.messages[1].content,
      config: { systemInstruction: request.messages[0].content, maxOutputTokens: request.max_tokens, abortSignal: signal },
    })
  ).text ?? "";

const viaOllama: Gateway = async (request, { signal }) => {
  const ollama = new Ollama({ host: "http://127.0.0.1:11434", fetch: (url, init) => fetch(url, { ...init, signal }) });
  return (await ollama.chat({ model: request.model, messages: request.messages, options: { num_predict: request.max_tokens } })).message.content;
};

// The README's own option: the runtime's fetch.
const viaFetch = openAIChatGateway({ fetch: globalThis.fetch });
const viaAnthropicFetch = anthropicGateway({ fetch: globalThis.fetch });

// @ts-expect-error a number is no reply
const wrong: Gateway = () => 42;

export { viaOpenAI, viaAnthropic, viaAiSdk, viaGemini, viaOllama, viaFetch, viaAnthropicFetch, wrong };
