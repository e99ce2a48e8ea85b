// The history functions through the JS boundary: identity of unchanged
// messages, unknown fields, no mutation, and the errors bad input gets.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import * as kram from "kram-compaction";
import { aiSdkSession, codingSession, countedElements } from "../support/sessions.mjs";
import { loadRealSessions } from "../support/real-sessions.mjs";

const { estimateTokens, needsCompaction, effectiveHistory, pruneForModel, emergencyPrune } = kram;
const MARKER = "kram:compaction_summary";

/** A session of `turns` user turns, each with two parallel tool calls. */
function session(turns, outputLines = 400) {
  const messages = [{ role: "system", content: "You are a coding agent.", cache_control: { type: "ephemeral" } }];
  for (let turn = 0; turn < turns; turn++) {
    messages.push({ role: "user", content: `Step ${turn}: run the tests and fix what fails.` });
    const ids = [`call_${turn}_a`, `call_${turn}_b`];
    messages.push({
      role: "assistant",
      content: null,
      reasoning_content: "I should look at the files first.",
      tool_calls: ids.map((id) => ({ id, type: "function", function: { name: "read_file", arguments: '{"path":"src/lib.rs"}' } })),
    });
    for (const id of ids) {
      messages.push({ role: "tool", tool_call_id: id, content: `fn line_${turn}() -> u32 { 42 }\n`.repeat(outputLines), provider_meta: { id } });
    }
    messages.push({ role: "assistant", content: `Done with step ${turn}.` });
  }
  return messages;
}

function deepFreeze(value) {
  if (value && typeof value === "object") {
    Object.values(value).forEach(deepFreeze);
    Object.freeze(value);
  }
  return value;
}

test("the constants", () => {
  assert.equal(kram.COMPACTION_MARKER_NAME, MARKER);
  assert.equal(kram.DEFAULT_MAX_TOKENS, 60000);
});

test("estimateTokens is a whole number, additive over messages", () => {
  const messages = session(3);
  const total = estimateTokens(messages);
  assert.ok(Number.isInteger(total) && total > 0);
  assert.equal(total, messages.reduce((sum, m) => sum + estimateTokens([m]), 0));
  assert.equal(estimateTokens([]), 0);
});

test("needsCompaction compares the estimate with the budget, default 60,000", () => {
  const messages = session(3);
  const total = estimateTokens(messages);
  assert.equal(needsCompaction(messages, total), false);
  assert.equal(needsCompaction(messages, total - 1), true);
  assert.equal(needsCompaction(messages), total > 60000);
  for (const bad of [0, -5, NaN, Infinity]) {
    assert.throws(() => needsCompaction(messages, bad), (e) => e instanceof RangeError && /maxTokens/.test(e.message));
  }
  assert.throws(() => needsCompaction(messages, "100"), (e) => e instanceof TypeError && /maxTokens must be a number/.test(e.message));
});

test("effectiveHistory starts at the newest marker and returns the same objects", () => {
  const marker1 = { role: "system", name: MARKER, content: "first summary" };
  const marker2 = { role: "system", name: MARKER, content: "second summary", extra: true };
  const all = [...session(1), marker1, ...session(1).slice(1), marker2, { role: "user", content: "go on" }];
  const effective = effectiveHistory(all);
  // The leading system message is an instruction: sent first, then the marker.
  assert.equal(effective.length, 3);
  assert.equal(effective[0], all[0]);
  assert.equal(effective[1], marker2);
  assert.equal(effective[2], all.at(-1));
  assert.deepEqual(effectiveHistory(effective), effective);
  const plain = session(2);
  assert.deepEqual(effectiveHistory(plain), plain);
  assert.notEqual(effectiveHistory(plain), plain, "a new array, never the input array");
});

test("pruneForModel clears old tool results only, as new objects with every field kept", () => {
  const input = deepFreeze(session(6));
  const snapshot = structuredClone(input);
  const output = pruneForModel(input, { protectTurns: 2, protectTokens: 0, minimumSavings: 1 });
  assert.deepEqual(input, snapshot, "the input is untouched");
  assert.equal(output.length, input.length);
  let cleared = 0;
  output.forEach((message, i) => {
    const original = input[i];
    if (message === original) return;
    cleared++;
    assert.equal(original.role, "tool");
    assert.equal(message.content, "[Old tool result content cleared]");
    assert.deepEqual({ ...message, content: original.content }, original, "only content differs");
    assert.equal(message.provider_meta, original.provider_meta, "nested fields are shared, not copied");
  });
  assert.equal(cleared, 8, "the tool results of the four older turns");
  const lastTwoTurns = input.findLastIndex((m, i) => m.role === "user" && input.slice(i + 1).filter((n) => n.role === "user").length === 1);
  output.slice(lastTwoTurns).forEach((message, i) => assert.equal(message, input[lastTwoTurns + i]));
});

test("pruneForModel changes nothing below minimumSavings, and honours placeholder", () => {
  const input = session(6, 5);
  const output = pruneForModel(input);
  output.forEach((message, i) => assert.equal(message, input[i]));
  const custom = pruneForModel(session(6), { protectTokens: 0, minimumSavings: 0, placeholder: "[gone]" });
  assert.ok(custom.some((m) => m.content === "[gone]"));
  const again = pruneForModel(custom, { protectTokens: 0, minimumSavings: 0, placeholder: "[gone]" });
  again.forEach((message, i) => assert.equal(message, custom[i], "already-cleared results are not touched again"));
});

test("emergencyPrune keeps the leading system message and whole newest turns, or the newest steps", () => {
  const input = session(5);
  assert.equal(input.length, 26, "a system message and five turns of five messages");
  const output = emergencyPrune(input, 1);
  // When not even the newest turn fits: its request and its newest step.
  assert.deepEqual(output, [input[0], input.at(-5), input.at(-1)], "at least the request and the newest step");
  output.forEach((m) => assert.ok(input.includes(m)));
  const newestTurn = estimateTokens([input[0], ...input.slice(-5)]);
  assert.deepEqual(emergencyPrune(input, newestTurn), [input[0], ...input.slice(-5)]);
  assert.deepEqual(emergencyPrune(input, newestTurn - 1), [input[0], input.at(-5), input.at(-1)], "the call and its results go together");
  const twoTurns = estimateTokens([input[0], ...input.slice(-10)]);
  assert.deepEqual(emergencyPrune(input, twoTurns), [input[0], ...input.slice(-10)]);
  assert.deepEqual(emergencyPrune(input, estimateTokens(input)), input);
  const noUser = [{ role: "system", content: "a" }, { role: "assistant", content: "b" }];
  assert.deepEqual(emergencyPrune(noUser, 1), noUser);
});

test("unknown roles are system-like and unknown fields survive", () => {
  const input = [
    { role: "developer", content: "rules" },
    { role: "user", content: "hi", cache_control: { type: "ephemeral" } },
    { role: "assistant", content: "hello", reasoning_content: "think" },
    { role: "user", content: "again" },
  ];
  assert.ok(estimateTokens(input) > 0);
  assert.deepEqual(emergencyPrune(input, 1), [input[0], input[3]]);
});

test("bad input is a TypeError naming the argument, index and field", () => {
  const cases = [
    [() => estimateTokens("nope"), /^messages must be an array of messages, got string$/],
    [() => estimateTokens([null]), /^messages\[0\] must be a message object, got null$/],
    [() => estimateTokens([{ role: "user", content: "a" }, 5]), /^messages\[1\] must be a message object, got number$/],
    [() => estimateTokens([{ content: "a" }]), /^messages\[0\]\.role must be a string, got undefined$/],
    [() => effectiveHistory([{ role: 3 }]), /^all\[0\]\.role must be a string, got number$/],
    [() => pruneForModel([{ role: "user", content: 12 }]), /^effective\[0\]\.content must be a string, null or an array of content parts, got number$/],
    [() => emergencyPrune([{ role: "assistant", tool_calls: [{ id: 7, function: { name: "x", arguments: "{}" } }] }]), /^effective\[0\]\.tool_calls\[0\]\.id must be a string, got number$/],
    [() => estimateTokens([{ role: "tool", content: "x" }]), /^messages\[0\]\.tool_call_id must be a string, got undefined$/],
    [() => estimateTokens([{ role: "user", content: [{ type: "text", text: 5 }] }]), /^messages\[0\]\.content\[0\]\.text must be a string, got number$/],
    [() => pruneForModel([], { protectTurns: "2" }), /^options\.protectTurns must be a number, got string$/],
    [() => pruneForModel([], 5), /^options must be an object, got number$/],
  ];
  for (const [call, message] of cases) {
    assert.throws(call, (error) => error instanceof TypeError && message.test(error.message), String(message));
  }
  assert.throws(() => pruneForModel([], { protectTokens: -1 }), RangeError);
  assert.throws(() => pruneForModel([], { protectTurns: 1.5 }), RangeError);
  assert.throws(() => emergencyPrune([], 0), RangeError);
});

test("the module keeps working after every kind of error", () => {
  for (const bad of [undefined, null, 1, "x", {}, [undefined], [{ role: {} }]]) {
    assert.throws(() => estimateTokens(bad));
  }
  const input = session(2);
  assert.equal(estimateTokens(input), input.reduce((sum, m) => sum + estimateTokens([m]), 0));
});

test("the newest-first reads take no element of the array that their decision does not need", () => {
  // 1,201 messages; each read counted on the array itself.
  const history = codingSession(300, { outputLines: 3 });
  const whole = (read) => read(new kram.HistoryMemo());
  // The emergency cut at a small budget: the leading messages, the newest
  // windows and the answer, not the older turns it drops.
  const cut = countedElements(history);
  const kept = kram.emergencyPrune(cut.proxy, 2_000);
  assert.deepEqual(kept, whole((memo) => memo.emergencyPrune(history, 2_000)));
  assert.ok(kept.length < history.length / 4, `${kept.length} kept`);
  assert.ok(cut.count.reads < 3 * (kept.length + 32), `${cut.count.reads} element reads for ${kept.length} kept`);
  // With a marker near the end, the marker search stops there: what it
  // read is about the answer's length (the output reads each kept one).
  const marker = { role: "system", name: kram.COMPACTION_MARKER_NAME, content: `<${kram.COMPACTION_MARKER_NAME}>\nsummary` };
  const marked = [...history.slice(0, -40), marker, ...history.slice(-40)];
  const search = countedElements(marked);
  const effective = kram.effectiveHistory(search.proxy);
  assert.deepEqual(effective, whole((memo) => memo.effectiveHistory(marked)));
  assert.ok(search.count.reads < 3 * (effective.length + 32), `${search.count.reads} element reads for ${effective.length} kept`);
  // The budget check stops once the newest messages are over the budget;
  // under it, it takes every element once.
  const total = estimateTokens(history);
  for (const [budget, most] of [[2_000, 200], [total / 2, 0.7 * history.length], [total, history.length]]) {
    const check = countedElements(history);
    assert.equal(kram.needsCompaction(check.proxy, budget), whole((memo) => memo.needsCompaction(history, budget)));
    assert.ok(check.count.reads <= most, `${check.count.reads} element reads at ${budget} of ${total}`);
  }
  // The emergency cut at half the estimate reads each message it keeps
  // once, and about as many again of the answer; before, it read the
  // history whole.
  const half = countedElements(history);
  const halfKept = kram.emergencyPrune(half.proxy, total / 2);
  assert.deepEqual(halfKept, whole((memo) => memo.emergencyPrune(history, total / 2)));
  assert.ok(half.count.reads < 2.5 * halfKept.length, `${half.count.reads} element reads for ${halfKept.length} kept`);
});

test("effectiveHistory reads of an older assistant or tool message its role alone: no marker has those roles", () => {
  // With no marker the search looks at every message, for the fields a
  // marker may be told by; the text of an assistant's or a tool's message
  // is not one of them in any format (NO_MARKER_ROLES in src/formats/shared.rs).
  for (const history of [codingSession(300, { outputLines: 3 }), aiSdkSession(300)]) {
    const read = new Set();
    const watched = history.map((message, i) =>
      message.role !== "assistant" && message.role !== "tool"
        ? message
        : new Proxy(message, { get: (target, key) => (key !== "role" && read.add(i), Reflect.get(target, key)) }),
    );
    const effective = effectiveHistory(watched);
    assert.equal(effective.length, history.length);
    assert.ok(effective.every((message, i) => message === watched[i]));
    // (The leading messages are looked at for the system prompt, and the
    // newest window read whole.)
    const between = [...read].filter((i) => i >= 8 && i < history.length - 32);
    assert.deepEqual(between, []);
    assert.ok(history.filter((m, i) => i >= 8 && (m.role === "assistant" || m.role === "tool")).length > 500);
    // A user message's text is still looked at: a marker found there
    // starts the answer, after the leading system prompt.
    const marker = { role: "user", content: `<${MARKER}>\nEarlier work.\n</${MARKER}>` };
    const marked = [...history.slice(0, 100), marker, ...history.slice(100)];
    const found = effectiveHistory(marked);
    assert.deepEqual([found[0], found[1], found.length], [history[0], marker, history.length - 98]);
  }
  // A system message named as the marker, as OpenAI Chat's reads, 200
  // messages from the end: the first two messages fit Ollama's format too,
  // which reads it as no marker, and the first eight leave that format out,
  // as a read of them all would (the build before read the whole history).
  const history = codingSession(1_000, { outputLines: 3 });
  const marker = { role: "system", name: MARKER, content: "<summary>Earlier work.</summary>" };
  const at = history.length - 200;
  const read = new Set();
  const watched = [...history.slice(0, at), marker, ...history.slice(at)].map((message, i) =>
    message.role !== "assistant" ? message : new Proxy(message, { get: (target, key) => (key !== "role" && read.add(i), Reflect.get(target, key)) }),
  );
  const found = effectiveHistory(watched);
  assert.deepEqual([found[0], found[1], found.length], [history[0], marker, 202]);
  assert.deepEqual([...read].filter((i) => i >= 8 && i < at), []);
});

test("effectiveHistory and emergencyPrune read whole only as many leading messages as show where the system prompt ends: two after one system prompt, eight after more", () => {
  // The first assistant message's tool calls are read only by a whole read
  // of it: the look for a marker reads its role alone, and the cut at a
  // small budget keeps only the newest turns.
  const watched = (history, at) => {
    const reads = { count: 0 };
    const { tool_calls: calls, ...rest } = history[at];
    const message = Object.defineProperty(rest, "tool_calls", { enumerable: true, get: () => (reads.count++, calls) });
    return { history: history.map((m, i) => (i === at ? message : m)), reads };
  };
  const one = watched(codingSession(300, { outputLines: 3 }), 2);
  assert.equal(one.history[2].role, "assistant");
  const found = kram.effectiveHistory(one.history);
  assert.equal(found.length, one.history.length);
  const kept = kram.emergencyPrune(one.history, 2_000);
  assert.ok(kept.length < 100 && kept[0] === one.history[0]);
  assert.equal(one.reads.count, 0, "the probe of two messages found the system prompt's end");
  // Two system messages: the probe of two is all instructions, so eight are read.
  const twoPrompts = codingSession(300, { outputLines: 3 });
  twoPrompts.splice(1, 0, { role: "system", content: "Answer in English." });
  const two = watched(twoPrompts, 3);
  const foundTwo = kram.effectiveHistory(two.history);
  assert.deepEqual([foundTwo[0], foundTwo[1], foundTwo.length], [twoPrompts[0], twoPrompts[1], twoPrompts.length]);
  assert.ok(two.reads.count > 0, "the probe of eight read the assistant message whole");
});

test("needsCompaction over its budget leaves the older messages unread, and under it refuses a broken one", () => {
  const history = codingSession(300, { outputLines: 3 });
  const broken = history.map((message, i) => (i === 5 ? { ...message, content: 7 } : message));
  assert.equal(kram.needsCompaction(broken, 2_000), true);
  assert.throws(() => kram.needsCompaction(broken, 1e9), (error) => error instanceof TypeError && /^effective\[5\]\.content /.test(error.message));
});

test("needsCompaction over its budget reads little past the newest messages that hold it", () => {
  // Runs of older and older messages are read newest first, each sized by
  // the rate of those read so far; the last run reaches past the budget by
  // its margin alone. (A fifth again read a ninth more than needed here.)
  for (const [size, share] of [
    [1_000, 0.25],
    [3_000, 0.5],
  ]) {
    const history = codingSession(size, { outputLines: 3 });
    const budget = kram.estimateTokens(history) * share;
    // The fewest newest messages over the budget, as a whole read counts them.
    let [low, high] = [1, history.length];
    while (low < high) {
      const middle = Math.floor((low + high) / 2);
      if (kram.needsCompaction(history.slice(-middle), budget)) high = middle;
      else low = middle + 1;
    }
    const { proxy, count } = countedElements(history);
    assert.equal(kram.needsCompaction(proxy, budget), true);
    const read = count.at.filter((reads) => reads > 0).length;
    assert.ok(read >= low && read <= 1.06 * low + 8, `${size} at ${share}: read ${read} where the newest ${low} are over the budget`);
  }
});

/**
 * Holds `pruneForModel` of `history` (frozen here) to a whole read's (the
 * memo's) under three sets of options: the same answer, with the caller's
 * very objects where a whole read keeps them; then `check(pruned, whole)`.
 */
function prunesAsWholeRead(history, check) {
  deepFreeze(history);
  for (const options of [undefined, { protectTokens: 0, minimumSavings: 0, placeholder: "[gone]" }, { protectTurns: 4 }]) {
    const whole = new kram.HistoryMemo().pruneForModel(history, options);
    const pruned = pruneForModel(history, options);
    assert.deepEqual(pruned, whole, JSON.stringify(options));
    const edited = pruned.filter((message, i) => message !== history[i]);
    assert.ok(edited.length > 150, `${edited.length} edited`);
    assert.equal(pruned.length, history.length);
    pruned.forEach((message, i) => assert.equal(message === history[i], whole[i] === history[i], `message ${i}`));
    check(pruned, whole);
  }
}

test("pruneForModel reads an older tool message for its content alone, and answers as a whole read does", () => {
  // 1,201 messages, 300 tool results; older ones varied: already cleared,
  // content parts rather than a string, a class instance, and one whose
  // content is a getter.
  class ToolReply {
    constructor(fields) {
      Object.assign(this, fields);
    }
  }
  const history = codingSession(300, { outputLines: 40 }).map((message, i) => {
    if (message.role !== "tool" || i > 900) return message;
    if (i % 40 === 3) return { ...message, content: "[gone]" };
    if (i % 40 === 7) return { ...message, content: [{ type: "text", text: message.content }] };
    if (i % 40 === 11) return new ToolReply(message);
    if (i % 40 === 15) {
      const copy = { ...message };
      delete copy.content;
      return Object.defineProperty(copy, "content", { enumerable: true, get: () => message.content });
    }
    return message;
  });
  // A class instance's copy is still one.
  prunesAsWholeRead(history, (pruned) => assert.ok(pruned[11] instanceof ToolReply && pruned[11] !== history[11], "a class instance's copy"));
  // Past the protected tail, each older message other than a tool message
  // is read for its role alone, and each tool message once more: for its
  // content's estimate until the walk is decided, then for its content
  // and its copy. So no message is read more than three times (its role,
  // that read, the answer's), none but a tool message more than twice (the
  // newest window is read whole, not for its roles), and the reads add up to at
  // most twice the messages and once the tool messages. (A build that read
  // the walk's messages whole until it was decided read the other messages
  // there too; one before it read each older tool message twice: 2,534.)
  const plain = codingSession(300, { outputLines: 40 });
  const counted = countedElements(plain);
  assert.deepEqual(pruneForModel(counted.proxy), new kram.HistoryMemo().pruneForModel(plain));
  const tools = plain.filter((message) => message.role === "tool").length;
  assert.ok(counted.count.reads <= 2 * plain.length + tools, `${counted.count.reads} element reads for ${plain.length} messages`);
  plain.forEach((message, i) => {
    const most = message.role === "tool" ? 3 : 2;
    assert.ok(counted.count.at[i] <= most, `message ${i}, ${message.role}, read ${counted.count.at[i]} times`);
  });
  // Of an assistant message older than the first window, not even its calls
  // are read (the answer's read takes the message itself).
  const callsRead = new Set();
  const watched = plain.map((message, i) =>
    message.tool_calls === undefined
      ? message
      : Object.defineProperty({ ...message }, "tool_calls", {
          enumerable: true,
          get: () => (callsRead.add(i), message.tool_calls),
        }),
  );
  const answer = pruneForModel(watched);
  const oldestRead = Math.min(...callsRead);
  assert.ok(oldestRead >= plain.length - 32, `the calls of message ${oldestRead} were read`);
  assert.deepEqual(answer, new kram.HistoryMemo().pruneForModel(watched));
});

test("pruneForModel reads an older AI SDK tool message by the rule of where its results are, and answers as a whole read does", () => {
  // 1,201 messages, 300 tool messages; older ones varied: outputs of every
  // type, some already cleared, some kept as they are, two results in one
  // message, a part that is no result, a part that is a class instance and
  // an output behind a getter (both read and copied by the core).
  class Part {
    constructor(fields) {
      Object.assign(this, fields);
    }
  }
  const outputs = [
    (text) => ({ type: "error-text", value: text }),
    (text) => ({ type: "json", value: { lines: text.split("\n") } }),
    (text) => ({ type: "error-json", value: { error: text } }),
    (text) => ({ type: "content", value: [{ type: "text", text }] }),
    () => ({ type: "execution-denied", reason: "not allowed" }),
    () => ({ type: "text", value: "[gone]" }),
    () => ({ type: "error-text", value: "[Old tool result content cleared]" }),
  ];
  const history = aiSdkSession(300, { outputLines: 40 }).map((message, i) => {
    if (message.role !== "tool" || i > 900) return message;
    const [part] = message.content;
    const variant = (i >> 2) % 12;
    if (variant < outputs.length) return { ...message, content: [{ ...part, output: outputs[variant](part.output.value) }] };
    if (variant === 7) return { ...message, content: [part, { ...part, toolCallId: "other", output: outputs[0]("failed") }] };
    if (variant === 8) return { ...message, content: [{ type: "tool-approval-response", approvalId: "a1", approved: true }, part] };
    if (variant === 9) return { ...message, content: [new Part(part)] };
    if (variant === 10) {
      const copy = { ...part };
      delete copy.output;
      return { ...message, content: [Object.defineProperty(copy, "output", { enumerable: true, get: () => part.output })] };
    }
    return message;
  });
  prunesAsWholeRead(history, (pruned, whole) => {
    // The same objects where a whole read keeps them, down to each part.
    pruned.forEach((message, i) => {
      if (!Array.isArray(message.content)) return;
      message.content.forEach((part, p) => assert.equal(part === history[i].content[p], whole[i].content[p] === history[i].content[p], `message ${i} part ${p}`));
    });
    assert.ok(pruned[39].content[0] instanceof Part, "a class instance's copy");
  });
  const cleared = pruneForModel(history);
  assert.deepEqual(cleared[3].content[0].output, { type: "error-text", value: "[Old tool result content cleared]" });
  assert.deepEqual(cleared[47].content[0].output, { type: "text", value: "[Old tool result content cleared]" });
  assert.equal(cleared[19].content[0].output, history[19].content[0].output, "execution-denied is kept");
  // Past the protected tail, each older message is read for its role and
  // by the rule, for its parts, its copy and, until the walk is decided,
  // the payloads of the results it finds, which are estimated from there
  // (an AI SDK message of any role may hold results). So no message is
  // read more than three times (its role, the rule's read, the answer's),
  // and each copy made by the rule spares the answer's read.
  const plain = aiSdkSession(300, { outputLines: 40 });
  const counted = countedElements(plain);
  const pruned = pruneForModel(counted.proxy);
  assert.deepEqual(pruned, new kram.HistoryMemo().pruneForModel(plain));
  assert.ok(counted.count.at.every((reads) => reads <= 3), `at most ${Math.max(...counted.count.at)} reads of a message`);
  assert.ok(counted.count.reads <= 3 * plain.length - 100, `${counted.count.reads} element reads for ${plain.length} messages`);
  // A result part with no toolName: a whole read refuses it, but the rule
  // reads no more than it needs, and clears it.
  const { toolName: _, ...unnamed } = plain[3].content[0];
  const nameless = plain.map((message, i) => (i === 3 ? { ...message, content: [unnamed] } : message));
  assert.throws(() => new kram.HistoryMemo().pruneForModel(nameless), /effective\[3\]\.content\[0\]\.toolName must be a string/);
  assert.equal(pruneForModel(nameless)[3].content[0].output.value, "[Old tool result content cleared]");
  // A part the rule cannot read is read by the core, which says what is wrong.
  const broken = plain.map((message, i) => (i === 3 ? { ...message, content: [{ ...message.content[0], output: { type: "text", value: 5 } }] } : message));
  assert.throws(() => pruneForModel(broken), (error) => error instanceof TypeError && /^effective\[3\]\.content\[0\]\.output\.value must be a string, got number$/.test(error.message));
});

/** A part or block that is a class instance, not a plain object. */
class Instance {
  constructor(fields) {
    Object.assign(this, fields);
  }
}

/**
 * 1,201 messages: 300 turns of a request, an assistant message of two tool
 * calls (`call(id)`), a `resultsRole` message of their two results
 * (`result(id, output)`, forty lines each; the first 220 turns' parts
 * through `vary(turn % 8, parts)`) and a reply (`reply(text)`); then a
 * last request. Each message is `message(role, content)`: `{ role,
 * content }` unless the format keeps them otherwise.
 */
function toolLoop({ call, result, resultsRole, reply, vary, message = (role, content) => ({ role, content }) }) {
  const history = [];
  for (let turn = 0; turn < 300; turn++) {
    const ids = [`call_${turn}_a`, `call_${turn}_b`];
    const output = (k) => Array.from({ length: 40 }, (_, line) => `src/file_${turn}_${k}.ts:${line}: const value = compute(${line});`).join("\n");
    const results = ids.map((id, k) => result(id, output(k)));
    history.push(message("user", `Step ${turn}: run the tests and fix what fails.`));
    history.push(message("assistant", ids.map(call)));
    history.push(message(resultsRole, turn < 220 ? vary(turn % 8, results) : results));
    history.push(message("assistant", reply(`Step ${turn} done.`)));
  }
  history.push(message("user", "Thanks."));
  return history;
}

/** `toolLoop`'s Anthropic messages: a call, its result, and a reply. */
const ANTHROPIC_LOOP = {
  call: (id) => ({ type: "tool_use", id, name: "read_file", input: { path: "src/lib.rs" } }),
  result: (id, content) => ({ type: "tool_result", tool_use_id: id, content }),
  resultsRole: "user",
  reply: (text) => [{ type: "text", text }],
};

/** `prunesAsWholeRead`'s check that the answer keeps the caller's very parts (in `key`) where a whole read does. */
const keepsPartsAsWholeRead =
  (history, key = "content") =>
  (pruned) =>
    pruned.forEach((message, i) => {
      if (!Array.isArray(message[key])) return;
      message[key].forEach((part, p) => assert.equal(part === history[i][key][p], pruned[i] === history[i] || part === history[i][key][p], `message ${i} part ${p}`));
    });

test("pruneForModel reads no older message whole that the rule finds no results to clear in, before its walk is decided too", () => {
  // An AI SDK session: until the walk back has passed 40,000 tokens of
  // protected output and 20,000 more to clear (about 100 messages from the
  // end), each message with results is read whole, for their sizes. An
  // assistant message of text and tool calls holds none: nothing of one
  // older than the newest 32 (which are read whole) is read but its parts'
  // types.
  const history = aiSdkSession(300, { outputLines: 40 });
  const read = new Set();
  const watched = history.map((message, i) =>
    message.role !== "assistant" || !Array.isArray(message.content)
      ? message
      : { ...message, content: message.content.map((part) => new Proxy(part, { get: (target, key) => (key !== "type" && read.add(i), target[key]) })) },
  );
  const pruned = pruneForModel(watched);
  const older = [...read].filter((i) => i < history.length - 32);
  assert.deepEqual(older, [], "no older assistant part is read but its type");
  assert.ok(read.size > 0, "the newest 32 are read whole");
  const cleared = pruned.filter((message, i) => message !== watched[i]).length;
  assert.ok(cleared > 100, `${cleared} messages cleared`);
  assert.deepEqual(pruned, new kram.HistoryMemo().pruneForModel(watched));
});

/**
 * The largest minimumSavings at which pruning `history` (1,000 tokens of
 * output protected) clears anything, found by halving, with pruneForModel,
 * which estimates the older results past the protected output until the
 * minimum saving is reached; checked against a whole read (a HistoryMemo),
 * which must clear at it and not one token above it. -1 when nothing is
 * cleared at all. One result estimated otherwise than its format's reader
 * estimates it moves it.
 */
function weighsAsWholeRead(history, name) {
  const clears = (prune, minimumSavings) => prune(history, { protectTokens: 1_000, minimumSavings }).some((message, i) => message !== history[i]);
  const newestFirst = (messages, options) => pruneForModel(messages, options);
  const whole = (messages, options) => new kram.HistoryMemo().pruneForModel(messages, options);
  let low = 0;
  let high = kram.estimateTokens(history);
  assert.ok(!clears(newestFirst, high), name);
  if (!clears(whole, low)) {
    assert.ok(!clears(newestFirst, low), name);
    return -1;
  }
  while (high - low > 1) {
    const middle = Math.floor((low + high) / 2);
    if (clears(newestFirst, middle)) low = middle;
    else high = middle;
  }
  assert.ok(clears(whole, low), `${name}: a whole read clears nothing at ${low} tokens`);
  assert.ok(!clears(whole, low + 1), `${name}: a whole read clears at ${low + 1} tokens`);
  return low;
}

test("pruneForModel reads an older call of OpenAI's own tools (a web search) for its type alone, and prunes as a whole read does", () => {
  // Such a call holds no result to clear: its type says so, as a function
  // call's does. Read whole, they were about a quarter of pruning the
  // fixture.
  const session = JSON.parse(readFileSync(new URL("../fixtures/openai-responses.json", import.meta.url), "utf8"));
  const history = Array.from({ length: 100 }, () => structuredClone(session)).flat();
  const fieldsRead = new Map();
  const watched = history.map((item, i) => {
    if (item.type !== "web_search_call") return item;
    fieldsRead.set(i, new Set());
    return new Proxy(item, { get: (target, key, receiver) => (fieldsRead.get(i).add(key), Reflect.get(target, key, receiver)) });
  });
  assert.ok(fieldsRead.size >= 100, `${fieldsRead.size} web search calls`);
  const pruned = pruneForModel(watched);
  // The newest run is read whole, with its estimates.
  const older = [...fieldsRead].filter(([i]) => i < history.length - 32);
  const readMore = older.filter(([, keys]) => [...keys].some((key) => key !== "role" && key !== "type"));
  assert.deepEqual(readMore.map(([i, keys]) => `${i}: ${[...keys].map(String)}`), []);
  assert.deepEqual(pruned, new kram.HistoryMemo().pruneForModel(history));
  assert.ok(pruned.some((item, i) => item !== watched[i]), "some results are cleared");
});

test("pruneForModel weighs the older results as a whole read does, in every format whose results are parts", () => {
  // Past the protected output, each older result is estimated from the
  // payload the rule's one call into JS recorded (resultParts in
  // src/bindings/guarded.js), or from its part alone.
  const partsFormats = ["ai-sdk", "ai-sdk-4", "anthropic", "gemini", "ai-sdk-ui"];
  const fixture = (format) => JSON.parse(readFileSync(new URL(`../fixtures/${format}.json`, import.meta.url), "utf8"));
  const sessions = [
    ...partsFormats.map((format) => [format, fixture(format)]),
    ...loadRealSessions().filter((session) => partsFormats.includes(session.format)).map((session) => [session.name, session.messages]),
  ];
  let weighed = 0;
  for (const [name, session] of sessions) {
    const history = Array.from({ length: Math.ceil(400 / session.length) }, () => session).flat();
    // (One real AI SDK session is a single turn: nothing in it is cleared.)
    if (weighsAsWholeRead(history, name) >= 0) weighed++;
  }
  assert.ok(weighed >= 15, `${weighed} sessions weighed`);
});

test("pruneForModel weighs an older result as a whole read does when reading it runs another history function", () => {
  // Anthropic results whose content blocks are behind a getter that prunes
  // a Gemini history first: that inner call finds payloads of its own to
  // estimate (the last of them in its oldest message, a function's
  // response), and none of them may be taken for the outer call's, which
  // has none to take from blocks (a build that kept them in one place for
  // every call cleared nothing here).
  const fixture = (format) => JSON.parse(readFileSync(new URL(`../fixtures/${format}.json`, import.meta.url), "utf8"));
  const gemini = Array.from({ length: 40 }, () => fixture("gemini")).flat().slice(2);
  let inner = 0;
  const history = toolLoop({
    ...ANTHROPIC_LOOP,
    vary: (variant, results) =>
      results.map((result) => {
        const blocks = [{ type: "text", text: result.content }];
        const { content: _, ...rest } = result;
        return Object.defineProperty(rest, "content", {
          enumerable: true,
          get: () => {
            inner++;
            pruneForModel(gemini, { protectTokens: 100, minimumSavings: 0 });
            return blocks;
          },
        });
      }),
  });
  assert.ok(weighsAsWholeRead(history, "anthropic, re-entered") > 0);
  assert.ok(inner > 0, "the getters ran");
});

test("pruneForModel weighs the older results as a whole read does when the rule's call takes back a message's payloads", () => {
  // Two results a message. The rule's one call into JS (resultParts)
  // records each message's payloads as it reads its parts, and takes them
  // back when a later part has none it can hand over (content blocks, which
  // the core's reader estimates) or a later read throws (a getter that
  // throws in that call alone: the core then reads the message itself). A
  // payload left behind would be taken for the next message's, and every
  // older result weighed as another's (a build that kept them failed here).
  let thrown = 0;
  const throwsInTheRule = (result) =>
    Object.defineProperty({ ...result }, "content", {
      enumerable: true,
      get() {
        if (new Error().stack.includes("resultParts")) {
          thrown++;
          throw new Error("read in the rule's call");
        }
        return result.content;
      },
    });
  const history = toolLoop({
    ...ANTHROPIC_LOOP,
    // The payload that would be left behind weighs five times the others.
    vary: (variant, [first, second]) => {
      const heavy = { ...first, content: first.content.repeat(5) };
      if (variant === 1) return [heavy, { ...second, content: [{ type: "text", text: second.content }] }];
      if (variant === 2) return [heavy, throwsInTheRule(second)];
      return [first, second];
    },
  });
  assert.ok(weighsAsWholeRead(history, "anthropic, payloads taken back") > 0);
  assert.ok(thrown > 0, "the getters threw in the rule's call");
});

test("pruneForModel keeps the results an older Anthropic marker holds, as a whole read does", () => {
  // A marker is kept whole: the rule's one call into JS answers a message
  // with results to clear that may be a marker as unknown, and the core
  // reads it. Here every eighth older results message starts with the
  // marker's tag.
  const tagged = { type: "text", text: `<${kram.COMPACTION_MARKER_NAME}>\nSo far.\n</${kram.COMPACTION_MARKER_NAME}>` };
  const history = toolLoop({ ...ANTHROPIC_LOOP, vary: (variant, results) => (variant === 5 ? [tagged, ...results] : results) });
  const markers = history.flatMap((message, i) => (Array.isArray(message.content) && message.content[0] === tagged ? [i] : []));
  assert.ok(markers.length > 20, `${markers.length} markers`);
  prunesAsWholeRead(history, (pruned) => markers.forEach((i) => assert.equal(pruned[i], history[i], `marker ${i}`)));
});

test("pruneForModel reads an older Anthropic message by the rule of where its results are, and answers as a whole read does", () => {
  // Older results varied: content as blocks, already cleared, absent, a
  // block that is a class instance, one behind a getter (read by the
  // core), and a text block before the results.
  const history = toolLoop({
    ...ANTHROPIC_LOOP,
    vary: (variant, [first, second]) => {
      if (variant === 0) return [{ ...first, content: [{ type: "text", text: first.content }] }, second];
      if (variant === 1) return [first, { ...second, content: "[Old tool result content cleared]" }];
      if (variant === 2) return [{ type: first.type, tool_use_id: first.tool_use_id }, second];
      if (variant === 3) return [new Instance(first), second];
      if (variant === 4) {
        const { content, ...rest } = second;
        return [first, Object.defineProperty(rest, "content", { enumerable: true, get: () => content })];
      }
      if (variant === 5) return [{ type: "text", text: "Both ran." }, first, second];
      return [first, second];
    },
  });
  prunesAsWholeRead(history, keepsPartsAsWholeRead(history));
  const cleared = pruneForModel(history);
  assert.equal(cleared[2].content[1].content, "[Old tool result content cleared]");
  assert.equal(cleared[2].content[0].content, "[Old tool result content cleared]", "blocks cleared to the placeholder");
  assert.equal(cleared[10].content[0], history[10].content[0], "a result with no content is kept");
  assert.ok(cleared[14].content[0] instanceof Instance && cleared[14].content[0] !== history[14].content[0], "a class instance's copy");
  // The rule reads of an older message its blocks' types and its results
  // alone: a text block with no text, which a whole read refuses, is not
  // read, and the results beside it are cleared.
  const plain = history.map((message) => ({ ...message, content: Array.isArray(message.content) ? message.content.map((block) => ({ ...block })) : message.content }));
  const textless = plain.map((message, i) => (i === 2 ? { ...message, content: [{ type: "text" }, ...message.content] } : message));
  assert.throws(() => new kram.HistoryMemo().pruneForModel(textless), /effective\[2\]\.content\[0\]\.text must be a string/);
  assert.equal(pruneForModel(textless)[2].content[1].content, "[Old tool result content cleared]");
  // A result whose content the rule cannot read is read by the core, which says what is wrong.
  const broken = plain.map((message, i) => (i === 2 ? { ...message, content: [{ ...message.content[0], content: 7 }] } : message));
  assert.throws(() => pruneForModel(broken), (error) => error instanceof TypeError && /^effective\[2\]\.content\[0\]\.content must be a string or an array of content blocks, got number$/.test(error.message));
});

test("pruneForModel reads an older AI SDK 4 tool message by the rule of where its results are, and answers as a whole read does", () => {
  // `ai` 4's CoreMessages. Older results varied: JSON results (an object,
  // null), already cleared, one sent as experimental_content (kept whole),
  // a part that is a class instance, and one behind a getter.
  const history = toolLoop({
    call: (toolCallId) => ({ type: "tool-call", toolCallId, toolName: "readFile", args: { path: "src/lib.ts" } }),
    result: (toolCallId, result) => ({ type: "tool-result", toolCallId, toolName: "readFile", result }),
    resultsRole: "tool",
    reply: (text) => text,
    vary: (variant, [first, second]) => {
      if (variant === 0) return [{ ...first, result: { lines: first.result.split("\n") } }, second];
      if (variant === 1) return [first, { ...second, result: "[Old tool result content cleared]" }];
      if (variant === 2) return [{ ...first, experimental_content: [{ type: "text", text: first.result }] }, second];
      if (variant === 3) return [new Instance(first), second];
      if (variant === 4) {
        const { result, ...rest } = second;
        return [first, Object.defineProperty(rest, "result", { enumerable: true, get: () => result })];
      }
      if (variant === 5) return [{ ...first, result: null }, second];
      return [first, second];
    },
  });
  prunesAsWholeRead(history, keepsPartsAsWholeRead(history));
  const cleared = pruneForModel(history);
  assert.deepEqual(cleared[2].content.map((part) => part.result), ["[Old tool result content cleared]", "[Old tool result content cleared]"]);
  assert.notEqual(cleared[2].content[0], history[2].content[0]);
  assert.equal(cleared[10].content[0], history[10].content[0], "a result sent as experimental_content is kept whole");
  assert.ok(cleared[14].content[0] instanceof Instance && cleared[14].content[0].result === "[Old tool result content cleared]", "a class instance's copy");
  assert.equal(cleared[22].content[0].result, "[Old tool result content cleared]", "a null result is cleared");
  // The rule reads of an older message its parts' types and its results
  // alone: a result part with no toolName, which a whole read refuses, is
  // cleared.
  const { toolName: _, ...unnamed } = history[2].content[0];
  const nameless = history.map((message, i) => (i === 2 ? { ...message, content: [unnamed, message.content[1]] } : message));
  assert.throws(() => new kram.HistoryMemo().pruneForModel(nameless), /effective\[2\]\.content\[0\]\.toolName must be a string/);
  assert.equal(pruneForModel(nameless)[2].content[0].result, "[Old tool result content cleared]");
});

test("pruneForModel clears an older tool message it does not read whole, and refuses one whose content throws", () => {
  // An older tool message with no tool_call_id: a whole read refuses it, but
  // pruning's older messages are cleared unread but for their content.
  const history = codingSession(300, { outputLines: 40 });
  const { tool_call_id: _, ...unpaired } = history[3];
  const broken = [...history.slice(0, 3), unpaired, ...history.slice(4)];
  assert.throws(() => new kram.HistoryMemo().pruneForModel(broken), /effective\[3\]\.tool_call_id must be a string/);
  assert.equal(pruneForModel(broken)[3].content, "[Old tool result content cleared]");
  // A content getter that throws is read again by the core, which says so.
  const throwing = Object.defineProperty({ ...history[3] }, "content", {
    enumerable: true,
    get() {
      throw new Error("no content");
    },
  });
  const bad = [...history.slice(0, 3), throwing, ...history.slice(4)];
  assert.throws(() => pruneForModel(bad), (error) => error instanceof TypeError && /^effective\[3\]\.content could not be read: .*no content/.test(error.message));
});

test("a long plain-text history, and one of OpenAI Responses items, have the effective history of a whole read", () => {
  // Plain user and assistant strings fit six formats, OpenAI Responses among
  // them; an assistant message is settled by its role's name in each, an
  // untyped item's too. Each is held to a read of the whole (the memo's).
  const text = (i) => [
    { role: "user", content: `question ${i}` },
    { role: "assistant", content: `answer ${i}` },
  ];
  const tag = `<${kram.COMPACTION_MARKER_NAME}>`;
  const summary = { role: "user", content: `${tag}\nthe summary so far` };
  const plain = Array.from({ length: 200 }, (_, i) => text(i)).flat();
  const responses = Array.from({ length: 100 }, (_, i) => [
    ...text(i),
    { type: "function_call", call_id: `c${i}`, name: "ls", arguments: "{}" },
    { type: "function_call_output", call_id: `c${i}`, output: "a.txt" },
  ]).flat();
  let found = 0;
  for (const [name, history] of Object.entries({ plain, responses })) {
    for (const at of [undefined, 3, 150, history.length - 3]) {
      const withMarker = at === undefined ? history : [...history.slice(0, at), summary, ...history.slice(at)];
      const whole = new kram.HistoryMemo().effectiveHistory(withMarker);
      assert.deepEqual(kram.effectiveHistory(withMarker), whole, `${name}, marker at ${at}`);
      found += Number(whole.length < withMarker.length);
    }
  }
  assert.ok(found >= 3, `the marker was found in ${found} histories`);
});

test("pruneForModel reads an older Gemini content by the rule of where its results are, and answers as a whole read does", () => {
  // Gemini contents: `{ role: "user" | "model", parts }`, a result a part's
  // `functionResponse`, its payload the `response` object. Older results
  // varied: an error, already cleared, no response, a part that is a class
  // instance, a response behind a getter, a text part before the results,
  // both an output and an error, and an output beside other fields.
  const history = toolLoop({
    message: (role, content) => ({ role: role === "assistant" ? "model" : role, parts: typeof content === "string" ? [{ text: content }] : content }),
    call: (id) => ({ functionCall: { id, name: "read_file", args: { path: "src/lib.rs" } } }),
    result: (id, output) => ({ functionResponse: { id, name: "read_file", response: { output } } }),
    resultsRole: "user",
    reply: (text) => [{ text }],
    vary: (variant, [first, second]) => {
      const response = (part, value) => ({ functionResponse: { ...part.functionResponse, response: value } });
      const text = first.functionResponse.response.output;
      if (variant === 0) return [response(first, { error: text }), second];
      if (variant === 1) return [first, response(second, { output: "[Old tool result content cleared]" })];
      if (variant === 2) return [{ functionResponse: { name: "read_file" } }, second];
      if (variant === 3) return [new Instance(first), second];
      if (variant === 4) {
        const { response: value, ...rest } = second.functionResponse;
        return [first, { functionResponse: Object.defineProperty(rest, "response", { enumerable: true, get: () => value }) }];
      }
      if (variant === 5) return [{ text: "Both ran." }, first, second];
      if (variant === 6) return [response(first, { output: text, error: "exit 1" }), second];
      return [response(first, { output: text, exitCode: 0 }), second];
    },
  });
  prunesAsWholeRead(history, keepsPartsAsWholeRead(history, "parts"));
  const cleared = pruneForModel(history);
  const responseOf = (index, part) => cleared[index].parts[part].functionResponse.response;
  assert.deepEqual(responseOf(2, 0), { error: "[Old tool result content cleared]" }, "an error is cleared as one");
  assert.deepEqual(responseOf(2, 1), { output: "[Old tool result content cleared]" });
  assert.equal(cleared[6].parts[1], history[6].parts[1], "a cleared response is kept");
  assert.equal(cleared[10].parts[0], history[10].parts[0], "a result with no response is kept");
  assert.ok(cleared[14].parts[0] instanceof Instance && cleared[14].parts[0] !== history[14].parts[0], "a class instance's copy");
  assert.deepEqual(responseOf(26, 0), { output: "[Old tool result content cleared]" }, "an output beside an error is cleared as an output");
  assert.deepEqual(responseOf(30, 0), { output: "[Old tool result content cleared]" });
  assert.equal(cleared[2].parts[0].functionResponse.id, "call_0_a", "the response's other fields are kept");
  // The rule reads of an older content its parts' `functionResponse` and
  // their `response` alone: a response whose name is no string, which a
  // whole read refuses, is cleared.
  const plain = history.map((message) => ({ ...message, parts: message.parts.map((part) => ({ ...part })) }));
  const misnamed = plain.map((message, i) => (i === 2 ? { ...message, parts: [{ functionResponse: { ...message.parts[0].functionResponse, name: 5 } }] } : message));
  assert.throws(() => new kram.HistoryMemo().pruneForModel(misnamed), /effective\[2\]\.parts\[0\]\.functionResponse\.name must be a string/);
  assert.deepEqual(pruneForModel(misnamed)[2].parts[0].functionResponse.response, { error: "[Old tool result content cleared]" });
  // A response the rule cannot read is read by the core, which says what is wrong.
  const broken = plain.map((message, i) => (i === 2 ? { ...message, parts: [{ functionResponse: { name: "read_file", response: "done" } }] } : message));
  assert.throws(() => pruneForModel(broken), (error) => error instanceof TypeError && /^effective\[2\]\.parts\[0\]\.functionResponse\.response must be an object, got string$/.test(error.message));
});

test("pruneForModel reads an older AI SDK UI assistant message by the rule of where its results are, and answers as a whole read does", () => {
  // UIMessages: a tool part holds its call and, as its `state` says, its
  // result: `output` once `output-available`, `errorText` once
  // `output-error`. Older parts varied: an error, already cleared, JSON
  // output, a class instance, an output behind a getter, a text part
  // before the tool parts, a `dynamic-tool` part, and a denied call.
  const placeholder = "[Old tool result content cleared]";
  const history = toolLoop({
    message: (role, content) => ({ role, parts: typeof content === "string" ? [{ type: "text", text: content }] : content }),
    call: () => ({ type: "step-start" }),
    result: (toolCallId, output) => ({ type: "tool-readFile", toolCallId, state: "output-available", input: { path: "src/lib.ts" }, output }),
    resultsRole: "assistant",
    reply: (text) => [{ type: "text", text }],
    vary: (variant, [first, second]) => {
      const { output, ...call } = first;
      if (variant === 0) return [{ ...call, state: "output-error", errorText: output }, second];
      if (variant === 1) return [first, { ...second, output: placeholder }];
      if (variant === 2) return [{ ...first, output: { lines: output.split("\n") } }, second];
      if (variant === 3) return [new Instance(first), second];
      if (variant === 4) {
        const { output: value, ...rest } = second;
        return [first, Object.defineProperty(rest, "output", { enumerable: true, get: () => value })];
      }
      if (variant === 5) return [{ type: "text", text: "Both ran." }, first, second];
      if (variant === 6) return [{ ...first, type: "dynamic-tool", toolName: "readFile" }, second];
      return [{ ...call, state: "output-denied" }, second];
    },
  });
  prunesAsWholeRead(history, keepsPartsAsWholeRead(history, "parts"));
  const cleared = pruneForModel(history);
  const part = (index, at) => cleared[index].parts[at];
  assert.equal(part(2, 0).errorText, placeholder, "an error's text is cleared");
  assert.equal(part(2, 0).state, "output-error");
  assert.equal(part(2, 1).output, placeholder);
  assert.equal(part(6, 1), history[6].parts[1], "a cleared output is kept");
  assert.equal(part(10, 0).output, placeholder, "JSON output is cleared");
  assert.ok(part(14, 0) instanceof Instance && part(14, 0).output === placeholder, "a class instance's copy");
  assert.equal(part(22, 0), history[22].parts[0], "a text part is kept");
  assert.equal(part(26, 0).output, placeholder, "a dynamic-tool part is cleared");
  assert.equal(part(30, 0), history[30].parts[0], "a denied call has nothing to clear");
  assert.equal(part(2, 0).toolCallId, "call_0_a", "the part's other fields are kept");
  // The rule reads of an older assistant message its parts' types, ids,
  // states and payloads alone: a dynamic-tool part with no toolName, which a
  // whole read refuses, is cleared.
  const plain = history.map((message) => ({ ...message, parts: message.parts.map((p) => ({ ...p })) }));
  const { toolName: _, ...nameless } = plain[26].parts[0];
  const unnamed = plain.map((message, i) => (i === 26 ? { ...message, parts: [nameless, message.parts[1]] } : message));
  assert.throws(() => new kram.HistoryMemo().pruneForModel(unnamed), /effective\[26\]\.parts\[0\]\.toolName must be a string/);
  assert.equal(pruneForModel(unnamed)[26].parts[0].output, placeholder);
  // An error the rule cannot read is read by the core, which says what is wrong.
  const broken = plain.map((message, i) => (i === 2 ? { ...message, parts: [{ ...message.parts[0], errorText: 7 }, message.parts[1]] } : message));
  assert.throws(() => pruneForModel(broken), (error) => error instanceof TypeError && /^effective\[2\]\.parts\[0\]\.errorText must be a string, got number$/.test(error.message));
});

test("pruneForModel reads an older OpenAI Responses call output for its output alone, and of a call, reasoning or message item its type and role alone", () => {
  // OpenAI Responses items: a call's output is an item with no role, found
  // by its `type`. Older outputs varied: content parts rather than a
  // string, already cleared, a class instance, and one behind a getter.
  const history = [];
  for (let turn = 0; turn < 200; turn++) {
    const ids = [`call_${turn}_a`, `call_${turn}_b`];
    history.push({ role: "user", content: `Step ${turn}: run the tests and fix what fails.` });
    history.push({ type: "reasoning", summary: [{ type: "summary_text", text: "Run both." }] });
    for (const id of ids) history.push({ type: "function_call", call_id: id, name: "shell", arguments: '{"command":"npm test"}' });
    ids.forEach((id, k) => {
      const output = Array.from({ length: 40 }, (_, line) => `src/file_${turn}_${k}.ts:${line}: const value = compute(${line});`).join("\n");
      let item = { type: "function_call_output", call_id: id, output };
      if (turn < 150 && k === 0) {
        const variant = turn % 5;
        if (variant === 1) item = { ...item, output: [{ type: "input_text", text: output }] };
        if (variant === 2) item = { ...item, output: "[Old tool result content cleared]" };
        if (variant === 3) item = new Instance(item);
        if (variant === 4) {
          const { output: value, ...rest } = item;
          item = Object.defineProperty(rest, "output", { enumerable: true, get: () => value });
        }
      }
      history.push(item);
    });
    history.push({ type: "message", role: "assistant", content: [{ type: "output_text", text: `Step ${turn} done.` }] });
  }
  history.push({ role: "user", content: "Thanks." });
  prunesAsWholeRead(history, () => {});
  const cleared = pruneForModel(history);
  assert.equal(cleared[5].output, "[Old tool result content cleared]");
  // Seven items a turn: the first output of turn t is item 7t + 4.
  assert.equal(cleared[11].output, "[Old tool result content cleared]", "content parts cleared to the placeholder");
  assert.equal(cleared[18], history[18], "a cleared output is kept");
  assert.ok(cleared[25] instanceof Instance && cleared[25] !== history[25], "a class instance's copy");
  // Of the calls, the reasoning and the assistant's message items (`type:
  // "message"`) older than the first window, nothing is read but their
  // type and role: their other fields are never asked for.
  const read = new Set();
  const watched = history.map((item, i) =>
    !["function_call", "reasoning", "message"].includes(item.type)
      ? item
      : new Proxy(item, { get: (target, key) => (key !== "role" && key !== "type" && read.add(i), target[key]) }),
  );
  const answer = pruneForModel(watched);
  const oldest = Math.min(...read);
  assert.ok(oldest >= history.length - 32, `item ${oldest} was read`);
  assert.deepEqual(answer, new kram.HistoryMemo().pruneForModel(watched));
  // An output with no call_id: a whole read refuses it, but the read of an
  // older output reads its output alone, and clears it.
  const { call_id: _, ...unanswered } = history[5];
  const uncalled = history.map((item, i) => (i === 5 ? unanswered : item));
  assert.throws(() => new kram.HistoryMemo().pruneForModel(uncalled), /effective\[5\]\.call_id must be a string/);
  assert.equal(pruneForModel(uncalled)[5].output, "[Old tool result content cleared]");
});

test("pruneForModel of a single long task reads its tool loop for the roles alone, up to its one request", () => {
  // One request, then a long tool loop: without a budget the protected
  // tail (two user turns) reaches back to the start, so nothing is
  // cleared, and nothing of the loop older than the first window need be
  // read but each message's role. After a compaction the marker (a user
  // message) is no turn of its own.
  const marker = { role: "user", content: "<kram:compaction_summary>\nEarlier work.\n</kram:compaction_summary>" };
  for (const lead of [[], [marker]]) {
    const history = [{ role: "system", content: "You are a coding agent." }, ...lead, { role: "user", content: "Fix every failing test." }];
    for (let i = 0; i < 400; i++) {
      history.push({ role: "assistant", content: null, tool_calls: [{ id: `c${i}`, type: "function", function: { name: "bash", arguments: '{"command":"npm test"}' } }] });
      history.push({ role: "tool", tool_call_id: `c${i}`, content: `test ${i} output\n`.repeat(40) });
    }
    const read = new Set();
    const watched = history.map((message, i) => new Proxy(message, { get: (target, key) => (key !== "role" && key !== "type" && read.add(i), target[key]) }));
    const pruned = pruneForModel(watched);
    const loopRead = [...read].filter((i) => i > lead.length + 1 && i < history.length - 32);
    assert.deepEqual(loopRead, [], "no message of the loop older than the first window is read but its role");
    assert.ok(pruned.every((message, i) => message === watched[i]), "nothing is cleared");
    // With no turn protected, the loop's older results are cleared as a whole read clears them.
    const cleared = pruneForModel(history, { protectTurns: 0 });
    assert.deepEqual(cleared, new kram.HistoryMemo().pruneForModel(history, { protectTurns: 0 }));
    assert.ok(cleared.some((message, i) => message !== history[i]));
  }
});
