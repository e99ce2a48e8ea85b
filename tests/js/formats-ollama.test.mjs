// Ollama's native /api/chat messages: detected from their shape (tool calls
// without ids, object arguments, images, thinking, tool_name), paired by
// position, and sent by the ollama client itself to a loopback server
// speaking /api/chat.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { Ollama } from "ollama";
import { compact, describeMessages, effectiveHistory, emergencyPrune, estimateTokens, openAIChatGateway, pruneForModel } from "kram-compaction";
import { startModelServer } from "../support/model-server.mjs";
import { deepFreeze } from "../support/sessions.mjs";

const PLACEHOLDER = "[Old tool result content cleared]";
const history = deepFreeze(JSON.parse(readFileSync(new URL("../fixtures/ollama.json", import.meta.url), "utf8")));
const EAGER = { protectTurns: 1, protectTokens: 0, minimumSavings: 0 };

let server;
before(async () => {
  server = await startModelServer();
});
after(() => server.close());

/**
 * What the ollama client sends for `messages`. The client writes into the
 * messages it is given (it re-encodes `images` in place), so it gets a copy.
 */
async function sent(messages) {
  const before = server.requests.length;
  const reply = await new Ollama({ host: server.url }).chat({ model: "llama3.2", messages: structuredClone(messages) });
  assert.equal(typeof reply.message.content, "string");
  return server.requests[before].json.messages;
}

test("Ollama's own shapes read as ollama, never as another format", () => {
  // The issue's history: a tool call with no id, a result named by tool_name.
  const issue = [
    { role: "user", content: "list files" },
    { role: "assistant", content: "", tool_calls: [{ function: { name: "ls", arguments: { path: "." } } }] },
    { role: "tool", content: "a.txt\nb.txt", tool_name: "ls" },
  ];
  assert.equal(describeMessages(issue).format, "ollama");
  assert.equal(describeMessages(history).format, "ollama");
  assert.equal(describeMessages([{ role: "user", content: "look", images: ["iVBOR"] }]).format, "ollama");
  // An image counts the fixed 1,000.
  assert.equal(estimateTokens([{ role: "user", content: "look", images: ["iVBOR", "iVBOR"] }]) - estimateTokens([{ role: "user", content: "look" }]), 2_000);
  for (const format of ["openai-chat", "anthropic", "ai-sdk", "openai-responses"]) {
    assert.throws(() => estimateTokens(issue, { format }), (e) => e instanceof TypeError && /messages\[1\]/.test(e.message), format);
  }
});

test("calls and results pair by position: no cut separates them", () => {
  for (let budget = 60; budget < estimateTokens(history); budget += 97) {
    const cut = emergencyPrune(history, budget);
    for (const [i, message] of cut.entries()) {
      if (message.role !== "tool") continue;
      const before = cut.slice(0, i).findLast((m) => m.role !== "tool");
      assert.ok(before?.tool_calls?.length > 0, `budget ${budget}: message ${i} follows its call`);
    }
  }
});

test("pruned, cut and compacted histories are sent by the ollama client as they are", async () => {
  const pruned = pruneForModel(history, EAGER);
  const cleared = pruned.filter((m) => m.role === "tool" && m.content === PLACEHOLDER);
  assert.ok(cleared.length >= 3, `${cleared.length} results cleared`);
  assert.ok(cleared.every((m) => typeof m.tool_name === "string"), "tool_name stays");
  assert.deepEqual(await sent(pruned), JSON.parse(JSON.stringify(pruned)));
  const cut = emergencyPrune(history, Math.floor(estimateTokens(history) / 3));
  assert.deepEqual(await sent(cut), JSON.parse(JSON.stringify(cut)));
  const marker = await compact(openAIChatGateway({ baseURL: server.openAIBaseURL }), "m", history);
  assert.equal(marker.role, "user");
  assert.match(marker.content, /^<kram:compaction_summary>\n/);
  const effective = effectiveHistory([...history, marker, { role: "user", content: "Go on." }]);
  assert.equal(effective[1], marker);
  const messages = await sent(effective);
  assert.equal(messages[1].content, marker.content);
});
