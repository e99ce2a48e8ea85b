// An AI SDK history, pruned and behind a marker, sent through the real AI SDK
// (`generateText`, which validates every message against its own schema) to
// the Anthropic and OpenAI Responses providers, answered by a loopback server.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { startJsonServer } from "./support/json-server.mjs";
import { readFileSync } from "node:fs";
import { generateText } from "ai";
import { createAnthropic } from "@ai-sdk/anthropic";
import { createOpenAI } from "@ai-sdk/openai";
import { effectiveHistory, pruneForModel } from "kram-compaction";

const PLACEHOLDER = "[Old tool result content cleared]";
const SUMMARY = "The CI failure was a strict-mode type error in src/api/client.ts.";
const marker = {
  role: "user",
  content: [{ type: "text", text: `<kram:compaction_summary>\n${SUMMARY}\n</kram:compaction_summary>` }],
};

/** The loopback server, which records the requests it received. */
let server;
let url;

const replies = {
  "/v1/messages": {
    id: "msg_01",
    type: "message",
    role: "assistant",
    model: "claude-sonnet-4-5",
    content: [{ type: "text", text: "Understood." }],
    stop_reason: "end_turn",
    stop_sequence: null,
    usage: { input_tokens: 120, output_tokens: 3 },
  },
  "/v1/responses": {
    id: "resp_01",
    object: "response",
    created_at: 1764700000,
    status: "completed",
    model: "gpt-5",
    output: [
      { type: "message", id: "msg_01", status: "completed", role: "assistant", content: [{ type: "output_text", text: "Understood.", annotations: [] }] },
    ],
    usage: { input_tokens: 120, output_tokens: 3, total_tokens: 123, input_tokens_details: { cached_tokens: 0 }, output_tokens_details: { reasoning_tokens: 0 } },
  },
};

before(async () => {
  server = await startJsonServer((path) => replies[path]);
  url = `${server.origin}/v1`;
});

after(() => server.close());

/** The stored history with a marker before the second user turn, as the model gets it. */
function forModel() {
  const all = JSON.parse(readFileSync(new URL("../fixtures/ai-sdk.json", import.meta.url), "utf8"));
  all.splice(7, 0, marker);
  const effective = effectiveHistory(all);
  // The stored system prompt is an instruction, sent first; then the marker.
  assert.equal(effective[0], all[0]);
  assert.equal(effective[0].role, "system");
  assert.equal(effective[1], marker);
  const [system, ...messages] = pruneForModel(effective, { protectTurns: 1, protectTokens: 0, minimumSavings: 1 });
  // AI SDK 6 warns about system messages inside `messages`: it goes as `system`.
  return { system: system.content, messages };
}

test("the Anthropic provider accepts the pruned history and the marker as they are", async () => {
  const { system, messages } = forModel();
  const warnings = [];
  const result = await generateText({
    model: createAnthropic({ baseURL: url, apiKey: "test-key" })("claude-sonnet-4-5"),
    system,
    messages,
  });
  warnings.push(...(result.warnings ?? []));
  assert.equal(result.text, "Understood.");
  assert.deepEqual(warnings, []);

  const { body } = server.received.findLast((r) => r.path === "/v1/messages");
  // The marker leads the messages, in a user turn.
  assert.equal(body.messages[0].role, "user");
  assert.ok(body.messages[0].content[0].text.includes(SUMMARY));
  const results = body.messages.flatMap((m) => m.content).filter((b) => b.type === "tool_result");
  const pruned = results.filter((b) => JSON.stringify(b.content).includes(PLACEHOLDER));
  assert.equal(pruned.length, 2, "both results of the older turn");
  assert.ok(pruned.some((b) => b.is_error === true), "the error-json result still marked an error");
});

test("the OpenAI Responses provider accepts the pruned history and the marker as they are", async () => {
  const { system, messages } = forModel();
  const result = await generateText({ model: createOpenAI({ baseURL: url, apiKey: "test-key" }).responses("gpt-5"), system, messages });
  assert.equal(result.text, "Understood.");

  const { body } = server.received.findLast((r) => r.path === "/v1/responses");
  assert.equal(body.input[0].role, "developer", "the system prompt, as the provider sends it to reasoning models");
  assert.equal(body.input[1].role, "user");
  assert.ok(JSON.stringify(body.input[1].content).includes(SUMMARY));
  const outputs = body.input.filter((item) => item.type === "function_call_output");
  assert.equal(outputs.filter((item) => JSON.stringify(item.output).includes(PLACEHOLDER)).length, 2);
  const calls = new Set(body.input.filter((item) => item.type === "function_call").map((item) => item.call_id));
  assert.deepEqual(new Set(outputs.map((item) => item.call_id)), calls, "every call keeps its output");
});
