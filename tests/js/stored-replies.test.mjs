// Replies stored as the SDKs hand them back, pushed into the history as they
// are: the real `openai` and `@anthropic-ai/sdk` clients against the loopback
// server, and the shapes of the SDKs' own reply types. Each history is read
// as its format, estimated, pruned and cut, and requestReady makes it a
// request the provider accepts.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import OpenAI from "openai";
import Anthropic from "@anthropic-ai/sdk";
import { describeMessages, emergencyPrune, estimateTokens, requestReady } from "kram-compaction";
import { startModelServer } from "../support/model-server.mjs";
import { deepFreeze } from "../support/sessions.mjs";

let server;
before(async () => {
  server = await startModelServer();
});
after(() => server.close());

test("an OpenAI chat completion's message (refusal, annotations, audio) is stored and sent back", async () => {
  const reply = {
    role: "assistant",
    content: "The test passes now.",
    refusal: null,
    annotations: [{ type: "url_citation", url_citation: { url: "https://example.com", title: "x", start_index: 0, end_index: 3 } }],
    audio: { id: "audio_1", data: "UklGRg==", expires_at: 1, transcript: "The test passes now." },
  };
  server.enqueue({ json: { id: "chatcmpl-1", object: "chat.completion", created: 1, model: "gpt-test", choices: [{ index: 0, finish_reason: "stop", message: reply }] } });
  const client = new OpenAI({ baseURL: server.openAIBaseURL, apiKey: "test-key" });
  const history = [{ role: "system", content: "You are a coding agent." }, { role: "user", content: "Fix the test." }];
  const completion = await client.chat.completions.create({ model: "gpt-test", messages: history });
  history.push(completion.choices[0].message);
  history.push({ role: "user", content: "Thanks." });
  deepFreeze(history);
  assert.equal(describeMessages(history).format, "openai-chat");
  assert.ok(estimateTokens(history) > estimateTokens(history.slice(0, 2)));
  const ready = requestReady(history);
  assert.equal(ready[0], history[0]);
  assert.notEqual(ready[2], history[2]);
  assert.deepEqual(ready[2], { role: "assistant", content: "The test passes now.", refusal: null, audio: { id: "audio_1" } });
  await client.chat.completions.create({ model: "gpt-test", messages: ready });
  assert.equal(server.requests.at(-1).json.messages[2].annotations, undefined);
});

test("an Anthropic reply (id, type, model, stop_reason, usage) is stored, read as Anthropic, and sent back as role and content", async () => {
  const client = new Anthropic({ baseURL: server.anthropicBaseURL, apiKey: "test-key" });
  const history = [{ role: "user", content: "Fix the test." }];
  const reply = await client.messages.create({ model: "claude-test", max_tokens: 64, messages: history });
  assert.equal(reply.type, "message");
  history.push(reply, { role: "user", content: [{ type: "text", text: "Thanks." }] });
  deepFreeze(history);
  assert.equal(describeMessages(history).format, "anthropic");
  // The minimal case reads too.
  const minimal = [{ role: "user", content: "hi" }, { id: "msg_1", type: "message", role: "assistant", content: [{ type: "text", text: "hello" }] }];
  assert.equal(describeMessages(minimal).format, "anthropic");
  assert.deepEqual(emergencyPrune(history, 1), [history[2]], "the newest request alone, at the least");
  const ready = requestReady(history);
  assert.equal(ready[0], history[0]);
  assert.deepEqual(ready[1], { role: "assistant", content: reply.content });
  assert.equal(ready[1].content, reply.content, "the blocks are the reply's own");
  await client.messages.create({ model: "claude-test", max_tokens: 64, messages: ready });
  for (const message of server.requests.at(-1).json.messages) assert.deepEqual(Object.keys(message).sort(), ["content", "role"]);
});

test("OpenAI Responses output items (id, status) and Codex reasoning with content: null are input items as they are", () => {
  const history = deepFreeze([
    { type: "message", role: "user", content: [{ type: "input_text", text: "Fix the test." }] },
    { type: "reasoning", id: "rs_1", summary: [{ type: "summary_text", text: "Look at the test first." }] },
    { type: "reasoning", summary: [], content: null, encrypted_content: "gAAAAA".repeat(400) },
    { type: "function_call", id: "fc_1", call_id: "call_1", name: "shell", arguments: '{"cmd":"npm test"}', status: "completed" },
    { type: "function_call_output", call_id: "call_1", output: "1 failed" },
    { type: "ghost_snapshot", ghost_commit: { id: "abc", parent: "def", preexisting_untracked_files: [] } },
    { type: "message", id: "msg_1", status: "completed", role: "assistant", content: [{ type: "output_text", text: "Fixed.", annotations: [], logprobs: [] }] },
  ]);
  const described = describeMessages(history);
  assert.equal(described.format, "openai-responses");
  assert.equal(described.messages[5].tokens, 0, "a ghost snapshot is never sent by Codex");
  // Encrypted reasoning counts as Codex estimates it: (2400 * 3/4 - 650) / 4 = 288 tokens, plus the item's 4.
  assert.equal(described.messages[2].tokens, 4 + 288);
  const ready = requestReady(history);
  ready.forEach((m, i) => assert.equal(m, history[i], "accepted as they are"));
  // Reasoning before a newer user message counts nothing (it is not rendered).
  const later = [...history, { type: "message", role: "user", content: [{ type: "input_text", text: "Now the docs." }] }];
  assert.equal(describeMessages(later).messages[2].tokens, 0);
  assert.equal(estimateTokens(later), estimateTokens(history) - 292 - described.messages[1].tokens + estimateTokens(later.slice(-1)));
});

test("AI SDK response.messages (providerOptions on parts) and quirks of real transcripts read without a split pair", () => {
  const aiSdk = deepFreeze([
    { role: "user", content: "Fix the test." },
    {
      role: "assistant",
      content: [
        { type: "reasoning", text: "Run it first.", providerOptions: { openai: { itemId: "rs_1", reasoningEncryptedContent: null } } },
        { type: "tool-call", toolCallId: "call_1", toolName: "shell", input: { cmd: "npm test" }, providerOptions: { openai: { itemId: "fc_1" } } },
      ],
    },
    { role: "tool", content: [{ type: "tool-result", toolCallId: "call_1", toolName: "shell", output: { type: "text", value: "1 failed" } }] },
  ]);
  assert.equal(describeMessages(aiSdk).format, "ai-sdk");
  assert.deepEqual(requestReady(aiSdk), aiSdk);

  // A reused id, a call with no result yet, content: [] beside tool_calls, a
  // result whose call is not in the history.
  const call = (id) => ({ role: "assistant", content: [], tool_calls: [{ id, type: "function", function: { name: "shell", arguments: "{}" } }] });
  const chat = deepFreeze([
    { role: "system", content: "You are a coding agent." },
    { role: "tool", tool_call_id: "call_gone", content: "an orphan result" },
    { role: "user", content: "Fix the test." },
    call("call_1"),
    { role: "tool", tool_call_id: "call_1", content: "first run: ".repeat(300) },
    call("call_1"),
    { role: "tool", tool_call_id: "call_1", content: "second run: ".repeat(300) },
    call("call_2"),
  ]);
  assert.equal(describeMessages(chat).format, "openai-chat");
  const kept = emergencyPrune(chat, 50);
  // The request, then the newest step: the open call, with no result yet.
  assert.deepEqual(kept, [chat[0], chat[2], chat[7]]);
  const two = emergencyPrune(chat, estimateTokens([chat[0], chat[2], ...chat.slice(5)]));
  assert.deepEqual(two, [chat[0], chat[2], ...chat.slice(5)], "the reused id pairs with the newest call of it");
});
