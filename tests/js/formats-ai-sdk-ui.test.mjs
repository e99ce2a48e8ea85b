// AI SDK UIMessages, what useChat keeps, through AI SDK 6 itself: the
// fixture and everything the tiers make of it pass `validateUIMessages`, and
// `convertToModelMessages` then `generateText` (with @ai-sdk/openai's chat
// model) send them to the loopback server.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { convertToModelMessages, generateText, validateUIMessages } from "ai";
import { createOpenAI } from "@ai-sdk/openai";
import { compact, ContextManager, describeMessages, effectiveHistory, emergencyPrune, estimateTokens, openAIChatGateway, pruneForModel } from "kram-compaction";
import { startModelServer } from "../support/model-server.mjs";
import { deepFreeze } from "../support/sessions.mjs";

const PLACEHOLDER = "[Old tool result content cleared]";
const history = deepFreeze(JSON.parse(readFileSync(new URL("../fixtures/ai-sdk-ui.json", import.meta.url), "utf8")));
const EAGER = { protectTurns: 1, protectTokens: 0, minimumSavings: 0 };

let server;
before(async () => {
  server = await startModelServer();
});
after(() => server.close());

/** What the chat UI's server route sends for `messages`: AI SDK's own validation, conversion and request. */
async function sent(messages) {
  await validateUIMessages({ messages: structuredClone(messages) });
  const before = server.requests.length;
  const openai = createOpenAI({ apiKey: "test", baseURL: server.openAIBaseURL });
  const system = messages[0].role === "system" ? messages[0].parts.map((p) => p.text).join("") : undefined;
  const rest = system === undefined ? messages : messages.slice(1);
  await generateText({ model: openai.chat("gpt-4o-mini"), system, messages: await convertToModelMessages(rest) });
  return server.requests[before].json.messages;
}

const toolParts = (messages) => messages.flatMap((m) => m.parts).filter((p) => p.type.startsWith("tool-") || p.type === "dynamic-tool");

test("the shape useChat keeps is read as ai-sdk-ui, never as Gemini or a content format", () => {
  const issue = [
    { id: "u1", role: "user", parts: [{ type: "text", text: "hi" }] },
    { id: "a1", role: "assistant", parts: [{ type: "step-start" }, { type: "reasoning", text: "hmm" }, { type: "tool-weather", toolCallId: "c1", state: "output-available", input: { city: "Oslo" }, output: "rain" }] },
  ];
  const description = describeMessages(issue);
  assert.equal(description.format, "ai-sdk-ui");
  assert.ok(description.messages[1].tokens > 4, "the parts are counted");
  assert.equal(describeMessages(history).format, "ai-sdk-ui");
  // AI SDK 4's UI messages carry `content` beside `parts`: refused, not misread.
  assert.throws(
    () => estimateTokens([{ id: "m", role: "user", content: "hi", parts: [{ type: "text", text: "hi" }] }]),
    (e) => e instanceof TypeError && /^messages\[0\]/.test(e.message),
  );
});

test("the fixture is valid for AI SDK 6 and sent as it is", async () => {
  const messages = await sent(history);
  assert.ok(messages.some((m) => m.role === "tool"), "tool results are sent");
});

test("pruned outputs and error texts become the placeholder; AI SDK sends it as the tool message", async () => {
  const pruned = pruneForModel(history, EAGER);
  const cleared = toolParts(pruned).filter((p) => p.output === PLACEHOLDER || p.errorText === PLACEHOLDER);
  assert.ok(cleared.length >= 3, `${cleared.length} results cleared`);
  assert.ok(cleared.some((p) => p.state === "output-error"));
  // The part keeps its id, state and input; the user's messages are the very objects.
  for (const part of cleared) assert.ok(part.toolCallId && part.state && "input" in part);
  assert.equal(pruned[1], history[1]);
  const messages = await sent(pruned);
  const toolContents = messages.filter((m) => m.role === "tool").map((m) => m.content);
  assert.ok(toolContents.includes(PLACEHOLDER), toolContents.join("\n"));
  assert.ok(estimateTokens(pruned) < estimateTokens(history));
});

test("a tool part of a user message is never sent, so it counts nothing and is never pruned", async () => {
  // `convertToModelMessages` sends a user message's text, file and data
  // parts alone; a tool part there (a UI that stored one) is dropped.
  const tool = { type: "tool-readFile", toolCallId: "c9", state: "output-available", input: { path: "a.ts" }, output: "x".repeat(4000) };
  const plain = { id: "u9", role: "user", parts: [{ type: "text", text: "Go on." }] };
  const withTool = { ...plain, parts: [...plain.parts, tool] };
  const [first, second] = [[...history, plain], [...history, withTool]].map((messages) => describeMessages(messages).messages.at(-1).tokens);
  assert.equal(second, first, "the tool part counts nothing");
  const messages = await sent([...history, withTool]);
  assert.ok(!JSON.stringify(messages).includes(tool.output), "AI SDK sends none of it");
  const pruned = pruneForModel([...history, withTool, { id: "u10", role: "user", parts: [{ type: "text", text: "Thanks." }] }], EAGER);
  assert.equal(pruned.at(-2), withTool, "nothing of it is cleared");
});

test("an emergency cut, and compact's UI marker, are histories AI SDK accepts", async () => {
  const cut = emergencyPrune(history, Math.floor(estimateTokens(history) / 3));
  assert.ok(cut.length < history.length);
  assert.equal(cut[0], history[0], "the system message stays");
  await sent(cut);
  const marker = await compact(openAIChatGateway({ baseURL: server.openAIBaseURL }), "m", history);
  assert.equal(marker.role, "user");
  assert.match(marker.id, /^kram-compaction-summary-\d+$/);
  assert.deepEqual(Object.keys(marker.parts[0]), ["type", "text"]);
  const next = { id: "u-next", role: "user", parts: [{ type: "text", text: "Go on." }] };
  const effective = effectiveHistory([...history, marker, next]);
  assert.deepEqual(effective, [history[0], marker, next]);
  const messages = await sent(effective);
  assert.ok(messages.some((m) => m.role === "user" && JSON.stringify(m.content).includes("<kram:compaction_summary>")));
});

test("ContextManager.prepare runs every tier on UI messages", async () => {
  const manager = new ContextManager({ gateway: openAIChatGateway({ baseURL: server.openAIBaseURL }), model: "m", maxTokens: Math.floor(estimateTokens(history) / 2) });
  const result = await manager.prepare(history);
  assert.ok(["pruned", "compacted"].includes(result.tier), result.tier);
  assert.ok(estimateTokens(result.messages) <= Math.floor(estimateTokens(history) / 2));
  await sent(result.messages);
});
