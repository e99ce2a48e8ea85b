// AI SDK 4 CoreMessages through AI SDK 4 itself (installed in tests/ai-v4,
// beside the root's AI SDK 6): a pruned, cut and compacted history is
// accepted by ai@4's generateText, which validates every message against its
// own schema, and sent by @ai-sdk/openai@1 to the loopback server.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";
import { compact, effectiveHistory, emergencyPrune, estimateTokens, openAIChatGateway, pruneForModel, describeMessages } from "kram-compaction";
import { startModelServer } from "../support/model-server.mjs";
import { deepFreeze } from "../support/sessions.mjs";

const v4 = createRequire(new URL("../ai-v4/package.json", import.meta.url));
const load = (name) => import(pathToFileURL(v4.resolve(name)).href);
const { generateText } = await load("ai");
const { createOpenAI } = await load("@ai-sdk/openai");
const aiVersion = JSON.parse(readFileSync(v4.resolve("ai/package.json"), "utf8")).version;

const PLACEHOLDER = "[Old tool result content cleared]";
const history = deepFreeze(JSON.parse(readFileSync(new URL("../fixtures/ai-sdk-4.json", import.meta.url), "utf8")));
const EAGER = { protectTurns: 1, protectTokens: 0, minimumSavings: 0 };

let server;
before(async () => {
  server = await startModelServer();
});
after(() => server.close());

/** What ai@4 sends for `messages`, through @ai-sdk/openai@1's chat model. */
async function sent(messages) {
  const before = server.requests.length;
  const openai = createOpenAI({ apiKey: "test", baseURL: server.openAIBaseURL });
  const result = await generateText({ model: openai.chat("gpt-4o-mini"), messages });
  assert.equal(typeof result.text, "string");
  return server.requests[before].json.messages;
}

test("the installed AI SDK is version 4", () => {
  assert.match(aiVersion, /^4\./);
});

test("the fixture is read as ai-sdk-4, and ai@4 accepts it as it is", async () => {
  assert.equal(describeMessages(history).format, "ai-sdk-4");
  const messages = await sent(history.filter((m) => m.role !== "system").slice(0, 5));
  assert.ok(messages.some((m) => m.role === "tool"), "tool results are sent");
});

test("pruned results are the placeholder as result, and ai@4 sends them as the tool message's content", async () => {
  const pruned = pruneForModel(history, EAGER);
  const cleared = pruned.flatMap((m) => (m.role === "tool" ? m.content : [])).filter((p) => p.result === PLACEHOLDER);
  assert.ok(cleared.length >= 2, `${cleared.length} results cleared`);
  // isError stays; a result with experimental_content is kept whole.
  assert.ok(cleared.some((p) => p.isError === true));
  for (const part of pruned.flatMap((m) => (m.role === "tool" ? m.content : []))) {
    if (part.experimental_content) assert.notEqual(part.result, PLACEHOLDER);
  }
  const messages = await sent(pruned);
  const toolContents = messages.filter((m) => m.role === "tool").map((m) => m.content);
  assert.ok(toolContents.includes(JSON.stringify(PLACEHOLDER)), toolContents.join("\n"));
  assert.ok(estimateTokens(pruned) < estimateTokens(history));
});

test("an emergency cut and a compaction marker are histories ai@4 accepts", async () => {
  const cut = emergencyPrune(history, Math.floor(estimateTokens(history) / 3));
  assert.ok(cut.length < history.length);
  await sent(cut);
  const marker = await compact(openAIChatGateway({ baseURL: server.openAIBaseURL }), "m", history);
  assert.deepEqual(Object.keys(marker), ["role", "content"]);
  const effective = effectiveHistory([...history, marker, { role: "user", content: "Go on." }]);
  assert.equal(effective.at(-2), marker);
  const messages = await sent(effective);
  const markerSent = messages.find((m) => m.role === "user" && JSON.stringify(m.content).includes("<kram:compaction_summary>"));
  assert.ok(markerSent, "the marker is sent as a user message");
});
