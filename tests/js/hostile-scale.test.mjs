// Size and repetition: a history of 1,000,000 messages and strings of 100 MB
// are answered within bounded memory, and 100,000 calls of each history
// function leave the module's memory and its table of JS references exactly
// as large as they were (a leak would grow one or the other).
import { test } from "node:test";
import assert from "node:assert/strict";
import { loadWithInstance } from "./support/wasm-instance.mjs";
import { exportsOf, plain } from "./support/hostile.mjs";

const { kram, memoryBytes, refSlots } = await loadWithInstance();
const MB = 1024 * 1024;

/** A call, its result and a user turn: pruning edits the result on every call. */
const small = [
  { role: "user", content: "Run it." },
  { role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "run", arguments: "{}" } }] },
  { role: "tool", tool_call_id: "c1", content: "ok ".repeat(20) },
  { role: "user", content: "Thanks." },
];

test("100,000 calls of each history function: no growth of memory or references", () => {
  const calls = Object.entries(exportsOf(kram)).map(([name, { call }]) => [name, () => call(small)]);
  const expected = Object.fromEntries(calls.map(([name, call]) => [name, plain(call())]));
  for (const [, call] of calls) for (let i = 0; i < 2_000; i++) call();
  const bytes = memoryBytes();
  const slots = refSlots();
  for (const [name, call] of calls) {
    let last;
    for (let i = 0; i < 100_000; i++) last = call();
    assert.deepEqual(plain(last), expected[name], name);
    assert.equal(memoryBytes(), bytes, `${name}: memory grew`);
    assert.equal(refSlots(), slots, `${name}: the reference table grew`);
  }
  assert.equal(kram.pruneForModel(small, { protectTurns: 1, protectTokens: 0, minimumSavings: 0 })[2].content, "[Old tool result content cleared]");
});

test("errors, getters and traps that throw included, leave nothing behind", () => {
  const bad = [...small, { role: "tool", tool_call_id: 7, content: "x" }];
  const getter = Object.defineProperty({ ...small[2] }, "meta", { enumerable: true, get: () => { throw new Error("no"); } });
  const calls = [
    () => kram.estimateTokens(bad),
    () => kram.pruneForModel([small[0], small[1], getter, small[3]], { protectTurns: 1, protectTokens: 0, minimumSavings: 0 }),
    () => kram.emergencyPrune(small, -1),
  ];
  const run = (times) => {
    for (const call of calls) for (let i = 0; i < times; i++) assert.throws(call, (e) => e instanceof TypeError || e instanceof RangeError);
  };
  run(2_000);
  const bytes = memoryBytes();
  const slots = refSlots();
  run(30_000);
  assert.equal(memoryBytes(), bytes);
  assert.equal(refSlots(), slots);
});

test("a history of 1,000,000 messages: linear, bounded memory, right answers", () => {
  const pair = [{ role: "user", content: "Next step." }, { role: "assistant", content: "Done." }];
  const perPair = kram.estimateTokens(pair);
  const history = [];
  for (let i = 0; i < 500_000; i++) history.push({ role: "user", content: "Next step." }, { role: "assistant", content: "Done." });
  assert.equal(kram.estimateTokens(history), 500_000 * perPair);
  const cut = kram.emergencyPrune(history, 10 * perPair);
  assert.equal(cut.length, 20);
  assert.equal(cut[0], history[history.length - 20], "the caller's own objects");
  const grown = memoryBytes();
  assert.ok(grown < 512 * MB, `${grown / MB} MB of wasm memory for 1,000,000 messages`);
  // The memory is reused, not grown again, by the next call of the same size.
  assert.equal(kram.estimateTokens(history), 500_000 * perPair);
  assert.equal(memoryBytes(), grown);
});

test("strings of 100 MB: counted, cleared, cut and described", () => {
  const huge = "word ".repeat(20 * MB);
  assert.equal(huge.length, 100 * MB);
  // The estimate is linear: 20 times the words, 20 times the tokens (but for
  // the ends of the text and the rounding).
  const one = kram.estimateTokens([{ role: "user", content: "word ".repeat(MB) }]);
  const whole = kram.estimateTokens([{ role: "user", content: huge }]);
  assert.ok(Math.abs(whole - 20 * one) < whole * 1e-5, `${whole} tokens, against ${20 * one}`);
  const history = [
    { role: "user", content: "Read the log." },
    { role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "read", arguments: "{}" } }] },
    { role: "tool", tool_call_id: "c1", content: huge },
    { role: "user", content: "Now fix it." },
  ];
  // (Never assert.equal on these strings: a failure would print 100 MB.)
  const pruned = kram.pruneForModel(history, { protectTurns: 1 });
  assert.ok(pruned[2].content === "[Old tool result content cleared]", "the result is cleared");
  assert.ok(history[2].content === huge, "the caller's message keeps its content");
  assert.deepEqual(kram.emergencyPrune(history, 1_000), [history[3]]);
  const described = kram.describeMessages(history).messages[2];
  assert.ok(described.blocks[0].output === huge, "described whole");
  assert.ok(memoryBytes() < 1024 * MB, `${memoryBytes() / MB} MB of wasm memory`);
  assert.equal(kram.estimateTokens(small), kram.estimateTokens(small.slice(0, 2)) + kram.estimateTokens(small.slice(2)));
});
