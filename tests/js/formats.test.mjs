// Every message format through the built package: detection, the
// `format` option, the mixing error, identity of unchanged messages, unknown
// fields surviving, pruned output still in the provider's shape, markers.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { estimateTokens, effectiveHistory, pruneForModel, emergencyPrune, describeMessages, HistoryMemo, MESSAGE_FORMATS } from "kram-compaction";
import { countedElements } from "../support/sessions.mjs";

const FORMATS = MESSAGE_FORMATS;
const PLACEHOLDER = "[Old tool result content cleared]";
const eager = { protectTurns: 1, protectTokens: 0, minimumSavings: 1 };

const fixture = (format) =>
  JSON.parse(readFileSync(new URL(`../fixtures/${format}.json`, import.meta.url), "utf8"));

function deepFreeze(value) {
  if (value && typeof value === "object") {
    Object.values(value).forEach(deepFreeze);
    Object.freeze(value);
  }
  return value;
}

/** Markers as a caller's store would hold them, written by hand per format. */
const TAGGED = "<kram:compaction_summary>\nThe build failed on a missing return; fixed.\n</kram:compaction_summary>";
const markers = {
  "openai-chat": { role: "system", name: "kram:compaction_summary", content: "The build failed on a missing return; fixed." },
  "ai-sdk": { role: "user", content: [{ type: "text", text: TAGGED }] },
  anthropic: { role: "user", content: [{ type: "text", text: TAGGED, cache_control: { type: "ephemeral" } }] },
  "openai-responses": { type: "message", role: "user", content: [{ type: "input_text", text: TAGGED }] },
  "ai-sdk-4": { role: "user", content: [{ type: "text", text: TAGGED }] },
  gemini: { role: "user", parts: [{ text: TAGGED }] },
  ollama: { role: "user", content: TAGGED },
  "ai-sdk-ui": { id: "summary-1", role: "user", parts: [{ type: "text", text: TAGGED }] },
  langchain: { lc: 1, type: "constructor", id: ["langchain_core", "messages", "HumanMessage"], kwargs: { content: TAGGED } },
};

/** The messages of `output` that are not the very objects of `input`. */
const changed = (input, output) => output.map((m, i) => (m === input[i] ? null : i)).filter((i) => i !== null);

test("each format is detected from the history: forcing it changes nothing", () => {
  for (const format of FORMATS) {
    const messages = fixture(format);
    assert.equal(estimateTokens(messages), estimateTokens(messages, { format }), format);
    assert.deepEqual(pruneForModel(messages, eager), pruneForModel(messages, { ...eager, format }), format);
  }
});

test("forcing a format the history is not in is a TypeError naming the message", () => {
  assert.throws(
    () => estimateTokens(fixture("openai-responses"), { format: "anthropic" }),
    (e) => e instanceof TypeError && e.message === 'messages[0].role must be "user" or "assistant", got "developer" (the system prompt is the request\'s `system`)',
  );
  assert.throws(
    () => estimateTokens(fixture("anthropic"), { format: "openai-chat" }),
    (e) => e instanceof TypeError && e.message === 'messages[0] is not a message of the format "openai-chat" that options.format names (its content[1].type "image" does not fit it)',
  );
  assert.throws(
    () => estimateTokens([], { format: "cohere" }),
    (e) => e instanceof TypeError && e.message === `options.format must be one of ${FORMATS.map((f) => `"${f}"`).join(", ")}, got "cohere"`,
  );
});

test("a history that mixes formats is a TypeError naming the first message that does not fit", () => {
  const mixed = [...fixture("ai-sdk").slice(0, 4), { type: "function_call_output", call_id: "call_1", output: "ok" }];
  assert.throws(
    () => pruneForModel(mixed),
    (e) =>
      e instanceof TypeError &&
      e.message === "effective[4] does not match the format of the messages before it (its field `type` does not fit ai-sdk; it reads as openai-responses): a history must not mix formats",
  );
  const anthropicThenChat = [...fixture("anthropic").slice(0, 3), { role: "assistant", content: "ok", tool_calls: [] }];
  assert.throws(() => effectiveHistory(anthropicThenChat), (e) => e instanceof TypeError && /^all\[3\] does not match/.test(e.message));
});

test("a plain history reads the same in every format it fits", () => {
  const plain = [
    { role: "user", content: "Hello" },
    { role: "assistant", content: [{ type: "text", text: "Hi, what are we fixing today?" }] },
  ];
  const tokens = estimateTokens(plain);
  for (const format of ["openai-chat", "ai-sdk", "anthropic"]) {
    assert.equal(estimateTokens(plain, { format }), tokens, format);
  }
});

test("detection reads a plain message's fields once for all the formats it fits, not once for each", () => {
  // Each read of a field, by name, over every message and part.
  const reads = {};
  const counted = (object) =>
    new Proxy(object, {
      get(target, key, receiver) {
        if (typeof key === "string") reads[key] = (reads[key] ?? 0) + 1;
        return Reflect.get(target, key, receiver);
      },
    });
  // Half the messages a string, half two text parts.
  const n = 200;
  const plain = Array.from({ length: n }, (_, i) => ({
    role: i % 2 ? "assistant" : "user",
    content: i % 4 < 2 ? `message ${i}` : [{ type: "text", text: `part of ${i}` }, { type: "text", text: "and more" }],
  }));
  const history = plain.map((message) =>
    counted({ ...message, content: Array.isArray(message.content) ? message.content.map(counted) : message.content }),
  );
  assert.equal(estimateTokens(history), estimateTokens(plain));
  const perMessage = (key) => (reads[key] ?? 0) / n;
  // Each format's check reading for itself read a message's role 5 times,
  // its content 5, `tool_calls` 8 and `type` (its own and its parts') 9.3;
  // now the checks read each once together (`Facts`), and the reader
  // again: 2.0, 2.0, 2.0 and 3.3.
  assert.ok(perMessage("role") < 2.5, `role read ${perMessage("role")} times a message`);
  assert.ok(perMessage("content") < 2.5, `content read ${perMessage("content")} times a message`);
  assert.ok(perMessage("tool_calls") < 2.5, `tool_calls read ${perMessage("tool_calls")} times a message`);
  assert.ok(perMessage("type") < 4, `type read ${perMessage("type")} times a message`);
});

test("pruning keeps unchanged messages as the very objects and changes only payloads", () => {
  for (const format of FORMATS) {
    const input = deepFreeze(fixture(format));
    const output = pruneForModel(input, eager);
    const edited = changed(input, output);
    assert.ok(edited.length >= 2, `${format}: old tool results pruned`);
    for (const index of edited) {
      const before = JSON.stringify(input[index]);
      const after = JSON.stringify(output[index]);
      assert.notEqual(before, after);
      assert.ok(after.includes(PLACEHOLDER), `${format} ${index}`);
    }
    // The output is the same format, and pruning it again changes nothing.
    assert.equal(estimateTokens(output, { format }), estimateTokens(output));
    const again = pruneForModel(output, eager);
    assert.deepEqual(changed(output, again), [], format);
    assert.ok(estimateTokens(output) < estimateTokens(input));
  }
});

test("AI SDK: outputs become { type: 'text' | 'error-text', value }, providerOptions survive", () => {
  const input = deepFreeze(fixture("ai-sdk"));
  const output = pruneForModel(input, eager);
  const part = output[3].content[0];
  assert.deepEqual(part.output, { type: "text", value: PLACEHOLDER });
  assert.deepEqual(part.providerOptions, { anthropic: { cacheControl: { type: "ephemeral" } } });
  assert.equal(part.toolCallId, "toolu_01A");
  assert.equal(output[3].content[1].output.type, "text", "json output");
  assert.deepEqual(output[5].content[0].output, { type: "error-text", value: PLACEHOLDER });
  assert.deepEqual(output[9].content[1].output, { type: "text", value: PLACEHOLDER }, "content output with media");
  assert.equal(output[2], input[2], "reasoning with its providerOptions signature: the same object");
  assert.equal(output[9].content[0].output.value, PLACEHOLDER);
});

test("Anthropic: tool_result content becomes the placeholder; cache_control, is_error and thinking survive", () => {
  const input = deepFreeze(fixture("anthropic"));
  const output = pruneForModel(input, eager);
  assert.deepEqual(output[2].content[1], {
    type: "tool_result",
    tool_use_id: "toolu_01Aq9gSBf8Rqb2WkQ7XnP3cd",
    content: PLACEHOLDER,
    cache_control: { type: "ephemeral" },
  });
  assert.equal(output[4].content[0].is_error, true);
  assert.equal(output[8].content[1], input[8].content[1], "the user's text block is the same object");
  for (const index of [1, 3, 5]) {
    assert.equal(output[index], input[index], "thinking, signatures and redacted thinking untouched");
  }
});

test("Anthropic: an emergency cut never starts at a tool_result message", () => {
  const input = fixture("anthropic");
  const total = estimateTokens(input);
  for (let budget = 1; budget <= total; budget += 50) {
    const output = emergencyPrune(input, budget);
    const first = output[0];
    assert.equal(first.role, "user");
    assert.ok(typeof first.content === "string" || !first.content.some((b) => b.type === "tool_result"), `budget ${budget}`);
    const used = new Set(output.flatMap((m) => (Array.isArray(m.content) ? m.content : [])).filter((b) => b.type === "tool_use").map((b) => b.id));
    const answered = new Set(output.flatMap((m) => (Array.isArray(m.content) ? m.content : [])).filter((b) => b.type === "tool_result").map((b) => b.tool_use_id));
    assert.deepEqual([...used].sort(), [...answered].sort());
  }
});

test("Responses: outputs become the placeholder string; calls stay paired and reasoning with its item", () => {
  const input = deepFreeze(fixture("openai-responses"));
  const output = pruneForModel(input, eager);
  assert.equal(output[5].output, PLACEHOLDER);
  assert.equal(output[6].output, PLACEHOLDER, "an array output becomes the string");
  assert.equal(output[2], input[2], "reasoning with encrypted_content untouched");
  const total = estimateTokens(input);
  for (let budget = 1; budget <= total; budget += 40) {
    const cut = emergencyPrune(input, budget);
    const calls = new Set(cut.filter((i) => i.type?.endsWith("_call") && i.call_id).map((i) => i.call_id));
    const outputs = new Set(cut.filter((i) => i.type?.endsWith("_call_output")).map((i) => i.call_id));
    assert.deepEqual([...calls].sort(), [...outputs].sort(), `budget ${budget}`);
    cut.forEach((item, k) => {
      if (item.type === "reasoning") assert.equal(cut[k + 1], input[input.indexOf(item) + 1]);
    });
  }
});

test("markers written in each format are found by effectiveHistory", () => {
  for (const format of FORMATS) {
    const all = fixture(format);
    const marker = markers[format];
    all.splice(6, 0, marker);
    const effective = effectiveHistory(all);
    // The leading system messages (instructions) first, then the marker.
    const instructions = describeMessages(all).messages.findIndex((m) => m.kind !== "system" && m.kind !== "other");
    assert.deepEqual(effective, [...all.slice(0, instructions), ...all.slice(6)], format);
    assert.equal(effective[instructions], marker, format);
    // The marker leads every emergency cut and is never pruned.
    assert.equal(emergencyPrune(effective, 1)[instructions], marker, format);
    assert.equal(pruneForModel(effective, eager)[instructions], marker, format);
  }
});

test("in a long history, effectiveHistory finds each format's marker reading each older message once, as a whole read does", () => {
  // A history this long is searched from the end (src/newest_first/), where
  // the messages that may be markers are found in one call into JS for many
  // (markerCandidates in src/bindings/guarded.js) and only those are read.
  for (const format of FORMATS) {
    const session = fixture(format);
    const long = Array.from({ length: Math.ceil(400 / session.length) }, () => session).flat();
    const whole = (messages) => new HistoryMemo().effectiveHistory(messages);
    const at = long.length - 100;
    for (const marked of [[...long.slice(0, at), markers[format], ...long.slice(at)], long]) {
      const search = countedElements(marked);
      const effective = effectiveHistory(search.proxy);
      assert.deepEqual(effective, whole(marked), format);
      // Each message from the end once, in windows of 32 and then 128 (the
      // marker, 101 from the end, is in the second), the few that may be
      // markers again, the leading messages and the answer's elements.
      const searched = marked === long ? long.length : 32 + 128;
      assert.ok(search.count.reads <= searched + effective.length + 16, `${format}: ${search.count.reads} element reads`);
      if (marked !== long) {
        const instructions = describeMessages(session).messages.findIndex((m) => m.kind !== "system" && m.kind !== "other");
        assert.equal(effective[instructions], markers[format], format);
        assert.equal(effective.length, instructions + 101, format);
      }
    }
  }
});

test("the README's Message formats table has a row for every format, in MESSAGE_FORMATS order", () => {
  const readme = readFileSync(new URL("../../README.md", import.meta.url), "utf8");
  const table = readme.slice(readme.indexOf("| format | detected by |"));
  const rows = [...table.slice(0, table.indexOf("\n\n")).matchAll(/^\| `([a-z0-9-]+)`/gm)].map((m) => m[1]);
  assert.deepEqual(rows, [...FORMATS]);
});

test("issue #15's table: each shape reads as its own format, and every other format refuses it", async () => {
  const { HumanMessage, AIMessage, ToolMessage } = await import("@langchain/core/messages");
  const shapes = {
    gemini: [{ role: "user", parts: [{ text: "hi" }] }, { role: "model", parts: [{ functionCall: { name: "f", args: {} } }] }],
    langchain: [{ lc: 1, type: "constructor", id: ["langchain_core", "messages", "HumanMessage"], kwargs: { content: "hi" } }],
    "langchain instances": [
      new HumanMessage("hi"),
      new AIMessage({ content: "", tool_calls: [{ id: "c1", name: "f", args: {} }] }),
      new ToolMessage({ content: "ok", tool_call_id: "c1" }),
    ],
    ollama: [
      { role: "user", content: "hi" },
      { role: "assistant", content: "", tool_calls: [{ function: { name: "f", arguments: { a: 1 } } }] },
      { role: "tool", content: "ok", tool_name: "f" },
    ],
    "ai-sdk-4": [
      { role: "assistant", content: [{ type: "tool-call", toolCallId: "c1", toolName: "f", args: {} }] },
      { role: "tool", content: [{ type: "tool-result", toolCallId: "c1", toolName: "f", result: "ok" }] },
    ],
    "ai-sdk-ui": [
      { id: "u", role: "user", parts: [{ type: "text", text: "hi" }] },
      { id: "a", role: "assistant", parts: [{ type: "step-start" }, { type: "tool-f", toolCallId: "c1", state: "output-available", input: {}, output: "ok" }] },
    ],
  };
  for (const [name, history] of Object.entries(shapes)) {
    const format = name === "langchain instances" ? "langchain" : name;
    assert.equal(describeMessages(history).format, format, name);
    for (const other of FORMATS.filter((f) => f !== format)) {
      assert.throws(() => estimateTokens(history, { format: other }), TypeError, `${name} forced as ${other}`);
    }
  }
});
