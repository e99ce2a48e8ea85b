// A real HTTP model server on 127.0.0.1 for tests: it speaks OpenAI's
// `POST /v1/chat/completions`, Anthropic's `POST /v1/messages`, Gemini's
// `POST /v1beta/models/{model}:generateContent` and Ollama's `POST
// /api/chat` (non-streaming), records
// every request, answers from a script, and can fail on purpose. CORS headers
// (preflight included) let a browser page call it too.
//
//   import { startModelServer } from "../support/model-server.mjs";
//   const server = await startModelServer();          // port 0: a free port
//   const gateway = openAIChatGateway({ baseURL: server.openAIBaseURL });
//   server.enqueue({ status: 500 }, "## Objective\nSecond try works");
//   ...
//   server.requests[0].json.messages                   // what the client sent
//   await server.close();                              // ends hanging requests too
//
// Behaviours, for `enqueue(...)` (used by the next requests, in order) and as
// what `reply(request)` returns once the queue is empty:
//   "text" or { summary: "text" }   a 200 reply in the endpoint's own format
//   { summary, delayMs }            the same, after a delay
//   { status, body?, headers? }     that status; body an object (sent as JSON) or a string
//   { json }                        a 200 reply with exactly this JSON body
//   { malformed: true }             a 200 reply whose body is not JSON
//   { hang: true }                  never answers (until the client aborts or close())
// The default `reply` answers "## Objective\nSummary <n>." (n counts from 1).
import { createServer } from "node:http";

/**
 * @typedef {object} RecordedRequest
 * @property {string} method
 * @property {string} path           e.g. "/v1/chat/completions"
 * @property {Record<string, string | string[] | undefined>} headers
 * @property {string} body           the raw body
 * @property {any} json              the body parsed, or undefined when it is not JSON
 * @property {"openai" | "anthropic" | "gemini" | "ollama" | "unknown"} api
 * @property {boolean} aborted       the client went away before the answer
 */

/**
 * @param {{ reply?: (request: RecordedRequest, index: number) => any }} [options]
 */
export async function startModelServer(options = {}) {
  /** @type {RecordedRequest[]} */
  const requests = [];
  /** @type {RecordedRequest[]} */
  const preflights = [];
  const queue = [];
  let counter = 0;

  const server = createServer(async (req, res) => {
    cors(req, res);
    if (req.method === "OPTIONS") {
      preflights.push(record(req, ""));
      res.writeHead(204).end();
      return;
    }
    const body = await readBody(req);
    const request = record(req, body);
    requests.push(request);
    req.on("close", () => {
      if (!res.writableEnded) request.aborted = true;
    });
    res.on("close", () => {
      if (!res.writableEnded) request.aborted = true;
    });
    if (request.api === "unknown") {
      send(res, 404, { error: { message: `no such endpoint: ${req.method} ${request.path}` } });
      return;
    }
    counter += 1;
    const behaviour = queue.length > 0 ? queue.shift() : handle.reply(request, counter);
    await act(res, request, normalise(behaviour), counter);
  });

  // A thousand clients may connect at once (tests/js/load.test.mjs): a
  // backlog above Node's default of 511, so no connection is refused while
  // the event loop is busy, and idle connections kept until `close` rather
  // than timed out after 5 s, so a client never sends on a socket the server
  // is closing (undici then fails the fetch).
  server.keepAliveTimeout = 0;
  await new Promise((resolve) => server.listen({ port: 0, host: "127.0.0.1", backlog: 4096 }, resolve));
  const { port } = /** @type {import("node:net").AddressInfo} */ (server.address());
  const url = `http://127.0.0.1:${port}`;

  const handle = {
    url,
    port,
    /** For `openAIChatGateway`, the `openai` client and the AI SDK. */
    openAIBaseURL: `${url}/v1`,
    /** For `anthropicGateway`. */
    anthropicBaseURL: url,
    requests,
    preflights,
    reply: options.reply ?? ((_request, n) => `## Objective\nSummary ${n}.`),
    /** Behaviours for the next requests, in order. */
    enqueue(...behaviours) {
      queue.push(...behaviours);
      return handle;
    },
    /** Stops listening and ends every open connection. */
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
  return handle;
}

function cors(req, res) {
  res.setHeader("access-control-allow-origin", req.headers.origin ?? "*");
  res.setHeader("access-control-allow-methods", "POST, GET, OPTIONS");
  // A wildcard does not cover Authorization, so echo what was asked for.
  res.setHeader("access-control-allow-headers", req.headers["access-control-request-headers"] ?? "*");
  res.setHeader("access-control-max-age", "600");
  res.setHeader("vary", "origin");
}

function readBody(req) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    req.on("data", (chunk) => chunks.push(chunk));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

function record(req, body) {
  const path = new URL(req.url ?? "/", "http://x").pathname;
  let json;
  try {
    json = body ? JSON.parse(body) : undefined;
  } catch {
    json = undefined;
  }
  const api = path.endsWith("/chat/completions")
    ? "openai"
    : path.endsWith("/v1/messages")
      ? "anthropic"
      : path.endsWith(":generateContent")
        ? "gemini"
        : path === "/api/chat"
          ? "ollama"
          : "unknown";
  return { method: req.method ?? "", path, headers: { ...req.headers }, body, json, api, aborted: false };
}

function normalise(behaviour) {
  if (typeof behaviour === "string") return { summary: behaviour };
  return behaviour ?? { summary: "" };
}

async function act(res, request, behaviour, n) {
  if (behaviour.delayMs) await new Promise((resolve) => setTimeout(resolve, behaviour.delayMs));
  if (behaviour.hang) return; // answered by nobody; close() ends it
  if (behaviour.malformed) {
    res.writeHead(200, { "content-type": "application/json" }).end('{"choices": [ this is not JSON');
    return;
  }
  if (behaviour.status !== undefined && behaviour.status !== 200) {
    const body = behaviour.body ?? { error: { type: "test_error", message: `scripted ${behaviour.status}` } };
    send(res, behaviour.status, body, behaviour.headers);
    return;
  }
  if (behaviour.json !== undefined) {
    send(res, 200, behaviour.json, behaviour.headers);
    return;
  }
  const summary = behaviour.summary ?? "";
  const replies = { anthropic: anthropicReply, gemini: geminiReply, ollama: ollamaReply, openai: chatReply };
  send(res, 200, replies[request.api](request, summary, n));
}

function send(res, status, body, headers = {}) {
  const text = typeof body === "string" ? body : JSON.stringify(body);
  res.writeHead(status, { "content-type": typeof body === "string" ? "text/plain" : "application/json", ...headers });
  res.end(text);
}

/** A complete chat completion, as strict clients (openai, the AI SDK) parse it. */
function chatReply(request, summary, n) {
  return {
    id: `chatcmpl-test-${n}`,
    object: "chat.completion",
    created: Math.floor(Date.now() / 1000),
    model: request.json?.model ?? "test-model",
    choices: [{ index: 0, message: { role: "assistant", content: summary, refusal: null }, logprobs: null, finish_reason: "stop" }],
    usage: { prompt_tokens: Math.ceil(request.body.length / 4), completion_tokens: Math.ceil(summary.length / 4), total_tokens: 0 },
  };
}

function anthropicReply(request, summary, n) {
  return {
    id: `msg_test_${n}`,
    type: "message",
    role: "assistant",
    model: request.json?.model ?? "test-model",
    content: [{ type: "text", text: summary }],
    stop_reason: "end_turn",
    stop_sequence: null,
    usage: { input_tokens: Math.ceil(request.body.length / 4), output_tokens: Math.ceil(summary.length / 4) },
  };
}

/** A `generateContent` reply (the Gemini API's GenerateContentResponse). */
function geminiReply(request, summary, n) {
  return {
    candidates: [{ content: { role: "model", parts: [{ text: summary }] }, finishReason: "STOP", index: 0 }],
    usageMetadata: { promptTokenCount: Math.ceil(request.body.length / 4), candidatesTokenCount: Math.ceil(summary.length / 4) },
    modelVersion: request.path.match(/models\/([^:]+):/)?.[1] ?? "test-model",
    responseId: `gemini-test-${n}`,
  };
}

/** A non-streaming Ollama `/api/chat` reply. */
function ollamaReply(request, summary) {
  return {
    model: request.json?.model ?? "test-model",
    created_at: new Date().toISOString(),
    message: { role: "assistant", content: summary },
    done: true,
    done_reason: "stop",
    prompt_eval_count: Math.ceil(request.body.length / 4),
    eval_count: Math.ceil(summary.length / 4),
  };
}
