// LangChain.js messages, serialised (`JSON.stringify`, LangGraph checkpoints)
// and live (instances of @langchain/core's classes): read as one format, the
// caller's instances kept, changed ones rebuilt through the caller's own
// classes, and the result sent through LangChain's ChatOpenAI to a loopback
// server.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { AIMessage, HumanMessage, SystemMessage, ToolMessage, AIMessageChunk } from "@langchain/core/messages";
import { load } from "@langchain/core/load";
import { FakeListChatModel } from "@langchain/core/utils/testing";
import { ChatOpenAI } from "@langchain/openai";
import { compact, describeMessages, effectiveHistory, emergencyPrune, estimateTokens, HistoryMemo, pruneForModel } from "kram-compaction";
import { deepFreeze } from "../support/sessions.mjs";
import { startModelServer } from "../support/model-server.mjs";

const PLACEHOLDER = "[Old tool result content cleared]";
const eager = { minimumSavings: 0, protectTokens: 0, protectTurns: 0 };
const serialised = () => JSON.parse(readFileSync(new URL("../fixtures/langchain.json", import.meta.url), "utf8"));
/** The fixture as @langchain/core's own instances, revived by its `load`. */
const instances = () => Promise.all(serialised().map((message) => load(JSON.stringify(message))));

test("a serialised message is read as langchain, never as openai-responses", () => {
  const messages = serialised();
  assert.equal(describeMessages(messages).format, "langchain");
  for (const format of ["openai-chat", "ai-sdk", "anthropic", "openai-responses"]) {
    assert.throws(() => estimateTokens(messages, { format }), (error) => {
      assert.ok(error instanceof TypeError, format);
      assert.match(error.message, /^messages\[0\]/, format);
      return true;
    });
  }
  // After a Responses item, the serialised message is refused by its `lc`.
  const mixed = [{ type: "message", role: "user", content: [{ type: "input_text", text: "hi" }] }, messages[1]];
  assert.throws(() => estimateTokens(mixed), {
    name: "TypeError",
    message: /^messages\[1\] does not match the format of the messages before it \(its field `lc` does not fit openai-responses; it reads as langchain\)/,
  });
  // One message alone, the shape openai-responses accepted before (a string `type`).
  const one = [{ lc: 1, type: "constructor", id: ["langchain_core", "messages", "HumanMessage"], kwargs: { content: "hi" } }];
  assert.equal(describeMessages(one).format, "langchain");
});

test("live instances are read as langchain and estimate as their serialised form does", async () => {
  const live = await instances();
  assert.equal(live[3].getType(), "tool");
  assert.equal(describeMessages(live).format, "langchain");
  assert.equal(estimateTokens(live), estimateTokens(serialised()));
  assert.deepEqual(
    describeMessages(live).messages.map((m) => m.estimatedTokens),
    describeMessages(serialised()).messages.map((m) => m.estimatedTokens),
  );
  for (const format of ["openai-chat", "ai-sdk", "anthropic", "openai-responses"]) {
    assert.throws(() => estimateTokens(live, { format }), { name: "TypeError", message: /^messages\[0\]/ }, format);
  }
});

test("pruning a live history keeps the caller's instances and rebuilds a cleared ToolMessage through its class", async () => {
  const live = await instances();
  const before = JSON.stringify(live);
  const out = pruneForModel(live, eager);
  const changed = out.map((m, i) => (m === live[i] ? null : i)).filter((i) => i !== null);
  assert.deepEqual(changed, [3, 4, 8]);
  for (const i of changed) {
    const message = out[i];
    assert.ok(message instanceof ToolMessage);
    assert.equal(message.getType(), "tool");
    assert.equal(message._getType(), "tool");
    assert.equal(message.content, PLACEHOLDER);
    assert.equal(message.tool_call_id, live[i].tool_call_id);
    assert.equal(message.status, live[i].status);
    assert.deepEqual(message.artifact, live[i].artifact);
    assert.equal(message.id, live[i].id);
    // Serialisation carries the placeholder, and load revives it.
    const text = JSON.stringify(message);
    assert.equal(JSON.parse(text).kwargs.content, PLACEHOLDER);
    const revived = await load(text);
    assert.ok(revived instanceof ToolMessage);
    assert.equal(revived.content, PLACEHOLDER);
  }
  assert.equal(JSON.stringify(live), before, "the caller's messages are not changed");
  // A second pass finds nothing left to clear.
  const again = pruneForModel(out, eager);
  assert.ok(again.every((m, i) => m === out[i]));
});

test("pruning a serialised history replaces kwargs.content only, on frozen input", () => {
  const messages = deepFreeze(serialised());
  const out = pruneForModel(messages, eager);
  for (const [i, message] of out.entries()) {
    if (message === messages[i]) continue;
    assert.deepEqual(message, { ...messages[i], kwargs: { ...messages[i].kwargs, content: PLACEHOLDER } });
  }
  assert.notDeepEqual(out, messages);
});

test("pruning a long history reads an older AIMessage or SystemMessage for its class, or live for its type, alone, and answers as a whole read does", async () => {
  // The fixture's ten messages forty times: serialised, and as live
  // instances. Every AIMessage and SystemMessage is watched: the reads
  // newest first find their role by the class a serialised one names last
  // in its `id` (a live one's `type`), many at a time, and need nothing
  // else of them once the newest 32 messages are read.
  const repeat = (messages) => Array.from({ length: 40 }, () => messages).flat();
  for (const [name, history] of [["serialised", deepFreeze(repeat(serialised()))], ["live", repeat(await instances())]]) {
    const read = new Set();
    const classOf = (message) => (name === "live" ? message.type : message.id.at(-1));
    const watched = history.map((message, i) =>
      !["ai", "system", "AIMessage", "SystemMessage"].includes(classOf(message))
        ? message
        : new Proxy(message, { get: (target, key) => (!["role", "type", "id"].includes(key) && read.add(i), Reflect.get(target, key)) }),
    );
    const options = { protectTokens: 2_000, minimumSavings: 0 };
    const pruned = pruneForModel(watched, options);
    const oldest = Math.min(...read);
    assert.ok(oldest >= history.length - 32, `${name}: message ${oldest} was read`);
    const whole = new HistoryMemo().pruneForModel(history, options);
    assert.equal(JSON.stringify(pruned), JSON.stringify(whole), name);
    const cleared = pruned.filter((message, i) => message !== watched[i]);
    assert.ok(cleared.length > 50, `${name}: ${cleared.length} cleared`);
    assert.ok(cleared.every((message) => classOf(message).startsWith(name === "live" ? "tool" : "ToolMessage")), name);
  }
});

test("pruning a long serialised history reads an older ToolMessage's kwargs for its content alone, then copies it", () => {
  // Each ToolMessage's `kwargs` is watched. Its older messages, whose
  // results are all cleared, are read for `kwargs.content` once, many at a
  // time, and copied with the placeholder there by a spread, which reads
  // each field once more: never a field twice but `content`. A read by the
  // format's reader and then a copy reads every field twice.
  const history = Array.from({ length: 40 }, () => serialised()).flat();
  const reads = history.map(() => new Map());
  const watched = history.map((message, i) => {
    if (message.id.at(-1) !== "ToolMessage") return message;
    const kwargs = new Proxy(message.kwargs, {
      get: (target, key) => (reads[i].set(key, (reads[i].get(key) ?? 0) + 1), Reflect.get(target, key)),
    });
    return { ...message, kwargs };
  });
  const options = { protectTokens: 2_000, minimumSavings: 0 };
  const pruned = pruneForModel(watched, options);
  assert.equal(JSON.stringify(pruned), JSON.stringify(pruneForModel(history, options)));
  const older = reads.slice(0, history.length - 32).filter((read) => read.size > 0);
  assert.ok(older.length > 50, `${older.length} older ToolMessages`);
  for (const read of older) {
    assert.equal(read.get("content"), 2, JSON.stringify([...read]));
    for (const [key, count] of read) if (key !== "content") assert.equal(count, 1, `${key}: ${JSON.stringify([...read])}`);
  }
});

test("images, files and standard blocks count the fixed 1,000 tokens", () => {
  const text = new HumanMessage("Look at this.");
  const base = estimateTokens([text]);
  for (const block of [
    { type: "image_url", image_url: { url: "data:image/png;base64," + "A".repeat(40_000) } },
    { type: "image", source_type: "base64", mime_type: "image/png", data: "A".repeat(40_000) },
    { type: "image", url: "https://example.com/a.png" },
    { type: "file", mimeType: "application/pdf", data: "A".repeat(40_000) },
  ]) {
    const message = new HumanMessage({ content: [{ type: "text", text: "Look at this." }, block] });
    assert.equal(estimateTokens([message]) - base, 1000, block.type);
  }
});

test("turns start at HumanMessages and a cut never separates an AIMessage's tool call from its ToolMessage", async () => {
  const live = await instances();
  const turns = describeMessages(live).messages.map((m) => m.startsUserTurn);
  assert.deepEqual(turns, live.map((m) => m instanceof HumanMessage));
  for (let budget = 50; budget < estimateTokens(live); budget += 50) {
    const cut = emergencyPrune(live, budget);
    const ids = new Set(cut.flatMap((m) => m.tool_calls?.map((call) => call.id) ?? []));
    for (const message of cut) {
      if (message instanceof ToolMessage) assert.ok(ids.has(message.tool_call_id), `budget ${budget}`);
    }
    assert.ok(cut.every((m) => live.includes(m)), "kept messages are the caller's instances");
  }
});

test("chunks read as their messages: AIMessageChunk tool calls pair with ToolMessages", () => {
  const history = [
    new HumanMessage("List the files."),
    new AIMessageChunk({ content: "", tool_calls: [{ id: "c1", name: "ls", args: {} }] }),
    new ToolMessage({ content: "a.txt\nb.txt\n".repeat(200), tool_call_id: "c1" }),
    new AIMessageChunk({ content: "Two files." }),
  ];
  assert.deepEqual(
    describeMessages(history).messages.map((m) => m.kind),
    ["user", "assistant", "tool", "assistant"],
  );
  const out = pruneForModel(history, eager);
  assert.equal(out[2].content, PLACEHOLDER);
  assert.ok(out[2] instanceof ToolMessage);
});

test("compact: the marker of a live history is a HumanMessage of the caller's class; effectiveHistory finds it", async () => {
  const live = await instances();
  const marker = await compact(() => "## Objective\nFree disk space on the build server.", "m", live);
  assert.ok(marker instanceof HumanMessage);
  assert.equal(marker.getType(), "human");
  assert.match(marker.content, /^<kram:compaction_summary>\n[^]*## Objective\nFree disk space on the build server\.\n[^]*<\/kram:compaction_summary>$/);
  const stored = [...live, marker, new HumanMessage("Go on.")];
  const effective = effectiveHistory(stored);
  assert.deepEqual(effective, [live[0], marker, stored.at(-1)]);
  const revived = await load(JSON.stringify(marker));
  assert.ok(revived instanceof HumanMessage);
  assert.equal(revived.content, marker.content);
});

test("compact: with no HumanMessage instance the marker is the serialised HumanMessage, which load revives", async () => {
  const history = [new SystemMessage("Be brief."), new AIMessage("Earlier answer. ".repeat(50))];
  const marker = await compact(() => "## Objective\nx", "m", history);
  assert.deepEqual(marker.id, ["langchain_core", "messages", "HumanMessage"]);
  const revived = await load(JSON.stringify(marker));
  assert.ok(revived instanceof HumanMessage);
  assert.equal(describeMessages([...history, marker]).messages[2].isMarker, true);
});

test("bad input is a TypeError naming the index and field", () => {
  const bad = serialised();
  bad[2].kwargs.tool_calls[0].id = 7;
  assert.throws(() => estimateTokens(bad), { name: "TypeError", message: "messages[2].kwargs.tool_calls[0].id must be a string, got number" });
  const noId = [{ lc: 1, type: "constructor", id: [], kwargs: {} }];
  assert.throws(() => estimateTokens(noId), { name: "TypeError", message: "messages[0].id must be a non-empty array of strings, got array" });
  const liveTool = [{ lc_kwargs: {}, type: "tool", content: "x" }];
  assert.throws(() => estimateTokens(liveTool), { name: "TypeError", message: "messages[0].tool_call_id must be a string, got undefined" });
  const content = [new HumanMessage("x")];
  Object.defineProperty(content[0], "content", { get() { throw new Error("boom"); } });
  assert.throws(() => estimateTokens(content), { name: "TypeError", message: "messages[0].content could not be read: it threw boom" });
});

let server;

before(async () => {
  server = await startModelServer({ reply: () => "Understood." });
});

after(() => server.close());

test("round trip: LangChain's ChatOpenAI sends the pruned and compacted instances as a valid request", async () => {
  const live = await instances();
  const marker = await compact(() => "## Objective\nFree disk space.", "m", live.slice(0, 6));
  const history = pruneForModel([live[0], marker, ...live.slice(6)], eager);
  const model = new ChatOpenAI({ model: "gpt-4o-mini", apiKey: "test", maxRetries: 0, configuration: { baseURL: server.openAIBaseURL } });
  const reply = await model.invoke(history);
  assert.ok(reply instanceof AIMessage);
  assert.equal(reply.content, "Understood.");
  const { path, json: body } = server.requests.at(-1);
  assert.equal(path, "/v1/chat/completions");
  assert.deepEqual(body.messages.map((m) => m.role), ["system", "user", "user", "assistant", "tool", "assistant"]);
  assert.equal(body.messages[1].content, marker.content);
  assert.match(body.messages[1].content, /^<kram:compaction_summary>\n[^]*## Objective\nFree disk space\./);
  assert.deepEqual(body.messages[4], { role: "tool", content: PLACEHOLDER, tool_call_id: "call_clean", name: "bash" });
  assert.equal(body.messages[3].tool_calls[0].id, "call_clean");
  // The same history through @langchain/core's own fake chat model.
  const fake = new FakeListChatModel({ responses: ["ok"] });
  assert.equal((await fake.invoke(history)).content, "ok");
});

test("real LangGraph.js recordings (vercel/ai's fixtures) read serialised and revived by load, alike", async () => {
  const { loadRealSessions } = await import("../support/real-sessions.mjs");
  const recorded = loadRealSessions().filter((s) => s.format === "langchain");
  assert.equal(recorded.length, 3);
  for (const { name, messages } of recorded) {
    const live = await Promise.all(messages.map((m) => load(JSON.stringify(m))));
    assert.equal(describeMessages(messages).format, "langchain", name);
    assert.equal(describeMessages(live).format, "langchain", name);
    assert.equal(estimateTokens(live), estimateTokens(messages), name);
    const out = pruneForModel(live, eager);
    const tools = live.filter((m) => m instanceof ToolMessage);
    assert.equal(out.filter((m, i) => m !== live[i]).length, tools.length, name);
    for (const message of out.filter((m, i) => m !== live[i])) {
      assert.ok(message instanceof ToolMessage, name);
      assert.equal(JSON.parse(JSON.stringify(message)).kwargs.content, PLACEHOLDER, name);
    }
  }
});

test("frozen instances are read, not changed; a constructor that throws is a TypeError naming the message", async () => {
  const live = deepFreeze(await instances());
  const out = pruneForModel(live, eager);
  assert.equal(out[3].content, PLACEHOLDER);
  assert.notEqual(live[3].content, PLACEHOLDER);
  class Broken extends ToolMessage {
    constructor(fields) {
      super(fields);
      if (fields.content === PLACEHOLDER) throw new Error("no placeholder here");
    }
  }
  const history = [new HumanMessage("x"), new AIMessage({ content: "", tool_calls: [{ id: "c", name: "f", args: {} }] }), new Broken({ content: "y".repeat(9000), tool_call_id: "c" })];
  assert.throws(() => pruneForModel(history, eager), {
    name: "TypeError",
    message: "effective[2] could not be rebuilt through its constructor: it threw no placeholder here",
  });
});

test("ContextManager.prepare on live instances: the marker it appends is a HumanMessage, the kept messages the caller's", async () => {
  const { ContextManager } = await import("kram-compaction");
  const live = await instances();
  const manager = new ContextManager({ gateway: () => "## Objective\nshort", model: "m", maxTokens: Math.floor(estimateTokens(live) / 2), prune: { minimumSavings: 0, protectTokens: 0 } });
  const out = await manager.prepare(live);
  assert.equal(out.tier, "compacted", out.reason);
  assert.ok(out.append[0] instanceof HumanMessage);
  for (const message of out.messages) {
    assert.ok(live.includes(message) || message === out.append[0] || message instanceof ToolMessage);
  }
  assert.equal(effectiveHistory([...live, ...out.append])[1], out.append[0]);
});
