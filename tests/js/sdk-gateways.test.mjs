// The README's gateways for @google/genai and ollama, written as it writes
// them, through compact and ContextManager against the loopback model
// server speaking each protocol: what each SDK sends, and that abort reaches
// the HTTP request.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { GoogleGenAI } from "@google/genai";
import { Ollama } from "ollama";
import { compact, ContextManager, CompactionError, estimateTokens } from "kram-compaction";
import { startModelServer } from "../support/model-server.mjs";
import { codingSession } from "../support/sessions.mjs";

let server;
before(async () => {
  server = await startModelServer();
});
after(() => server.close());

/** The README's Gemini gateway. */
function geminiGateway(ai) {
  return async (request, { signal }) =>
    (
      await ai.models.generateContent({
        model: request.model,
        contents: request.messages[1].content,
        config: { systemInstruction: request.messages[0].content, maxOutputTokens: request.max_tokens, abortSignal: signal },
      })
    ).text ?? "";
}

/** The README's Ollama gateway: a client per call, so the signal reaches its fetch. */
function ollamaGateway(host) {
  return async (request, { signal }) => {
    const ollama = new Ollama({ host, fetch: (url, init) => fetch(url, { ...init, signal }) });
    return (await ollama.chat({ model: request.model, messages: request.messages, options: { num_predict: request.max_tokens } })).message.content;
  };
}

const gateways = {
  gemini: () => geminiGateway(new GoogleGenAI({ apiKey: "test-key", httpOptions: { baseUrl: server.url } })),
  ollama: () => ollamaGateway(server.url),
};

for (const [name, make] of Object.entries(gateways)) {
  test(`compact through the README's ${name} gateway sends the summary request in the ${name} protocol`, async () => {
    const history = codingSession(3);
    const before = server.requests.length;
    server.enqueue(`## Objective\nFix the tests (${name}).`);
    const marker = await compact(make(), "summary-model", history);
    assert.match(marker.content, new RegExp(`Fix the tests \\(${name}\\)`));
    const [request] = server.requests.slice(before);
    assert.equal(request.api, name);
    if (name === "gemini") {
      assert.match(request.path, /^\/v1(beta)?\/models\/summary-model:generateContent$/);
      assert.equal(request.headers["x-goog-api-key"], "test-key");
      assert.match(request.json.systemInstruction.parts[0].text, /summar/i);
      assert.equal(request.json.contents.length, 1);
      assert.match(request.json.contents[0].parts[0].text, /--- message 2: user ---/);
      assert.ok(request.json.generationConfig.maxOutputTokens > 0);
    } else {
      assert.equal(request.json.model, "summary-model");
      assert.equal(request.json.stream, false);
      assert.deepEqual(request.json.messages.map((m) => m.role), ["system", "user"]);
      assert.ok(request.json.options.num_predict > 0);
    }
  });

  test(`ContextManager compacts through the ${name} gateway`, async () => {
    const history = codingSession(12, { outputLines: 60 });
    const ctx = new ContextManager({ gateway: make(), model: "m", maxTokens: Math.floor(estimateTokens(history) / 3) });
    const prepared = await ctx.prepare(history);
    assert.equal(prepared.tier, "compacted", prepared.reason);
    assert.ok(prepared.tokensAfter <= Math.floor(estimateTokens(history) / 3));
  });

  test(`aborting reaches the ${name} gateway's HTTP request`, async () => {
    const before = server.requests.length;
    server.enqueue({ hang: true });
    const controller = new AbortController();
    const pending = compact(make(), "m", codingSession(2), { signal: controller.signal });
    while (server.requests.length === before) await new Promise((resolve) => setTimeout(resolve, 5));
    controller.abort(new Error("stop"));
    await assert.rejects(pending, (e) => e.message === "stop" || e instanceof CompactionError);
    const request = server.requests[before];
    for (let i = 0; i < 100 && !request.aborted; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    assert.equal(request.aborted, true, "the server saw the client go away");
  });
}
